"""Thread-local reductions: ``s[None] += x[i]`` in a parallel loop without contention.

In a parallel task, an atomic add/sub/min/max into a 0-D field whose old value is not
used, and which is not read or written any other way in the task, accumulates into a
per-chunk local initialised to the operation's identity; the chunk's epilogue then does
one atomic. Add and sub may mix (sub adds the negation).

    s[None] += x[i]        →   prologue: acc = 0
                               body:     acc = acc + x[i]
                               epilogue: atomic_add(s[None], acc)
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.lang.config import Config

_REDUCIBLE = {"add", "sub", "min", "max"}


def _identity(op: str, dtype) -> float | int:
    if op in ("add", "sub"):
        return 0
    if dtype.is_float:
        return float("inf") if op == "min" else float("-inf")
    if dtype.is_signed:
        bound = 1 << (dtype.bits - 1)
        return bound - 1 if op == "min" else -bound
    return (1 << dtype.bits) - 1 if op == "min" else 0


def run(kernel: KernelIR, config: Config) -> bool:
    if not config.make_thread_local:
        return False
    changed = False
    for task in kernel.tasks():
        if task.kind == "serial":
            continue
        for field, atomics in _candidates(task).items():
            _rewrite(kernel, task, field, atomics)
            changed = True
    return changed


def _candidates(task: ir.OffloadedStmt) -> dict:
    """0-D fields whose every access in the task is a reducible atomic of one kind."""
    uses = transform.use_counts(task.body)
    by_field: dict = {}
    disqualified: set[int] = set()
    for stmt in task.body.walk():
        if not isinstance(stmt, ir.GlobalPtrStmt):
            continue
        field = stmt.field
        users = [s for s in task.body.walk() if stmt in s.operands()]
        ok = field.ndim == 0 and all(
            isinstance(u, ir.AtomicOpStmt)
            and u.dest is stmt
            and u.op in _REDUCIBLE
            and uses[u.id] == 0
            for u in users
        )
        if not ok:
            disqualified.add(id(field))
            continue
        by_field.setdefault(id(field), (field, []))[1].extend(users)
    found = {}
    for key, (field, atomics) in by_field.items():
        ops = {("add" if a.op == "sub" else a.op) for a in atomics}
        if key not in disqualified and atomics and len(ops) == 1:
            found[field] = atomics
    return found


def _rewrite(kernel: KernelIR, task: ir.OffloadedStmt, field, atomics) -> None:
    op = "add" if atomics[0].op in ("add", "sub") else atomics[0].op
    dtype = field.dtype
    acc = task.prologue.append(ir.AllocaStmt(dtype, f"tls_{field.name}"))
    init = task.prologue.append(ir.ConstStmt(_identity(op, dtype), dtype))
    task.prologue.append(ir.LocalStoreStmt(acc, init))
    for atomic in atomics:
        old = transform.insert_before(atomic, ir.LocalLoadStmt(acc))
        value = atomic.value
        binary = "sub" if atomic.op == "sub" else op
        new = transform.insert_before(atomic, ir.BinaryOpStmt(binary, old, value, dtype))
        store = ir.LocalStoreStmt(acc, new)
        for stmt in (old, new, store):
            stmt.pos = atomic.pos
        block = atomic.parent
        block.stmts[block.stmts.index(atomic)] = store
        store.parent = block
    ptr = task.epilogue.append(ir.GlobalPtrStmt(field, []))
    total = task.epilogue.append(ir.LocalLoadStmt(acc))
    task.epilogue.append(ir.AtomicOpStmt(op, ptr, total))
    kernel.report["thread_local"].append(
        {"destination": f"{field.name}[None]", "operation": op, "task": kernel.tasks().index(task)}
    )
