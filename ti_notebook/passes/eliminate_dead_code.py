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
    """Every statement dead at the fixed point, removed at once. A worklist, not rounds:
    removing a statement lowers its operands' use counts and revisits only them (a round
    per link of a dead chain would walk the kernel once per link)."""
    uses = transform.use_counts(kernel.block)
    loads: dict[int, int] = {}  # alloca id -> local loads of it still alive
    stores: dict[int, list[ir.Stmt]] = {}  # alloca id -> its stores
    atomic_dests: set[int] = set()
    stmts = list(kernel.block.walk())
    for stmt in stmts:
        if isinstance(stmt, ir.LocalLoadStmt):
            loads[stmt.alloca.id] = loads.get(stmt.alloca.id, 0) + 1
        elif isinstance(stmt, ir.LocalStoreStmt):
            stores.setdefault(stmt.alloca.id, []).append(stmt)
        elif isinstance(stmt, ir.AtomicOpStmt):
            atomic_dests.add(stmt.dest.id)

    def is_dead(stmt: ir.Stmt) -> bool:
        if isinstance(stmt, _PURE):
            return uses[stmt.id] == 0
        if isinstance(stmt, ir.LocalStoreStmt):
            alloca = stmt.alloca.id
            return not loads.get(alloca) and alloca not in atomic_dests
        return isinstance(stmt, ir.AllocaStmt) and uses[stmt.id] == 0

    dead: dict[int, ir.Stmt] = {}
    work = stmts  # popped from the end: users before their operands
    while work:
        stmt = work.pop()
        if stmt.id in dead or stmt.parent is None or not is_dead(stmt):
            continue
        dead[stmt.id] = stmt
        for operand in stmt.operands():
            uses[operand.id] -= 1
            work.append(operand)
        if isinstance(stmt, ir.LocalLoadStmt):
            loads[stmt.alloca.id] -= 1
            if not loads[stmt.alloca.id]:
                work.extend(stores.get(stmt.alloca.id, ()))
    transform.remove_all(dead.values())
    return bool(dead)
