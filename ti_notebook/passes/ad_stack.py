"""Per-thread stacks of a grad kernel: the values loop-carried locals had per iteration.

A serial loop inside a kernel's parallel loop runs backwards in the grad kernel; each
reversed iteration needs the locals the loop changes as they were when that iteration
started. The forward sweep pushes them at the start of every iteration and the reversed
loop pops them back. A stack is a stack array of ``ti.init(ad_stack_size=)`` entries and
a counter, both private to the thread; a push beyond the size stops the launch with an
error at the loop's line.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import f64
    >>> home, body = ir.Block(), ir.Block()
    >>> local = body.append(ir.AllocaStmt(f64, "p"))
    >>> stack = AdStack(home, local, 4, "kernel 'k'")
    >>> stack.push(body, local, None); stack.pop_into(body, local, None)
    >>> sum(isinstance(s, ir.AssertStmt) for s in body.stmts)
    1
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir.types import i32, i64


class AdStack:
    """The stack of one local (``alloca``, an original statement), made in ``home``."""

    def __init__(self, home: ir.Block, alloca: ir.Stmt, size: int, owner: str) -> None:
        self.size, self.owner, self.name = size, owner, alloca.name or "a local"
        self.dtype = alloca.dtype
        made = [
            ir.LocalArrayStmt(self.dtype, size, f"ad_stack_{self.name}", per_thread=True),
            ir.AllocaStmt(i32, f"ad_stack_top_{self.name}"),
        ]
        self.array, self.top = made
        made.append(ir.LocalStoreStmt(self.top, ir.ConstStmt(0, i32)))
        made.insert(2, made[2].value)
        for k, stmt in enumerate(made):  # first in the task: before every use
            home.insert(k, stmt)

    def _slot(self, block: ir.Block, index: ir.Stmt, pos) -> ir.Stmt:
        wide = _add(block, ir.CastStmt(index, i64), pos)
        size = _add(block, ir.ConstStmt(self.dtype.size, i64), pos)
        offset = _add(block, ir.BinaryOpStmt("mul", wide, size, i64, no_wrap=True), pos)
        return _add(block, ir.PtrOffsetStmt(self.array, offset, self.dtype), pos)

    def push(self, block: ir.Block, local: ir.Stmt, pos) -> None:
        """Appends to ``block``: push the value of ``local`` (the copy of the alloca there)."""
        top = _add(block, ir.LocalLoadStmt(self.top), pos)
        room = _add(block, ir.ConstStmt(self.size, i32), pos)
        fits = _add(block, ir.BinaryOpStmt("lt", top, room, i32), pos)
        message = (
            f"{self.owner}: the autodiff stack of '{self.name}' is full "
            f"({self.size} entries: one per iteration of this loop)"
        )
        _add(block, ir.AssertStmt(fits, message, [], kind="assert"), pos)
        value = _add(block, ir.LocalLoadStmt(local), pos)
        _add(block, ir.GlobalStoreStmt(self._slot(block, top, pos), value), pos)
        one = _add(block, ir.ConstStmt(1, i32), pos)
        _add(
            block,
            ir.LocalStoreStmt(self.top, _add(block, ir.BinaryOpStmt("add", top, one, i32), pos)),
            pos,
        )

    def pop_into(self, block: ir.Block, local: ir.Stmt, pos) -> None:
        """Appends to ``block``: pop the last value pushed into ``local``."""
        top = _add(block, ir.LocalLoadStmt(self.top), pos)
        one = _add(block, ir.ConstStmt(1, i32), pos)
        below = _add(block, ir.BinaryOpStmt("sub", top, one, i32), pos)
        _add(block, ir.LocalStoreStmt(self.top, below), pos)
        value = _add(block, ir.GlobalLoadStmt(self._slot(block, below, pos)), pos)
        _add(block, ir.LocalStoreStmt(local, value), pos)


def _add(block: ir.Block, stmt: ir.Stmt, pos) -> ir.Stmt:
    stmt.pos = pos
    return block.append(stmt)
