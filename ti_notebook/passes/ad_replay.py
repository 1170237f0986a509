"""The forward sweep of a grad kernel: the primal code again, changing no primal data.

A grad kernel recomputes the values its adjoints need (``make_adjoint.py``): per
top-level loop, the loop body's statements are copied with global stores and atomics
on fields left out (Taichi's rule: the grad kernel writes gradients only), and printing
dropped. When ``record`` is set, each serial loop pushes the locals it changes at the
start of every iteration, for its reversed copy to pop (``ad_stack.py``).

The adjoint of an ``if`` is an ``if`` of its own, after the whole forward sweep, so the
values the forward copy computed inside its branches do not reach it: each is kept in
a local made before the outermost ``if`` (a *spill*, ``Env`` key ``("spill", id)``), and
the adjoint's branch reads them back (:func:`spilled_values`). LLVM turns those locals
back into registers.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import f32
    >>> from ti_notebook.passes.ad_clone import Env
    >>> loop = ir.RangeForStmt(ir.ConstStmt(0, f32), ir.ConstStmt(4, f32))
    >>> p = loop.body.append(ir.AllocaStmt(f32, "p"))
    >>> inner = loop.body.append(ir.RangeForStmt(loop.begin, loop.end))
    >>> _ = inner.body.append(ir.LocalStoreStmt(p, loop.begin))
    >>> [local.name for local in Replay(KernelIR("k", ir.Block())).carried(inner)]
    ['p']
"""

from __future__ import annotations

from ti_notebook.errors import TiSyntaxError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.transform import contains
from ti_notebook.passes.ad_clone import Env, Unavailable, clone, renamed

_TOP_LOOPS = (ir.RangeForStmt, ir.StructForStmt)
# values an adjoint may read: kept across the forward and the adjoint ``if``
_SPILLED = (
    ir.ConstStmt,
    ir.BinaryOpStmt,
    ir.UnaryOpStmt,
    ir.CastStmt,
    ir.SelectStmt,
    ir.LocalLoadStmt,
    ir.GlobalLoadStmt,
    ir.LoopIndexStmt,
    ir.ExternalShapeStmt,
    ir.SNodeOpStmt,
)


class Replay:
    """Copies statements for the forward sweep; ``home`` makes the stacks (or None)."""

    def __init__(self, kernel: KernelIR) -> None:
        self.kernel = kernel
        self.home = None
        self._carried: dict[int, list] = {}
        self._spill_at: ir.IfStmt | None = None  # the outermost forward ``if`` copied now

    def block(
        self, block: ir.Block, env: Env, out: ir.Block, record: bool, top_level: bool = False
    ) -> None:
        for stmt in block.stmts:
            if top_level and isinstance(stmt, _TOP_LOOPS):
                continue  # its forward code runs inside its own grad loop
            self.stmt(stmt, env, out, record)

    def stmt(self, stmt: ir.Stmt, env: Env, out: ir.Block, record: bool) -> None:
        if isinstance(stmt, ir.GlobalStoreStmt):
            return
        if isinstance(stmt, ir.AtomicOpStmt) and not isinstance(stmt.dest, ir.AllocaStmt):
            env[stmt.id] = Unavailable(
                f"kernel '{self.kernel.name}': the old value an atomic returns is not "
                "available in its grad kernel",
                "read the field in a kernel of its own instead of using the atomic's result",
            )
            return
        if isinstance(stmt, (ir.PrintStmt, ir.ClockStmt)):
            return
        if isinstance(stmt, ir.RandStmt):
            raise self.refuse(
                stmt,
                "ti.random in a kernel that is differentiated: its grad kernel would draw "
                "other numbers than the kernel did",
                "draw the numbers in a kernel of their own into a field, outside the Tape, "
                "and read the field here",
            )
        if isinstance(stmt, (ir.BreakStmt, ir.ContinueStmt)):
            word = "break" if isinstance(stmt, ir.BreakStmt) else "continue"
            raise self.refuse(
                stmt,
                f"'{word}' in a kernel that is differentiated: the grad kernel cannot "
                "run the loop backwards from where it stopped",
                "loop over a fixed range and guard the body with an if instead",
            )
        if isinstance(stmt, ir.WhileStmt):
            raise self.refuse(
                stmt,
                "a while loop in a kernel that is differentiated",
                "use a for loop over a fixed range (with an if for the condition)",
            )
        if isinstance(stmt, ir.LoopIndexStmt) and ("index", stmt.loop.id) in env:
            env[stmt.id] = env[("index", stmt.loop.id)][stmt.axis]
            return
        if isinstance(stmt, ir.IfStmt):
            made = _at(ir.IfStmt(renamed(stmt.cond, env, stmt.pos)), stmt)
            out.append(made)
            outermost = self._spill_at is None
            if outermost:
                self._spill_at = made
            try:
                self.block(stmt.true_block, env, made.true_block, record)
                self.block(stmt.false_block, env, made.false_block, record)
            finally:
                if outermost:
                    self._spill_at = None
            return
        if isinstance(stmt, ir.RangeForStmt):
            # a loop's body is copied again where its adjoint runs: no spills from it
            spill_at, self._spill_at = self._spill_at, None
            try:
                self.loop(stmt, env, out, record)
            finally:
                self._spill_at = spill_at
            return
        if isinstance(stmt, ir.StructForStmt):
            raise self.refuse(
                stmt,
                "a struct-for inside a loop of a kernel that is differentiated",
                "loop over range(n) or ti.ndrange instead",
            )
        made = out.append(clone(stmt, env))
        if self._spill_at is not None and isinstance(stmt, _SPILLED) and stmt.dtype is not None:
            self._spill(stmt, made, env, out)

    def _spill(self, stmt: ir.Stmt, made: ir.Stmt, env: Env, out: ir.Block) -> None:
        """Keeps ``made`` (the copy of ``stmt`` inside a forward ``if``) in a local made
        before the outermost ``if``, for the adjoint's ``if`` to read back."""
        anchor = self._spill_at
        local = _at(ir.AllocaStmt(made.dtype, "spill"), stmt)
        anchor.parent.insert(anchor.parent.index(anchor), local)
        out.append(_at(ir.LocalStoreStmt(local, made), stmt))
        env[("spill", stmt.id)] = local

    def loop(self, stmt: ir.RangeForStmt, env: Env, out: ir.Block, record: bool) -> None:
        made = ir.RangeForStmt(
            renamed(stmt.begin, env, stmt.pos),
            renamed(stmt.end, env, stmt.pos),
            stmt.config,
            renamed(stmt.extents, env, stmt.pos),
            renamed(stmt.starts, env, stmt.pos),
        )
        out.append(_at(made, stmt))
        inner = env.child()
        inner[stmt.id] = made
        if record:
            for local in self.carried(stmt):
                self.home.stack(local).push(made.body, renamed(local, env), stmt.pos)
        self.block(stmt.body, inner, made.body, record=False)

    def carried(self, loop: ir.Stmt) -> list[ir.Stmt]:
        """The locals declared outside ``loop`` that its body changes."""
        found = self._carried.get(loop.id)
        if found is None:
            seen = {}
            for stmt in loop.walk_all():
                target = (
                    getattr(stmt, "alloca", None) if isinstance(stmt, ir.LocalStoreStmt) else None
                )
                if isinstance(stmt, ir.AtomicOpStmt) and isinstance(stmt.dest, ir.AllocaStmt):
                    target = stmt.dest
                if target is not None and not contains(loop, target):
                    seen[target.id] = target
            found = self._carried[loop.id] = [seen[k] for k in sorted(seen)]
        return found

    def refuse(self, stmt: ir.Stmt, what: str, hint: str) -> TiSyntaxError:
        return TiSyntaxError(f"kernel '{self.kernel.name}': {what}", stmt.pos, hint)


def _at(stmt: ir.Stmt, where: ir.Stmt) -> ir.Stmt:
    stmt.pos = where.pos
    return stmt


def spilled_values(block: ir.Block, env: Env, out: ir.Block) -> Env:
    """A scope of ``env`` where the values computed directly in ``block`` (a branch of an
    original ``if``) are loads, emitted into ``out``, of the locals their forward copies
    were kept in (those of the ifs inside are read where their adjoints run)."""
    inner = env.child()
    for stmt in block.stmts:
        local = env.get(("spill", stmt.id))
        if local is not None:
            inner[stmt.id] = out.append(_at(ir.LocalLoadStmt(local), stmt))
    return inner
