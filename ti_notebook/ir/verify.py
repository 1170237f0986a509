"""The IR's invariants, checked: what every pass may assume and must leave true.

- each statement sits in one block, once, and its ``parent`` is that block; each child
  block's ``owner`` is the statement holding it;
- each operand is a statement defined before its use, in a position that dominates it:
  earlier in the same block or in an enclosing one (a task's prologue dominates its body
  and epilogue, and holds the copies of its ndrange ``extents`` and ``starts``, and of
  its ``begin`` and ``end`` where tasks are kernels (``passes/spill_between_tasks.py``);
  the serial code of a task runs before every later task);
- each operand has a type (but the byte pointers of a tree's root, a block-local buffer
  and a scratch allocation, whose users type the addresses made from them);
- ``break`` and ``continue`` sit inside a loop;
- a lowered struct-for (a row loop, ``passes/lower_struct_for.py``) has a row width; what
  its ``row_head`` defines its ``body`` may use, and ``SkipRows`` sits in the row head of
  the loop it names.

``ti.init(debug=True)`` runs :func:`verify` after every pass (``passes/pipeline.py``), so
a pass that breaks the IR is named at once instead of surfacing as wrong code.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import i32
    >>> b = ir.Block()
    >>> one = ir.ConstStmt(1, i32)
    >>> _ = b.append(ir.BinaryOpStmt("add", one, one, i32))  # ``one`` is in no block
    >>> verify(b, "example")
    Traceback (most recent call last):
      ...
    ti_notebook.errors.TiInternalError: after example: ... which is not defined before it
    hint: this is a ti_notebook bug; please report it with this kernel
"""

from __future__ import annotations

from ti_notebook.errors import TiInternalError
from ti_notebook.ir import nodes as ir

_LOOPS = (ir.RangeForStmt, ir.StructForStmt, ir.WhileStmt)
_BYTE_POINTERS = (ir.RootPtrStmt, ir.BlockLocalStmt, ir.ScratchAllocStmt)
# a task's operands that its prologue computes (begin and end: where tasks are kernels)
_INSIDE_TASK = ("begin", "end", "extents", "starts")


def verify(block: ir.Block, after: str) -> None:
    """Raises :class:`TiInternalError` naming ``after`` (a pass) if an invariant fails."""
    _Checker(after).block(block, frozenset(), in_loop=False)


class _Checker:
    def __init__(self, after: str) -> None:
        self.after = after
        self.seen: set[int] = set()

    def fail(self, stmt: ir.Stmt, problem: str) -> None:
        raise TiInternalError(
            f"after {self.after}: {stmt!r} ({type(stmt).__name__.removesuffix('Stmt')}) {problem}",
            stmt.pos,
            hint="this is a ti_notebook bug; please report it with this kernel",
        )

    def block(self, block: ir.Block, visible: frozenset, in_loop: bool) -> set[int]:
        """Checks ``block``; returns the ids it defines at its own level."""
        defined: set[int] = set()
        for stmt in block.stmts:
            if stmt.id in self.seen:
                self.fail(stmt, "appears twice in the IR")
            self.seen.add(stmt.id)
            if stmt.parent is not block:
                self.fail(stmt, "has a parent that is not the block holding it")
            here = visible | defined
            inside = _INSIDE_TASK if isinstance(stmt, ir.OffloadedStmt) else ()
            self.operands(stmt, here, [n for n in stmt.operand_names if n not in inside])
            if isinstance(stmt, (ir.BreakStmt, ir.ContinueStmt)) and not in_loop:
                self.fail(stmt, "is not inside a loop")
            if isinstance(stmt, ir.SkipRowsStmt) and not _in_row_head_of(stmt):
                self.fail(stmt, "is not in the row head of the loop it names")
            defined |= self.children(stmt, here, in_loop)
            defined.add(stmt.id)
        return defined

    def operands(self, stmt: ir.Stmt, here: frozenset, names: list[str]) -> None:
        for name in names:
            value = getattr(stmt, name)
            for operand in value if isinstance(value, list) else [value]:
                if not isinstance(operand, ir.Stmt):
                    continue  # a constant bound, or nothing
                if operand.id not in here:
                    self.fail(stmt, f"uses {operand!r}, which is not defined before it")
                if operand.dtype is None and not isinstance(operand, _BYTE_POINTERS):
                    self.fail(stmt, f"uses {operand!r}, which has no type")

    def children(self, stmt: ir.Stmt, visible: frozenset, in_loop: bool) -> set[int]:
        """Checks the blocks ``stmt`` owns; returns what stays visible after ``stmt``."""
        for child in stmt.blocks():
            if child.owner is not stmt:
                self.fail(stmt, "owns a block whose owner is another statement")
        if isinstance(stmt, ir.OffloadedStmt):
            loop = in_loop or stmt.kind != "serial"
            prologue = self.block(stmt.prologue, visible, loop)
            self.operands(stmt, visible | prologue, list(_INSIDE_TASK))
            head = self.row_head(stmt, visible | prologue, loop)
            body = self.block(stmt.body, visible | prologue | head, loop)
            self.block(stmt.epilogue, visible | prologue, loop)
            # serial tasks run inline, in order: what they define, later tasks may use
            return body if stmt.kind == "serial" else set()
        loop = in_loop or isinstance(stmt, _LOOPS)
        if isinstance(stmt, ir.StructForStmt):
            head = self.row_head(stmt, visible, loop)
            self.block(stmt.body, visible | head, loop)
            return set()
        for child in stmt.blocks():
            self.block(child, visible, loop)
        return set()

    def row_head(self, stmt: ir.Stmt, visible: frozenset, in_loop: bool) -> frozenset:
        """Checks a row loop's head; returns what it defines (its body sees it)."""
        if stmt.row_head.stmts and not stmt.row_width:
            self.fail(stmt, "has a row head but no row width")
        return frozenset(self.block(stmt.row_head, visible, in_loop))


def _in_row_head_of(skip: ir.SkipRowsStmt) -> bool:
    block = skip.parent
    while block is not None and block.owner is not None:
        owner = block.owner
        if block is getattr(owner, "row_head", None):
            return skip.loop is (owner.loop if isinstance(owner, ir.OffloadedStmt) else owner)
        block = owner.parent
    return False
