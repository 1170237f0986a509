"""Thread-local reductions: ``s[None] += x[i]`` in a parallel loop without contention.

In a parallel task, an atomic add/sub/min/max into one address whose old value is not
used, and which is not read or written any other way in the task, accumulates into a
per-chunk local initialised to the operation's identity; the chunk's epilogue then does
one atomic. Add and sub may mix (sub adds the negation). One address is a 0-D field, an
element of a dense field at constant indices (``p[1] += ...``; every access to that field
in the task is at constant indices, so none aliases another) or of an ndarray argument
(the only ndarray of its dtype and rank the task touches: two arguments may be one
array). Grad kernels rely on it: ``loss[None] += p[0] * x[i]`` makes its grad kernel
add into ``p.grad[0]`` from every iteration.

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
from ti_notebook.passes.demote_atomics import memory_key

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


def _constants(indices: list[ir.Stmt]) -> tuple | None:
    if all(isinstance(i, ir.ConstStmt) for i in indices):
        return tuple(i.value for i in indices)
    return None


def _dense(field) -> bool:
    # a sparse cell must not be activated by an epilogue that adds zero
    return all(node.kind in ("dense", "root") for node in field.path)


def _destination(ptr: ir.Stmt):
    """(key, description, dtype) of a reducible destination, else None."""
    if isinstance(ptr, ir.GlobalPtrStmt) and ptr.field.ndim == 0:
        return ("field", ptr.field, ()), f"{ptr.field.name}[None]", ptr.field.dtype
    if isinstance(ptr, ir.GlobalPtrStmt) and _dense(ptr.field):
        at = _constants(ptr.indices)
        if at is not None:
            return ("field", ptr.field, at), f"{ptr.field.name}{list(at)}", ptr.field.dtype
    if isinstance(ptr, ir.ExternalPtrStmt):
        at = _constants(ptr.indices)
        if at is not None:
            key = ("ndarray", ptr.arg_index, at)
            return key, f"arg{ptr.arg_index}{list(at)}", ptr.dtype
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
    groups: dict = {}  # what may alias (demote_atomics.memory_key) -> destinations in it
    for stmt in task.walk_all():
        target = _destination(stmt)
        readers = users.get(stmt.id, [])
        if not readers:
            # An unused pointer accesses nothing: ``v[None][0] += a`` also makes one
            # for ``v[None][1]``; it must not disqualify that component.
            continue
        alias = memory_key(stmt)
        if alias is not None:
            groups.setdefault(alias, set()).add(None if target is None else target[0][:2])
        if target is None:
            continue
        key, description, dtype = target
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
        # constant indices tell elements of one field (one ndarray) apart, nothing else
        # does: an access at a computed index, or to another ndarray, may be this one
        alias = memory_key(entry["ptr"])
        alone = alias is None or groups.get(alias) == {key[:2]}
        if key not in disqualified and len(ops) == 1 and alone:
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
    if isinstance(ptr, (ir.GlobalPtrStmt, ir.ExternalPtrStmt)):
        indices = [task.epilogue.append(ir.ConstStmt(i.value, i.dtype)) for i in ptr.indices]
        if isinstance(ptr, ir.GlobalPtrStmt):
            dest = task.epilogue.append(ir.GlobalPtrStmt(ptr.field, indices))
        else:
            made = ir.ExternalPtrStmt(ptr.arg_index, ptr.ndim, indices, ptr.dtype)
            dest = task.epilogue.append(made)
    else:
        dest = task.epilogue.append(ir.TempPtrStmt(ptr.offset, ptr.dtype))
    total = task.epilogue.append(ir.LocalLoadStmt(acc))
    task.epilogue.append(ir.AtomicOpStmt(op, dest, total))
    kernel.report["thread_local"].append(
        {"destination": entry["name"], "operation": op, "task": kernel.tasks().index(task)}
    )
