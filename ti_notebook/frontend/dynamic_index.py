"""Runtime indices into kernel vectors and matrices: ``v[i]``, ``m[i, j]``, ``m[i]``.

Taichi 1.7 lets a kernel index a local vector or matrix with any integer value, a loop
variable of a non-static loop included. A kernel vector is one scalar per component
(``frontend/vectors.py``), so a runtime index chooses among them: a read is a chain of
selects over the components it may name, a write stores into the chosen one (a select
per component for a local, a guarded store for a field element, so no other component
is written). Constant axes stay constant: ``m[i, 1]`` chooses among one column only.

An index outside the shape is an error like a field's: with bounds checks on (the
default, and ``debug=True``) the launch raises ``TiIndexError`` at the line, with the
index and the shape; a loop variable of a ``range`` whose constant bounds fit needs no
check. With ``check_bounds=False`` a read gives the first candidate and a write does
nothing.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def running_sums() -> ti.i32:
    ...     v = ti.Vector([1, 2, 3, 4])
    ...     for i in range(1, 4):
    ...         v[i] += v[i - 1]
    ...     m = ti.Matrix([[1, 2], [3, 4]])
    ...     k = v[3] % 2
    ...     return v[3] * 100 + m[k, 1] * 10 + m[1 - k][0]
    >>> running_sums()
    1023
"""

from __future__ import annotations

import ast
import dataclasses
import itertools

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.values import DynamicSlot, Slots, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types


@dataclasses.dataclass
class DynamicPositions:
    """Where a runtime index may point: per value of ``index`` (0, 1, ...), the
    row-major position of one component, or a matrix row's positions."""

    choices: list
    index: ir.Stmt


def is_runtime_index(value) -> bool:
    """Whether an index is known only when the kernel runs (not a constant)."""
    return isinstance(value, ir.Stmt) and not isinstance(value, ir.ConstStmt)


def dynamic_positions(
    ctx: TraceContext, shape: tuple[int, ...], index: tuple, node: ast.Subscript
) -> DynamicPositions:
    """The candidates of ``x[index]`` on a value of ``shape``, some axes runtime values
    (checked: integers, in range when bounds checks are on)."""
    b = ctx.builder
    row = len(shape) == 2 and len(index) == 1
    selector, axes = None, []
    for axis, (value, extent) in enumerate(zip(index, shape, strict=False)):
        if not is_runtime_index(value):
            axes.append([int(value)])
            continue
        if value.dtype is None or value.dtype.is_float:
            raise ctx.error(
                TiTypeError,
                node.slice,
                f"a vector/matrix index must be an integer, not {value.dtype}",
                "cast it: ti.cast(i, ti.i32)",
            )
        value = b.cast(value, types.i32)
        _check_in_range(ctx, value, extent, node, axis)
        scaled = value if selector is None else b.binary("mul", selector, extent)
        selector = scaled if selector is None else b.binary("add", scaled, value)
        axes.append(range(extent))
    strides = (shape[1], 1) if len(shape) == 2 else (1,)
    choices = []
    for position in itertools.product(*axes):
        flat = sum(p * stride for p, stride in zip(position, strides, strict=False))
        choices.append(list(range(flat, flat + shape[1])) if row else flat)
    return DynamicPositions(choices, selector)


def select_item(ctx: TraceContext, items: list, index: ir.Stmt):
    """``items[index]`` as a chain of selects (the first item when out of range)."""
    b = ctx.builder
    result = items[0]
    for k, item in enumerate(items[1:], start=1):
        result = b.select(b.binary("eq", index, k), item, result)
    return result


def read(ctx: TraceContext, value: Vector, found: DynamicPositions):
    """``v[i]`` of a vector value: a component, or a matrix row (a vector)."""
    items = value.items
    if found.choices and isinstance(found.choices[0], list):
        columns = zip(*found.choices, strict=True)
        return Vector([select_item(ctx, [items[k] for k in col], found.index) for col in columns])
    return select_item(ctx, [items[k] for k in found.choices], found.index)


def slots(slots: Slots, found: DynamicPositions):
    """The assignable place ``v[i]`` names in a vector target: one DynamicSlot, or a
    row's Slots of them."""
    items = slots.items
    if found.choices and isinstance(found.choices[0], list):
        columns = list(zip(*found.choices, strict=True))
        dynamic = [DynamicSlot([items[k] for k in col], found.index) for col in columns]
        return Slots(dynamic, (len(columns),))
    return DynamicSlot([items[k] for k in found.choices], found.index)


def load(ctx: TraceContext, slot: DynamicSlot, load_one):
    """The value in the chosen slot; ``load_one`` loads one candidate."""
    return select_item(ctx, [load_one(choice) for choice in slot.choices], slot.index)


def store(ctx: TraceContext, slot: DynamicSlot, value, store_one) -> None:
    """``slot = value`` into the chosen candidate only. A local takes a select per
    candidate (no branches; LLVM keeps the components in registers); a field element
    takes a guarded store, so no other component is written (another thread may own it)."""
    b = ctx.builder
    for k, choice in enumerate(slot.choices):
        chosen = b.binary("eq", slot.index, k)
        if isinstance(choice, ir.AllocaStmt):
            old = b.emit(ir.LocalLoadStmt(choice))
            store_one(choice, b.select(chosen, value, old))
            continue
        guard = b.emit(ir.IfStmt(chosen))
        with b.inside(guard.true_block):
            store_one(choice, value)


def update(ctx: TraceContext, slot: DynamicSlot, value, update_one, load_one):
    """An atomic update of the chosen candidate (each candidate behind its own guard);
    the old value, read before the update."""
    b = ctx.builder
    old = load(ctx, slot, load_one)
    for k, choice in enumerate(slot.choices):
        guard = b.emit(ir.IfStmt(b.binary("eq", slot.index, k)))
        with b.inside(guard.true_block):
            update_one(choice, value)
    return old


def _check_in_range(ctx: TraceContext, index: ir.Stmt, extent: int, node, axis: int) -> None:
    """A bounds check of one runtime index, unless it is a loop variable that stays in
    range (the common ``for k in range(3): v[k]``)."""
    if not (ctx.config.check_bounds or ctx.config.debug) or _loop_stays_in(index, extent):
        return
    b = ctx.builder
    wide = b.cast(index, types.i64)
    ok = b.binary(
        "logical_and", b.binary("ge", wide, b.const(0, types.i64)), b.binary("lt", wide, extent)
    )
    what = ast.unparse(node.value)
    message = f"index out of range for the vector/matrix '{what}' (axis {axis})"
    b.emit(ir.AssertStmt(ok, message, [wide, b.const(extent, types.i64)], kind="bounds"))


def _loop_stays_in(index: ir.Stmt, extent: int) -> bool:
    """``index`` is the variable of a ``range`` loop whose constant bounds lie in
    ``[0, extent]``."""
    if not isinstance(index, ir.LoopIndexStmt) or not isinstance(index.loop, ir.RangeForStmt):
        return False
    loop = index.loop
    if loop.extents or not all(isinstance(s, ir.ConstStmt) for s in (loop.begin, loop.end)):
        return False
    return loop.begin.value >= 0 and loop.end.value <= extent
