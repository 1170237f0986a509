"""Struct values and places inside kernels.

A struct value is a :class:`StructValue`: its type and, per member, a scalar (an IR
statement or a constant), a :class:`~ti_notebook.frontend.values.Vector` or a nested
StructValue; like vectors it is unrolled, so LLVM sees scalars only. Where a struct
lives - a local variable, or an element of a struct field - is a :class:`StructSlots`:
per member one alloca or pointer, the ``Slots`` of a vector member, or nested
StructSlots. A field element's pointers are made on first use, so ``s[i].mass`` touches
one member (``frontend/places.py`` loads and stores through them).

:func:`convert` makes a value of a struct type from what code gives it (members cast
to their types, vectors checked against their shapes), as construction
(``Particle(pos=v, mass=1)``), ti.func parameters and kernel returns need:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> Particle = ti.types.struct(pos=ti.types.vector(2, ti.f32), mass=ti.i32)
    >>> @ti.kernel
    ... def make() -> ti.f32:
    ...     p = Particle(pos=[1.5, 2], mass=2.7)
    ...     q = Particle()
    ...     q.mass = p.mass + 1
    ...     return p.pos.y * q.mass
    >>> make()
    6.0
"""

from __future__ import annotations

import dataclasses

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.values import ComponentPointers, Slots, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import matrix_types, types
from ti_notebook.lang.matrix import MatrixField
from ti_notebook.lang.matrix_types import MatrixType
from ti_notebook.lang.struct_base import StructTypeBase as StructType
from ti_notebook.lang.struct_field import StructField


@dataclasses.dataclass
class StructValue:
    """A struct value: member name → scalar, Vector or StructValue, in member order."""

    type: StructType
    members: dict


class StructSlots:
    """Where a struct lives: member name → its place, made by ``make(key)`` on first use.

    ``local`` is True for a local variable (allocas), False for a field's element.
    """

    def __init__(self, struct_type: StructType, make, local: bool) -> None:
        self.type = struct_type
        self.make = make
        self.local = local
        self.made: dict = {}

    def slot(self, key: str):
        if key not in self.made:
            self.made[key] = self.make(key)
        return self.made[key]

    def items(self):
        return [(key, self.slot(key)) for key in self.type.members]


def is_struct(value) -> bool:
    """A struct value or place (what assignments, calls and returns must copy)."""
    return isinstance(value, (StructValue, StructSlots))


def type_name(struct_type: StructType) -> str:
    """How errors name a struct type: ``struct Particle``, or ``the struct`` unnamed."""
    return struct_type.label


def unknown_member(ctx: TraceContext, struct_type: StructType, key: str, node) -> Exception:
    members = ", ".join(struct_type.members)
    return ctx.error(
        TiTypeError,
        node,
        f"{type_name(struct_type)} has no member '{key}'",
        f"its members are {members}" if members else "it has no members",
    )


# -- making values ---------------------------------------------------------------------------
def construct(ctx: TraceContext, struct_type: StructType, args: list, kwargs: dict, node):
    """``StructType(*args, **kwargs)`` in a kernel; missing members are zero."""
    keys = list(struct_type.members)
    if len(args) > len(keys):
        raise ctx.error(
            TiTypeError,
            node,
            f"{type_name(struct_type)} has {len(keys)} member(s) but {len(args)} values were given",
        )
    given = dict(zip(keys, args, strict=False))
    for key, value in kwargs.items():
        if key not in struct_type.members:
            raise unknown_member(ctx, struct_type, key, node)
        if key in given:
            raise ctx.error(TiTypeError, node, f"member '{key}' was given twice")
        given[key] = value
    members = {key: given.get(key, 0) for key in keys}
    return convert(ctx, struct_type, StructValue(struct_type, members), node)


def convert(ctx: TraceContext, struct_type: StructType, value, node, what: str = "") -> StructValue:
    """``value`` (a StructValue of the same member names) as a value of ``struct_type``:
    each member converted to its type. A number fills every member (Taichi's zero).
    ``what`` names the value in errors (a parameter, a member path)."""
    if is_constant(value) or isinstance(value, ir.Stmt):
        members = dict.fromkeys(struct_type.members, value)
    elif isinstance(value, StructValue):
        if list(value.members) != list(struct_type.members):
            raise ctx.error(
                TiTypeError,
                node,
                f"{what or type_name(struct_type)} needs members {list(struct_type.members)}, "
                f"got a struct with members {list(value.members)}",
            )
        members = value.members
    else:
        raise ctx.error(
            TiTypeError,
            node,
            f"{what or 'this'} needs a value of {type_name(struct_type)}, got {kind_of(value)}",
            "make one with the struct type: Particle(pos=..., mass=...)",
        )
    # a nested struct's members are named by their path: member 'inner.a'
    prefix = what[len("member '") : -1] + "." if what.startswith("member '") else ""
    out = {
        key: convert_member(
            ctx, struct_type.member_type(key), members[key], node, f"member '{prefix}{key}'"
        )
        for key in struct_type.members
    }
    return StructValue(struct_type, out)


def convert_member(ctx: TraceContext, member_type, value, node, what: str):
    """One member's value as its type holds it (cast, shape-checked)."""
    b = ctx.builder
    if isinstance(member_type, StructType):
        return convert(ctx, member_type, value, node, what)
    if isinstance(member_type, MatrixType):
        return convert_matrix(ctx, member_type, value, node, what)
    if isinstance(value, ir.Stmt) or is_constant(value):
        return b.cast(value, member_type)
    raise ctx.error(
        TiTypeError,
        node,
        f"{what} is a scalar ({member_type}), got {kind_of(value)}",
        "give it a number; vectors go in members of a ti.types.vector type",
    )


def convert_matrix(ctx: TraceContext, matrix_type: MatrixType, value, node, what: str) -> Vector:
    """A Vector of ``matrix_type``'s shape and type from a vector, nested lists or a
    number (which fills it)."""
    b, shape, dtype = ctx.builder, matrix_type.shape, matrix_type.dtype
    if isinstance(value, (list, tuple)):
        rows = [list(r) if isinstance(r, (list, tuple, Vector)) else r for r in value]
        if rows and all(isinstance(r, list) for r in rows):
            value = Vector([x for r in rows for x in r], (len(rows), len(rows[0])))
        else:
            value = Vector(rows)
    if isinstance(value, ir.Stmt) or is_constant(value):
        return Vector([b.cast(value, dtype) for _ in range(matrix_type.n * matrix_type.m)], shape)
    if not isinstance(value, Vector):
        raise ctx.error(TiTypeError, node, f"{what} is a {matrix_type!r}, got {kind_of(value)}")
    if value.shape != shape:
        raise ctx.error(
            TiTypeError,
            node,
            f"{what} has shape {shape}, got a value of shape {value.shape}",
        )
    for item in value:
        if not (isinstance(item, ir.Stmt) or is_constant(item)):
            raise ctx.error(TiTypeError, node, f"{what} holds numbers, got {kind_of(item)}")
    return Vector([b.cast(item, dtype) for item in value], shape)


def kind_of(value) -> str:
    """How an error names what a struct was given: a number, a vector of shape (2,)..."""
    if isinstance(value, Vector):
        return f"a vector/matrix of shape {value.shape}"
    if isinstance(value, StructValue):
        return f"a {type_name(value.type)}"
    if isinstance(value, ir.Stmt) or is_constant(value):
        return "a number"
    return f"a {type(value).__name__}"


def infer_type(ctx: TraceContext, members: dict, node) -> StructType:
    """The type of an anonymous ``ti.Struct(a=..., v=...)`` in a kernel: each member's
    own (scalars by their type, vectors by shape and item type)."""
    found = {}
    for key, value in members.items():
        if isinstance(value, StructValue):
            found[key] = value.type
        elif isinstance(value, (Vector, list, tuple)):
            vector = value if isinstance(value, Vector) else Vector(list(value))
            dtype = ctx.builder.value(vector.items[0]).dtype if len(vector) else types.f32
            if len(vector.shape) == 1:
                found[key] = matrix_types.vector(vector.shape[0], dtype)
            else:
                found[key] = matrix_types.matrix(*vector.shape, dtype)
        elif isinstance(value, ir.Stmt) or is_constant(value):
            found[key] = ctx.builder.value(value).dtype
        else:
            raise ctx.error(TiTypeError, node, f"struct member '{key}' is {kind_of(value)}")
    return StructType(found)


# -- places ------------------------------------------------------------------------------------
def local_slots(ctx: TraceContext, name: str, struct_type: StructType) -> StructSlots:
    """A local variable of ``struct_type``: one alloca per scalar."""
    b = ctx.builder

    def make(key: str):
        member_type = struct_type.member_type(key)
        label = f"{name}.{key}"
        if isinstance(member_type, StructType):
            return _eager(local_slots(ctx, label, member_type))
        if isinstance(member_type, MatrixType):
            count = member_type.n * member_type.m
            allocas = [b.emit(ir.AllocaStmt(member_type.dtype, label)) for _ in range(count)]
            return Slots(allocas, member_type.shape)
        return b.emit(ir.AllocaStmt(member_type, label))

    return _eager(StructSlots(struct_type, make, local=True))


def _eager(slots: StructSlots) -> StructSlots:
    slots.items()  # a local's allocas exist before anything is stored into them
    return slots


def field_slots(ctx: TraceContext, field, indices: list, node, pointer) -> StructSlots:
    """The element ``field[indices]`` of a struct field; ``pointer(component_field)``
    is the pointer to one scalar component at those indices."""

    def make(key: str):
        member = field.get_member_field(key)
        if isinstance(member, StructField):
            return field_slots(ctx, member, indices, node, pointer)
        if isinstance(member, MatrixField):
            components = member.components
            return Slots(
                ComponentPointers(lambda k: pointer(components[k]), len(components)),
                member.element_shape,
            )
        return pointer(member)

    return StructSlots(field.struct_type, make, local=False)
