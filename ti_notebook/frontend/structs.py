"""Structs inside kernels: construction, members, methods, ti.func parameters.

``Particle(pos=v, mass=1.0)`` (a struct type called in a kernel) and ``ti.Struct(a=1,
v=w)`` make values (``frontend/struct_values.py``); ``p.mass`` reads a member of a
value, a local or a struct field's element (``s[i].mass`` loads that member only);
``p.speed()`` inlines the type's ``@ti.func`` method with a copy of ``p`` as ``self``.
Assignments (``s[i].mass += 1``, ``s[i] = q``, ``q.pos.x = 0``) go through the places
of ``frontend/places.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.dataclass
    ... class Body:
    ...     v: ti.types.vector(2, ti.f32)
    ...     m: ti.f32
    ...
    ...     @ti.func
    ...     def momentum(self):
    ...         return self.m * self.v.norm()
    >>> bodies = Body.field(shape=3)
    >>> @ti.kernel
    ... def total() -> ti.f32:
    ...     for i in bodies:
    ...         bodies[i] = Body(v=[3.0, 4.0], m=i)
    ...         bodies[i].m += 1
    ...     s = 0.0
    ...     for i in range(3):
    ...         s += bodies[i].momentum()
    ...     return s
    >>> total()
    30.0
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.places import declare, load
from ti_notebook.frontend.struct_values import (
    StructSlots,
    StructValue,
    construct,
    convert,
    infer_type,
    is_struct,
    unknown_member,
)
from ti_notebook.lang.func import Func
from ti_notebook.lang.struct_base import StructTypeBase as StructType
from ti_notebook.lang.struct_values import Struct

HANDLERS = Handlers()


def construct_call(ctx: TraceContext, struct_type: StructType, node: ast.Call) -> StructValue:
    """``Particle(pos=v, mass=1.0)`` in a kernel: a value, members cast to their types."""
    args = [ctx.expr(a) for a in node.args]
    kwargs = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ctx.unsupported(keyword, "'**' in a struct construction")
        kwargs[keyword.arg] = ctx.expr(keyword.value)
    return construct(ctx, struct_type, [_value(ctx, a) for a in args], _values(ctx, kwargs), node)


@HANDLERS.call(Struct)
def _anonymous_struct(ctx: TraceContext, node: ast.Call) -> StructValue:
    """``ti.Struct(a=1, v=w)`` in a kernel: a value whose type its members decide."""
    if node.args:
        raise ctx.error(
            TiSyntaxError,
            node,
            "ti.Struct in a kernel takes keyword arguments",
            "write ti.Struct(pos=v, mass=1.0), or use a struct type: Particle(...)",
        )
    members = _values(ctx, {kw.arg: ctx.expr(kw.value) for kw in node.keywords})
    if None in members:
        raise ctx.unsupported(node, "'**' in a struct construction")
    struct_type = infer_type(ctx, members, node)
    return convert(ctx, struct_type, StructValue(struct_type, members), node)


def _value(ctx: TraceContext, value):
    return load(ctx, value) if isinstance(value, StructSlots) else value


def _values(ctx: TraceContext, values: dict) -> dict:
    return {key: _value(ctx, value) for key, value in values.items()}


def member(ctx: TraceContext, base, node: ast.Attribute):
    """``p.name`` of a struct value or place: a member's value, or a bound method."""
    struct_type = base.type
    key = node.attr
    if key in struct_type.members:
        if isinstance(base, StructValue):
            return base.members[key]
        slot = base.slot(key)
        return slot if isinstance(slot, StructSlots) else load(ctx, slot)
    method = struct_type.methods.get(key)
    if isinstance(method, Func):
        return method.__get__(_value(ctx, base), StructValue)  # self: a copy, when called
    if method is not None:
        raise ctx.error(
            TiSyntaxError,
            node,
            f"'{key}' of struct {struct_type.name} is not a @ti.func",
            "decorate the method with @ti.func to call it in a kernel",
        )
    raise unknown_member(ctx, struct_type, key, node)


def bind_struct_parameter(ctx: TraceContext, name: str, value, annotation) -> None:
    """A ti.func parameter that receives a struct: a local copy of it (converted to the
    annotated struct type, when there is one)."""
    value = _value(ctx, value)
    if isinstance(annotation, StructType):
        if not is_struct(value):
            raise ctx.error(
                TiTypeError,
                None,
                f"parameter '{name}' is a struct {annotation.name}, got a {type(value).__name__}",
                f"pass a value of that type: {annotation.name}(...)",
            )
        value = convert(ctx, annotation, value, None, f"parameter '{name}'")
    declare(ctx, name, value)
