"""Methods of kernel vectors and matrices: ``v.dot(w)``, ``v.norm()``, ``m.transpose()``.

Each method unrolls into scalar IR over the components (``frontend/vectors.py`` says
why). ``norm``, ``norm_inv`` and ``normalized`` take Taichi's ``eps`` (0 by default:
``norm = sqrt(|v|^2 + eps)``, ``normalized = v / (norm + eps)``); the others take
positional arguments only.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def lengths() -> ti.f32:
    ...     v = ti.Vector([3.0, 4.0])
    ...     m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    ...     return v.norm() + v.dot(v) + m.transpose()[0, 1] + m.trace()
    >>> lengths()
    38.0
"""

from __future__ import annotations

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.lang import types

HANDLERS = Handlers()


def call_method(ctx: TraceContext, method: BoundMethod, args: list, node, keywords=None):
    """``v.name(*args, **keywords)``, by the handler registered for ``name``."""
    handler = ctx.dispatch.methods.get(method.name)
    if handler is None:
        raise ctx.error(TiSyntaxError, node, f"unknown method '{method.name}'")
    return handler(ctx, method, args, keywords or {}, node)


def _positional(handler):
    """A method that takes no keyword arguments: ``handler(ctx, v, args, node)``."""

    def checked(ctx: TraceContext, method: BoundMethod, args: list, keywords: dict, node):
        if keywords:
            raise ctx.error(TiTypeError, node, f"{method.name}() takes no keyword arguments")
        return handler(ctx, method.value, args, node)

    return checked


@HANDLERS.method("norm", "norm_inv", "normalized")
def _norms(ctx: TraceContext, method: BoundMethod, args: list, keywords: dict, node):
    v, b, name = method.value, ctx.builder, method.name
    (eps,) = _method_arguments(ctx, name, args, keywords, ("eps",), (0,), node)
    # Taichi's definitions: norm = sqrt(|v|^2 + eps), normalized = v / (norm + eps)
    squared = _sum_items(ctx, [b.binary("mul", x, x) for x in v])
    if name == "norm_inv":
        return b.binary("truediv", 1.0, b.unary("sqrt", b.binary("add", squared, eps)))
    norm = b.unary("sqrt", b.binary("add", squared, eps))
    if name == "norm":
        return norm
    inv = b.binary("truediv", 1.0, b.binary("add", norm, eps))
    return Vector([b.binary("mul", x, inv) for x in v], v.shape)


@HANDLERS.method("dot")
@_positional
def _dot(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    b = ctx.builder
    return _sum_items(ctx, [b.binary("mul", x, y) for x, y in zip(v, w, strict=True)])


@HANDLERS.method("norm_sqr")
@_positional
def _norm_sqr(ctx: TraceContext, v: Vector, args: list, node):
    return _sum_items(ctx, [ctx.builder.binary("mul", x, x) for x in v])


@HANDLERS.method("outer_product")
@_positional
def _outer_product(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    b = ctx.builder
    return Vector([b.binary("mul", x, y) for x in v for y in w], (len(v), len(w)))


@HANDLERS.method("transpose")
@_positional
def _transpose(ctx: TraceContext, v: Vector, args: list, node):
    grid = v.rows()
    return Vector(
        [grid[r][c] for c in range(len(grid[0])) for r in range(len(grid))],
        (len(grid[0]), len(grid)),
    )


@HANDLERS.method("trace")
@_positional
def _trace(ctx: TraceContext, v: Vector, args: list, node):
    grid = v.rows()
    return _sum_items(ctx, [grid[k][k] for k in range(len(grid))])


@HANDLERS.method("cross")
@_positional
def _cross(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    b = ctx.builder
    if len(v) == 2:
        return b.binary("sub", b.binary("mul", v[0], w[1]), b.binary("mul", v[1], w[0]))
    items = []
    for i1, i2 in ((1, 2), (2, 0), (0, 1)):
        items.append(b.binary("sub", b.binary("mul", v[i1], w[i2]), b.binary("mul", v[i2], w[i1])))
    return Vector(items)


@HANDLERS.method("sum")
@_positional
def _sum(ctx: TraceContext, v: Vector, args: list, node):
    return _sum_items(ctx, list(v))


def _extreme(op: str):
    @_positional
    def extreme(ctx: TraceContext, v: Vector, args: list, node):
        result = v.items[0]
        for x in v.items[1:]:
            result = ctx.builder.binary(op, result, x)
        return result

    return extreme


HANDLERS.method("max")(_extreme("max"))
HANDLERS.method("min")(_extreme("min"))


@HANDLERS.method("cast")
@_positional
def _cast(ctx: TraceContext, v: Vector, args: list, node):
    (dtype,) = args
    cfg = ctx.config
    resolved = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if resolved is None:
        raise ctx.error(TiTypeError, node, f"cast() needs a type, got {dtype!r}")
    return Vector([ctx.builder.cast(x, resolved) for x in v], v.shape)


# -- helpers ---------------------------------------------------------------------------
def _method_arguments(ctx: TraceContext, name, args, keywords, names, defaults, node) -> list:
    """``args``/``keywords`` of a vector method bound to ``names`` (with defaults)."""
    unknown = sorted(set(keywords) - set(names))
    if unknown or len(args) > len(names):
        raise ctx.error(
            TiTypeError, node, f"{name}() takes ({', '.join(names)}), got {unknown or args}"
        )
    values = list(args) + list(defaults[len(args) :])
    for k, key in enumerate(names):
        if key in keywords:
            if k < len(args):
                raise ctx.error(TiTypeError, node, f"{name}() got '{key}' twice")
            values[k] = keywords[key]
    return values


def _sum_items(ctx: TraceContext, items: list):
    """``items[0] + items[1] + ...`` in IR, left to right."""
    total = items[0]
    for x in items[1:]:
        total = ctx.builder.binary("add", total, x)
    return total
