"""Demote atomics that no other iteration can race with to plain read-modify-writes.

``x[i, j] += 1.0`` in ``for i, j in ti.ndrange(M, N)`` is atomic by Taichi's rules, but
each iteration owns element ``[i, j]``. A float atomic add is a compare-and-swap loop on
x86, so this matters: Taichi has the same pass (``demote_atomics``).

A parallel task *owns* a field's elements per iteration when some of the field's index
positions are *pinned*: in every access to the field in the task, position ``k`` holds
the same loop axis plus the same constant. When the pinned positions name every axis of
the parallel loop, two different iterations differ in some pinned position, so no
element is touched by two of them; the other positions may be anything (an inner serial
loop's index, a computed value). In a serial task nothing runs concurrently at all.

    for i in range(n): x[i] += y[i]                  →  x[i] = x[i] + y[i]
    for i in range(n): for j in range(m): a[i, j] += 1  →  plain (position 0 pinned to i)
    for i in range(n): x[i // 2] += 1                →  unchanged (iterations share x[i // 2])
    for i in range(n): z[i] += 1; z[i + 1] += 1      →  unchanged (offsets differ)

NumPy arrays passed as ndarray arguments may be the same array twice, so ndarrays of one
dtype and dimension count are judged together, as if they were one field.
``ti.init(advanced_optimization=False)`` keeps every atomic.
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.advanced_optimization:
        return False
    changed = False
    for task in kernel.tasks():
        serial = task.kind == "serial" or bool(task.config.get("serialize"))
        if not serial and task.loop is None:
            continue
        # a parallel task's prologue and epilogue run once per chunk, concurrently with
        # other chunks: they keep their atomics (thread-local sums are added back there)
        owned = None if serial else owned_memory(task)
        new_for: dict[int, ir.Stmt] = {}  # every atomic's uses rewritten in one walk
        for stmt in list(task.body.walk()):
            if not (isinstance(stmt, ir.AtomicOpStmt) and stmt.op in _PLAIN):
                continue
            key = memory_key(stmt.dest)
            if key is None or (owned is not None and key not in owned):
                continue
            to_plain(stmt, task.body, new_for)
            kernel.report["demoted_atomics"].append(_name(stmt.dest))
            changed = True
        transform.replace_all_uses(task.body, new_for)
    return changed


_PLAIN = {"add", "sub", "min", "max", "bit_and", "bit_or", "bit_xor"}


def memory_key(ptr: ir.Stmt) -> object | None:
    """What may alias ``ptr``: its field, or all ndarrays of its dtype and dimension count
    (the same NumPy array may be passed twice); None for anything else (locals, buffers)."""
    if isinstance(ptr, ir.GlobalPtrStmt):
        return ptr.field
    if isinstance(ptr, ir.ExternalPtrStmt):
        return ("ndarray", ptr.dtype, ptr.ndim)
    return None


def _name(ptr: ir.Stmt) -> str:
    if isinstance(ptr, ir.GlobalPtrStmt):
        return ptr.field.name
    return f"arg{ptr.arg_index}"


def _loop_axes(task: ir.OffloadedStmt) -> int:
    if task.kind == "struct_for":
        return len(task.field.layout().shape)
    return max(len(task.extents), 1)


def loop_axis_of(index: ir.Stmt, loop: ir.Stmt) -> tuple[int, object] | None:
    """``(axis, offset)`` when ``index`` is ``loop``'s index ``axis`` plus a constant."""
    if isinstance(index, ir.LoopIndexStmt):
        return (index.axis, 0) if index.loop is loop else None
    if isinstance(index, ir.BinaryOpStmt) and index.op in ("add", "sub"):
        lhs, rhs = index.lhs, index.rhs
        if isinstance(rhs, ir.ConstStmt) and (inner := loop_axis_of(lhs, loop)) is not None:
            step = rhs.value if index.op == "add" else -rhs.value
            return inner[0], inner[1] + step
        if (
            index.op == "add"
            and isinstance(lhs, ir.ConstStmt)
            and (inner := loop_axis_of(rhs, loop)) is not None
        ):
            return inner[0], inner[1] + lhs.value
    return None


def owned_memory(task: ir.OffloadedStmt) -> set:
    """Memory keys (see :func:`memory_key`) whose elements each iteration owns."""
    accesses: dict[object, list[list]] = {}
    for stmt in task.walk_all():
        key = memory_key(stmt)
        if key is not None:
            pins = [loop_axis_of(index, task.loop) for index in stmt.indices]
            accesses.setdefault(key, []).append(pins)
    axes = set(range(_loop_axes(task)))
    owned = set()
    for key, pin_lists in accesses.items():
        if len({len(pins) for pins in pin_lists}) != 1:
            continue
        pinned = set()
        for position, first in enumerate(pin_lists[0]):
            if first is not None and all(pins[position] == first for pins in pin_lists):
                pinned.add(first[0])
        if pinned >= axes:
            owned.add(key)
    return owned


def to_plain(
    atomic: ir.AtomicOpStmt, root: ir.Block, new_for: dict[int, ir.Stmt] | None = None
) -> None:
    """Replaces ``atomic`` by a load, the operation and a store (its value: the load).
    With ``new_for``, the uses of ``atomic`` under ``root`` are left for the caller to
    rewrite (``transform.replace_all_uses``): the load is recorded there."""
    old = transform.insert_before(atomic, ir.GlobalLoadStmt(atomic.dest))
    new = transform.insert_before(
        atomic, ir.BinaryOpStmt(atomic.op, old, atomic.value, atomic.value.dtype)
    )
    store = ir.GlobalStoreStmt(atomic.dest, new)
    for stmt in (old, new, store):
        stmt.pos = atomic.pos
    transform.replace_stmt(atomic, store)
    if new_for is not None:
        new_for[atomic.id] = old
    else:
        transform.replace_uses(root, atomic, old)
