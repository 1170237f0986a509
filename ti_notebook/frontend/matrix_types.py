"""Vector and matrix types in kernels: ``vec3(x, y, z)``, ``p: vec3 = ...``, ``v: vec3``.

Calling a :class:`~ti_notebook.lang.matrix_types.MatrixType` (``ti.math.vec3``,
``ti.types.matrix(2, 2, ti.f32)``) builds a kernel vector from its ``n * m`` items in
any grouping - scalars, vectors, lists (``vec4(v.xyz, 1.0)``) - or from one scalar that
fills it (``lang/matrix_types.py`` has the rule), each cast to the type's element type
(``None``/``float``/``int`` by the kernel's ``default_fp``/``default_ip``). As a
``ti.func`` parameter's annotation or a local's, the type checks the value's shape and
casts its components:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec3 = ti.types.vector(3, ti.f32)
    >>> ivec2 = ti.types.vector(2, ti.i32)
    >>> @ti.func
    ... def total(p: vec3) -> ti.f32:
    ...     return p.x + p.y + p.z
    >>> @ti.kernel
    ... def build(a: ti.f32) -> ti.f32:
    ...     q: ivec2 = ti.Vector([2.7, -1.5])
    ...     v = ti.types.vector(4, float)(vec3(a), q.x)
    ...     return total(vec3(v.x, v.y, v.z)) + v.w + q.y
    >>> build(0.5)
    2.5
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.values import Vector
from ti_notebook.lang.element_type import ElementType
from ti_notebook.lang.matrix_types import MatrixType, gather

__all__ = ["MatrixType", "construct", "convert"]


def _element_type(ctx: TraceContext, kind: ElementType):
    return kind.resolve(ctx.config.default_ip, ctx.config.default_fp)


def construct(ctx: TraceContext, kind: MatrixType, node: ast.Call) -> Vector:
    """``kind(*args)`` in a kernel: a vector of its items, cast to its element type."""
    if node.keywords:
        raise ctx.error(TiTypeError, node, f"{kind!r}() takes no keyword arguments")
    args = tuple(ctx.expr(a) for a in node.args)
    try:
        items = gather(kind, args, lambda x: list(x.items) if isinstance(x, Vector) else None)
    except TiError as error:
        raise ctx.error(type(error), node, error.message, error.hint) from None
    dtype = _element_type(ctx, kind)
    for item in items:
        check_scalar(ctx, item, node)
    return Vector([ctx.builder.cast(item, dtype) for item in items], kind.shape)


def convert(ctx: TraceContext, kind: ElementType, value, node, what: str) -> Vector:
    """``value`` as a value of ``kind`` (a parameter's or a local's annotation): the
    same shape, its components cast to the element type."""
    shape = value.shape if isinstance(value, Vector) else "a scalar"
    if not isinstance(value, Vector) or value.shape != kind.shape:
        raise ctx.error(
            TiTypeError,
            node,
            f"{what} is annotated {kind!r} (shape {kind.shape}) but gets a value of shape {shape}",
            f"pass a value of shape {kind.shape}; calling the type makes one, also from a "
            "single number that fills it",
        )
    dtype = _element_type(ctx, kind)
    return Vector([ctx.builder.cast(item, dtype) for item in value.items], kind.shape)
