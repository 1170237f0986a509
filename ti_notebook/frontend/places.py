"""Places a kernel reads and writes: locals, field elements, their components.

An assignment target becomes an *lvalue*: one alloca (a scalar local), one pointer (a
field's or an ndarray's element), or :class:`~ti_notebook.frontend.values.Slots` (the
components of a local vector or of a vector field's element, row-major). ``load``,
``store`` and ``atomic_update`` work on any of them, so ``v[i].y = 1``, ``d[1] += 2``
and ``ti.atomic_add(m[i][0, 1], 3)`` need no special case. A store casts to the
place's type; a float stored into an integer local warns, as Taichi does.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector.field(3, ti.i32, shape=4)
    >>> @ti.kernel
    ... def poke() -> ti.i32:
    ...     v[2].y = 7
    ...     v[2][2] += 5
    ...     d = v[2]
    ...     d[0] = 1
    ...     return d[0] + v[2].y + v[2][2]
    >>> poke()
    13
"""

from __future__ import annotations

import ast
import contextlib

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import dynamic_index, local_sequences, precision
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import MISSING, TraceContext
from ti_notebook.frontend.dynamic_index import DynamicPositions
from ti_notebook.frontend.local_sequences import LocalSequence
from ti_notebook.frontend.local_sequences import PythonItem as _PythonItem
from ti_notebook.frontend.operands import as_vector, check_scalar
from ti_notebook.frontend.pointers import (
    index_values,
    is_matrix_field,
    is_matrix_ndarray,
    ndarray_element_slots,
    subscript_pointer,
)
from ti_notebook.frontend.struct_values import (
    StructSlots,
    StructValue,
    convert,
    field_slots,
    is_struct,
    kind_of,
    local_slots,
    unknown_member,
)
from ti_notebook.frontend.values import (
    ComponentPointers,
    DynamicSlot,
    LoopIndex,
    Slots,
    Vector,
    VectorVariable,
)
from ti_notebook.frontend.vectors import (
    COMPONENTS,
    SWIZZLE_GROUPS,
    Selection,
    element_positions,
)
from ti_notebook.ir import nodes as ir
from ti_notebook.lang.struct_field import StructField


def declare(ctx: TraceContext, name: str, value) -> None:
    """A new local ``name`` holding ``value`` (a compile-time alias for non-numbers; a
    list or tuple whose items the function assigns holds each item in a local)."""
    if isinstance(value, (list, tuple)) and local_sequences.items_assigned(ctx, name):
        ctx.bind(name, local_sequences.make(ctx, name, value, _variable))
    else:
        ctx.bind(name, _variable(ctx, name, value))


def _variable(ctx: TraceContext, name: str, value):
    """A fresh local holding ``value``, or ``value`` itself where it is not a number."""
    b = ctx.builder
    if is_struct(value):  # a copy in a local of its type: q.mass = 2 changes q only
        value = load(ctx, value) if isinstance(value, StructSlots) else value
        slots = local_slots(ctx, name, value.type)
        store(ctx, slots, value, None)
        return slots
    if isinstance(value, Vector):
        allocas = []
        for item in value:
            alloca = b.emit(ir.AllocaStmt(b.value(item).dtype, name))
            b.emit(ir.LocalStoreStmt(alloca, b.value(item)))
            allocas.append(alloca)
        return VectorVariable(allocas, value.shape)
    if isinstance(value, ir.Stmt) or is_constant(value):
        value = b.value(value)
        alloca = b.emit(ir.AllocaStmt(value.dtype, name))
        b.emit(ir.LocalStoreStmt(alloca, value))
        return alloca
    return value  # fields, ndarrays, funcs, tuples...: a compile-time alias


def read(ctx: TraceContext, value):
    """A binding's current value: locals are loaded, everything else passes."""
    b = ctx.builder
    if isinstance(value, ir.AllocaStmt):
        return b.emit(ir.LocalLoadStmt(value))
    if isinstance(value, VectorVariable):
        return Vector([b.emit(ir.LocalLoadStmt(a)) for a in value.allocas], value.shape)
    if isinstance(value, LoopIndex):
        return value.stmt
    if isinstance(value, StructSlots):
        return load(ctx, value)
    if isinstance(value, LocalSequence):  # the items' current values
        return value.kind(read(ctx, item) for item in value.items)
    return value


def lvalue(ctx: TraceContext, node: ast.expr):
    """What an assignment target names: one pointer or alloca, or a vector's Slots.

    None for a name that is not a local variable (assignments report those).
    """
    place = _place(ctx, node)
    if isinstance(place, LocalSequence):
        what = "list" if place.kind is list else "tuple"
        raise ctx.error(
            TiSyntaxError,
            node,
            f"cannot assign to '{ast.unparse(node)}' as a whole: it is a {what} of locals",
            f"assign its items one by one: {ast.unparse(node)}[0] = ...",
        )
    return place


def _place(ctx: TraceContext, node: ast.expr):
    """:func:`lvalue`, where a list or tuple of locals may be the place too (the inner
    part of ``v[1] = ...``)."""
    if isinstance(node, ast.Name):
        local = ctx.find_local(node.id)
        if isinstance(local, VectorVariable):
            return Slots(local.allocas, local.shape)
        return local if isinstance(local, ir.AllocaStmt | StructSlots | LocalSequence) else None
    if not isinstance(node, (ast.Subscript, ast.Attribute)):
        raise ctx.unsupported(node, f"assigning to '{ast.unparse(node)}'")
    inner = _inner_place(ctx, node.value)
    if isinstance(inner, LocalSequence):
        if isinstance(node, ast.Attribute):
            raise _attribute_target_error(ctx, node)
        return local_sequences.place(ctx, inner, node)
    if isinstance(node, ast.Attribute):
        if isinstance(inner, StructSlots):  # q.mass, s[i].pos, s[i].inner.mass
            return _member_slot(ctx, inner, node)
        if not isinstance(inner, Slots):
            raise _attribute_target_error(ctx, node)
        return _component_slot(ctx, inner, node)
    if isinstance(inner, Slots):  # d[1], v[i][k], m[i][r, c], M[r]
        return _select_slots(ctx, inner, node)
    if isinstance(inner, StructSlots):
        raise ctx.error(
            TiTypeError,
            node,
            f"'{ast.unparse(node.value)}' is a struct and cannot be indexed",
            "name its member instead: p.member",
        )
    if inner is not None:
        raise ctx.error(
            TiTypeError,
            node.value,
            f"'{ast.unparse(node.value)}' is a scalar and cannot be indexed",
            "only vectors, matrices, fields and ndarrays take [index]",
        )
    base = ctx.expr(node.value)
    if isinstance(base, (tuple, list)):  # fields[k] of fields[k][i]: an item, not a place
        hint = "assign to an element of a field it holds instead: fields[k][i] = ..."
        local = isinstance(node.value, ast.Name) and ctx.find_local(node.value.id) is not MISSING
        if local and all(isinstance(v, ir.Stmt | Vector) or is_constant(v) for v in base):
            # a list made elsewhere (a caller's, given to a template parameter) is values
            hint = (
                "a list's items can be assigned where the list is made (v = [a, b] in this "
                "kernel or ti.func); to change it in a ti.func, pass a ti.Vector instead"
            )
        raise _PythonItem(
            f"cannot assign to '{ast.unparse(node)}': '{ast.unparse(node.value)}' is a "
            "Python sequence, read while compiling",
            ctx.pos(node),
            hint,
        )
    indices = index_values(ctx, node.slice)
    if is_matrix_ndarray(base):
        return ndarray_element_slots(ctx, base, indices, node)
    if is_matrix_field(base):
        components = base.components
        pointers = ComponentPointers(
            lambda k: subscript_pointer(ctx, components[k], indices, node), len(components)
        )
        return Slots(pointers, base.element_shape)
    if isinstance(base, StructField):
        return struct_element(ctx, base, indices, node)
    return subscript_pointer(ctx, base, indices, node)


def struct_element(ctx: TraceContext, field: StructField, indices: list, node) -> StructSlots:
    """``s[i, j]`` of a struct field: its members' places, each made on first use."""
    if len(indices) != field.ndim:  # one check for every member, at the subscript
        subscript_pointer(ctx, field.components[0], indices, node)
    return field_slots(
        ctx, field, indices, node, lambda f: subscript_pointer(ctx, f, indices, node)
    )


def _inner_place(ctx: TraceContext, node: ast.expr):
    """The place an assignment target's inner part names (``v[i]`` of ``v[i].y``,
    ``s[i].pos`` of ``s[i].pos.x``), or None where it names none (``self.x`` of
    ``self.x[i]``, ``self.levels[0]`` of ``self.levels[0][i]``: the target indexes the
    value instead)."""
    if isinstance(node, ast.Subscript):
        try:
            return _place(ctx, node)
        except _PythonItem:
            return None
    if isinstance(node, ast.Name):
        return _place(ctx, node)
    if isinstance(node, ast.Attribute):
        inner = _inner_place(ctx, node.value)
        if isinstance(inner, StructSlots):
            return _member_slot(ctx, inner, node)
    return None


def _member_slot(ctx: TraceContext, slots: StructSlots, node: ast.Attribute):
    if node.attr not in slots.type.members:
        raise unknown_member(ctx, slots.type, node.attr, node)
    return slots.slot(node.attr)


def _attribute_target_error(ctx: TraceContext, node: ast.Attribute) -> TiError:
    """``obj.attr = ...`` where ``obj`` is not a vector: a Python object's attribute
    (``self.n`` of a data-oriented class) says that kernels only read those."""
    target, base = ast.unparse(node), ast.unparse(node.value)
    value = None
    if isinstance(node.value, ast.Name | ast.Attribute):
        with contextlib.suppress(TiError):
            value = ctx.expr(node.value)
    if value is not None and not isinstance(value, ir.Stmt | Vector):
        return ctx.error(
            TiSyntaxError,
            node,
            f"cannot assign to '{target}': it is a Python attribute, read while compiling",
            "a kernel cannot change Python values: keep the value in a field "
            "(ti.field(...)), or assign it in Python before calling the kernel",
        )
    return ctx.error(
        TiSyntaxError,
        node,
        f"cannot assign to '{target}': '{base}' is not a vector",
        "only the .x/.y/.z/.w components of a local vector or of a vector "
        "field's element can be assigned",
    )


def _select_slots(ctx: TraceContext, slots: Slots, node: ast.Subscript):
    """``target[...] = ...`` on a vector/matrix target: one slot, or a row's Slots."""
    found = element_positions(ctx, slots.shape, node)
    if isinstance(found, DynamicPositions):  # v[i] with i known when the kernel runs
        return dynamic_index.slots(slots, found)
    if isinstance(found, Selection):
        return Slots([slots.items[k] for k in found.positions], found.shape)
    return slots.items[found]


def _component_slot(ctx: TraceContext, slots: Slots, node: ast.Attribute):
    """``target.x = ...``: the slot of component x/y/z/w of a vector target;
    ``target.rgb = ...`` (a swizzle of one letter group, no letter twice): those slots."""
    pattern = node.attr
    ks = [COMPONENTS.get(ch) for ch in pattern]
    group = next((g for g in SWIZZLE_GROUPS if set(pattern) <= set(g)), None)
    if None in ks or group is None or len(slots.shape) != 1 or len(ks) > 4:
        raise ctx.error(
            TiSyntaxError,
            node,
            f"cannot assign to '.{pattern}' of a vector/matrix",
            "only a vector's components can be assigned by name (.x, .rgb, .zw...)",
        )
    if len(set(ks)) != len(ks):
        raise ctx.error(
            TiSyntaxError,
            node,
            f"cannot assign to '.{pattern}': it names a component twice",
            "assign each component once",
        )
    if max(ks) >= slots.shape[0]:
        raise ctx.error(TiSyntaxError, node, f"a {slots.shape[0]}-vector has no .{pattern}")
    if len(ks) == 1:
        return slots.items[ks[0]]
    return Slots([slots.items[k] for k in ks], (len(ks),))


# -- reading and writing -------------------------------------------------------------------
def load(ctx: TraceContext, slot):
    """The current value of an lvalue."""
    b = ctx.builder
    if isinstance(slot, Slots):
        return Vector([load(ctx, item) for item in slot.items], slot.shape)
    if isinstance(slot, StructSlots):
        return StructValue(slot.type, {key: load(ctx, item) for key, item in slot.items()})
    if isinstance(slot, DynamicSlot):
        return dynamic_index.load(ctx, slot, lambda choice: load(ctx, choice))
    if isinstance(slot, ir.AllocaStmt):
        return b.emit(ir.LocalLoadStmt(slot))
    return b.emit(ir.GlobalLoadStmt(slot))


def store(ctx: TraceContext, slot, value, node: ast.expr, at: ast.AST | None = None) -> None:
    """``slot = value``, cast to the slot's type; a scalar fills every component. A
    cast that may lose precision warns, with the caret under ``at`` (the value's code)."""
    b = ctx.builder
    if isinstance(slot, StructSlots):
        _store_struct(ctx, slot, value, node, at)
        return
    if is_struct(value):
        raise ctx.error(TiTypeError, node, "cannot store a struct into a scalar or vector")
    if isinstance(slot, Slots):
        _check_shape(ctx, slot, value, node)
        parts = as_vector(ctx, value, len(slot.items), node)
        for item, part in zip(slot.items, parts, strict=True):
            store(ctx, item, part, node, at)
        return
    if isinstance(value, (Vector, tuple, list)):
        raise ctx.error(TiTypeError, node, "cannot store a vector into a scalar")
    check_scalar(ctx, value, node)
    if isinstance(slot, DynamicSlot):
        _warn_if_narrowing(ctx, value, _one(slot), node, at)
        value = b.cast(value, _one(slot).dtype)  # warned once, not once per candidate
        dynamic_index.store(ctx, slot, value, lambda choice, v: store(ctx, choice, v, node, at))
        return
    _warn_if_narrowing(ctx, value, slot, node, at)
    if isinstance(slot, ir.AllocaStmt):
        b.emit(ir.LocalStoreStmt(slot, b.cast(value, slot.dtype)))
    else:
        b.emit(ir.GlobalStoreStmt(slot, b.cast(value, slot.dtype)))


def _store_struct(ctx: TraceContext, slots: StructSlots, value, node, at=None) -> None:
    """``s[i] = Particle(...)``, ``q = p``: member by member, converted to the type."""
    if isinstance(value, StructSlots):
        value = load(ctx, value)
    if not isinstance(value, StructValue):
        raise ctx.error(
            TiTypeError,
            node,
            f"cannot assign {kind_of(value)} to struct {slots.type.name}",
            "assign a struct value: Particle(pos=..., mass=...), or assign its members",
        )
    value = convert(ctx, slots.type, value, node)
    for key, item in slots.items():
        store(ctx, item, value.members[key], node, at)


def _warn_if_narrowing(
    ctx: TraceContext, value, slot, node: ast.AST, at: ast.AST | None, accumulating=False
) -> None:
    """Taichi's precision warning (``frontend/precision.py``): a float stored into an
    integer place, or a wider float into a narrower one, loses digits; in an atomic
    update (``accumulating``), so does a wider integer into a narrower one."""
    if precision.is_lossy(value, slot.dtype, accumulating):
        where = node if isinstance(node, (ast.Subscript, ast.Attribute)) else None
        words = precision.place_words(slot, where)
        precision.warn_if_lossy(ctx, value, slot.dtype, words, at or node, accumulating)


def atomic_update(ctx: TraceContext, op: str, slot, value, node: ast.expr, at=None):
    """An atomic ``op`` on an lvalue; the old value (a Vector for Slots). A value that
    the cast to the place's type may round warns at ``at`` (Taichi: "Atomic add may lose
    precision")."""
    if isinstance(slot, StructSlots) or is_struct(value):
        raise ctx.error(
            TiTypeError,
            node,
            "atomic operations and '+=' work on numbers and vectors, not on structs",
            "update a member: s[i].mass += 1",
        )
    if isinstance(slot, Slots):
        _check_shape(ctx, slot, value, node)
        parts = as_vector(ctx, value, len(slot.items), node)
        for item, part in zip(slot.items, parts, strict=True):
            _warn_if_narrowing(ctx, part, _one(item), node, at, accumulating=True)
        pairs = zip(slot.items, parts, strict=True)
        return Vector([atomic(ctx, op, item, part) for item, part in pairs], slot.shape)
    if isinstance(value, (Vector, tuple, list)):
        raise ctx.error(TiTypeError, node, "cannot apply a vector to a scalar")
    check_scalar(ctx, value, node)
    _warn_if_narrowing(ctx, value, _one(slot), node, at, accumulating=True)
    if isinstance(slot, DynamicSlot):
        return dynamic_index.update(
            ctx,
            slot,
            value,
            lambda choice, v: atomic(ctx, op, choice, v),
            lambda choice: load(ctx, choice),
        )
    return atomic(ctx, op, slot, value)


def _one(slot):
    """A slot that stands for ``slot``'s type: a dynamic slot's first candidate."""
    return slot.choices[0] if isinstance(slot, DynamicSlot) else slot


def _check_shape(ctx: TraceContext, slots: Slots, value, node: ast.expr) -> None:
    """A vector stored into vector slots must have their shape."""
    if isinstance(value, Vector) and value.shape != slots.shape:
        raise ctx.error(
            TiTypeError,
            node,
            f"cannot assign a value of shape {value.shape} to one of shape {slots.shape}",
        )


def atomic(ctx: TraceContext, op: str, ptr: ir.Stmt, value) -> ir.Stmt:
    """One scalar atomic; bit operations need an integer destination."""
    b = ctx.builder
    if op in ("bit_and", "bit_or", "bit_xor") and ptr.dtype.is_float:
        name = {"bit_and": "atomic_and", "bit_or": "atomic_or", "bit_xor": "atomic_xor"}
        raise b.error(
            TiTypeError,
            f"ti.{name[op]} needs an integer destination, got {ptr.dtype}",
            hint="bit operations work on integer fields and locals (ti.i32, ti.u32...)",
        )
    return b.emit(ir.AtomicOpStmt(op, ptr, b.cast(value, ptr.dtype)))
