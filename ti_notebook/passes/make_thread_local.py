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
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

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


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.make_thread_local:
        return False
    changed = False
    for task in kernel.tasks():
        if task.kind == "serial":
            continue
        for entry in _candidates(task).values():
            _rewrite(kernel, task, entry)
            changed = True
    return changed


def _destination(ptr: ir.Stmt):
    """(key, description, dtype) of a reducible destination, else None."""
    if isinstance(ptr, ir.GlobalPtrStmt) and ptr.field.ndim == 0:
        return ("field", ptr.field), f"{ptr.field.name}[None]", ptr.field.dtype
    if isinstance(ptr, ir.TempPtrStmt):
        # A kernel-scope local that the loop accumulates into and code after it reads.
        return ("temp", ptr.offset), f"local at temp +{ptr.offset}", ptr.dtype
    return None


def _candidates(task: ir.OffloadedStmt) -> dict:
    """Destinations whose every access in the task is a reducible atomic of one kind."""
    uses = transform.use_counts(task.body)
    users = transform.users_of(task.walk_all())
    found: dict = {}
    disqualified: set = set()
    for stmt in task.walk_all():
        target = _destination(stmt)
        if target is None:
            continue
        key, description, dtype = target
        readers = users.get(stmt.id, [])
        if not readers:
            # An unused pointer accesses nothing: ``v[None][0] += a`` also makes one
            # for ``v[None][1]``; it must not disqualify that component.
            continue
        ok = all(
            isinstance(u, ir.AtomicOpStmt)
            and u.dest is stmt
            and u.op in _REDUCIBLE
            and uses[u.id] == 0
            and transform.contains(task, u)
            and u.parent is not task.prologue
            and u.parent is not task.epilogue
            for u in readers
        )
        if not ok:
            disqualified.add(key)
            continue
        entry = found.setdefault(key, {"ptr": stmt, "name": description, "atomics": []})
        entry["dtype"] = dtype
        entry["atomics"].extend(readers)
    result = {}
    for key, entry in found.items():
        ops = {("add" if a.op == "sub" else a.op) for a in entry["atomics"]}
        if key not in disqualified and len(ops) == 1:
            result[key] = entry
    return result


def _rewrite(kernel: KernelIR, task: ir.OffloadedStmt, entry: dict) -> None:
    atomics = entry["atomics"]
    op = "add" if atomics[0].op in ("add", "sub") else atomics[0].op
    dtype = entry["dtype"]
    acc = task.prologue.append(ir.AllocaStmt(dtype, "tls_acc"))
    init = task.prologue.append(ir.ConstStmt(_identity(op, dtype), dtype))
    task.prologue.append(ir.LocalStoreStmt(acc, init))
    for atomic in atomics:
        old = transform.insert_before(atomic, ir.LocalLoadStmt(acc))
        binary = "sub" if atomic.op == "sub" else op
        new = transform.insert_before(atomic, ir.BinaryOpStmt(binary, old, atomic.value, dtype))
        store = ir.LocalStoreStmt(acc, new)
        for stmt in (old, new, store):
            stmt.pos = atomic.pos
        block = atomic.parent
        block.stmts[block.stmts.index(atomic)] = store
        store.parent = block
    ptr = entry["ptr"]
    if isinstance(ptr, ir.GlobalPtrStmt):
        dest = task.epilogue.append(ir.GlobalPtrStmt(ptr.field, []))
    else:
        dest = task.epilogue.append(ir.TempPtrStmt(ptr.offset, ptr.dtype))
    total = task.epilogue.append(ir.LocalLoadStmt(acc))
    task.epilogue.append(ir.AtomicOpStmt(op, dest, total))
    kernel.report["thread_local"].append(
        {"destination": entry["name"], "operation": op, "task": kernel.tasks().index(task)}
    )
