"""Demote atomics that no other iteration can race with to plain read-modify-writes.

``x[i, j] += 1.0`` in ``for i, j in ti.ndrange(M, N)`` is atomic by Taichi's rules, but
each iteration owns element ``[i, j]``: when every access to ``x`` in a parallel task
is indexed by exactly the task's own loop indices, no two iterations touch the same
element, so a load, an add and a store are enough (and LLVM can vectorise them). A
float atomic add is a compare-and-swap loop on x86, so this matters: Taichi has the
same pass (``demote_atomics``).

    for i in range(n): x[i] += y[i]    →    x[i] = x[i] + y[i]
    for i in range(n): x[i // 2] += 1  →    unchanged (two iterations share x[i // 2])
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    changed = False
    for task in kernel.tasks():
        if task.kind == "serial" or task.loop is None:
            continue
        owned = _fields_owned_by_iteration(task)
        for stmt in list(task.body.walk()):
            if (
                isinstance(stmt, ir.AtomicOpStmt)
                and isinstance(stmt.dest, ir.GlobalPtrStmt)
                and stmt.dest.field in owned
                and stmt.op in _PLAIN
            ):
                to_plain(stmt, task.body)
                kernel.report["demoted_atomics"].append(stmt.dest.field.name)
                changed = True
    return changed


_PLAIN = {"add", "sub", "min", "max", "bit_and", "bit_or", "bit_xor"}


def _loop_axes(task: ir.OffloadedStmt) -> int:
    if task.kind == "struct_for":
        return len(task.field.layout().shape)
    return max(len(task.extents), 1)


def _fields_owned_by_iteration(task: ir.OffloadedStmt) -> set:
    """Fields every access of which, in the task, uses exactly the loop's indices."""
    axes = _loop_axes(task)
    good, bad = set(), set()
    for stmt in task.body.walk():
        if isinstance(stmt, ir.GlobalPtrStmt):
            field = stmt.field
            if transform.indexes_own_cell(stmt, task.loop) and len(stmt.indices) == axes:
                good.add(field)
            else:
                bad.add(field)
    return good - bad


def to_plain(atomic: ir.AtomicOpStmt, root: ir.Block) -> None:
    """Replaces ``atomic`` by a load, the operation and a store (its value: the load)."""
    old = transform.insert_before(atomic, ir.GlobalLoadStmt(atomic.dest))
    new = transform.insert_before(
        atomic, ir.BinaryOpStmt(atomic.op, old, atomic.value, atomic.value.dtype)
    )
    store = ir.GlobalStoreStmt(atomic.dest, new)
    for stmt in (old, new, store):
        stmt.pos = atomic.pos
    block = atomic.parent
    block.stmts[block.stmts.index(atomic)] = store
    store.parent = block
    transform.replace_uses(root, atomic, old)
