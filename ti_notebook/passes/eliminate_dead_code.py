"""Remove statements whose values nobody reads and that have no effect.

Also removes locals that are only ever written. Runs to a fixed point.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import i32
    >>> k = KernelIR("f", ir.Block())
    >>> _ = k.block.append(ir.ConstStmt(1, i32))
    >>> run(k, None, None), k.block.stmts
    (True, [])
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

_PURE = (
    ir.ConstStmt,
    ir.ArgLoadStmt,
    ir.ExternalShapeStmt,
    ir.BinaryOpStmt,
    ir.UnaryOpStmt,
    ir.CastStmt,
    ir.SelectStmt,
    ir.LoopIndexStmt,
    ir.LoopLinearIndexStmt,
    ir.RowStartStmt,
    ir.RowOffsetStmt,
    ir.LocalLoadStmt,
    ir.GlobalPtrStmt,
    ir.ExternalPtrStmt,
    ir.RootPtrStmt,
    ir.TempPtrStmt,
    ir.PtrOffsetStmt,
    ir.GlobalLoadStmt,
)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    changed_any = _remove_dead_statements(kernel)
    return _drop_empty_serial_tasks(kernel) or changed_any


def _drop_empty_serial_tasks(kernel: KernelIR) -> bool:
    """A serial task left with nothing to do (its statements moved or died) goes, and
    the report's task numbers follow."""
    old = kernel.tasks()
    empty = [t for t in old if t.kind == "serial" and not t.body.stmts]
    if not empty or len(empty) == len(kernel.block.stmts):
        return False
    kernel.block.stmts = [s for s in kernel.block.stmts if s not in empty]
    renumber = {old.index(t): k for k, t in enumerate(kernel.tasks())}
    if len(kernel.report.get("tasks", [])) == len(old):
        kernel.report["tasks"] = [
            e for t, e in zip(old, kernel.report["tasks"], strict=True) if t not in empty
        ]
    for key in ("thread_local", "privatized"):
        for entry in kernel.report.get(key, []):
            if entry.get("task") in renumber:
                entry["task"] = renumber[entry["task"]]
    return True


def _remove_dead_statements(kernel: KernelIR) -> bool:
    changed_any = False
    while True:
        uses = transform.use_counts(kernel.block)
        loaded = {s.alloca.id for s in kernel.block.walk() if isinstance(s, ir.LocalLoadStmt)}
        atomic_dests = {s.dest.id for s in kernel.block.walk() if isinstance(s, ir.AtomicOpStmt)}
        dead = []
        for stmt in kernel.block.walk():
            if isinstance(stmt, _PURE) and uses[stmt.id] == 0:
                dead.append(stmt)
            elif isinstance(stmt, ir.LocalStoreStmt) and stmt.alloca.id not in loaded:
                if stmt.alloca.id not in atomic_dests:
                    dead.append(stmt)
            elif isinstance(stmt, ir.AllocaStmt) and uses[stmt.id] == 0:
                dead.append(stmt)
        if not dead:
            return changed_any
        transform.remove_all(dead)
        changed_any = True
