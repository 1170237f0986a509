"""Methods of kernel vectors and matrices: ``v.dot(w)``, ``v.norm()``, ``m.transpose()``.

Each method unrolls into scalar IR over the components (``frontend/vectors.py`` says
why), with Taichi 1.7's definitions and checks: ``norm``, ``norm_inv`` and
``normalized`` take ``eps`` (0 by default: ``norm = sqrt(|v|^2 + eps)``, ``normalized =
v / (sqrt(|v|^2) + eps)``); ``dot``, ``cross``, ``outer_product`` and ``normalized`` need
vectors (``cross`` of 2-vectors is a scalar, of 3-vectors a vector); ``trace`` a square
matrix; ``transpose`` a matrix; ``any``/``all`` give 0 or 1 (i32); ``cast`` takes a ti
type or ``float``/``int``. ``determinant``/``inverse`` are in
``frontend/matrix_algebra.py``, ``fill`` in ``frontend/vector_fill.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def lengths() -> ti.f32:
    ...     v = ti.Vector([3.0, 4.0])
    ...     m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    ...     return v.norm() + v.dot(v) + m.transpose()[0, 1] + m.trace() + (v > 3).any()
    >>> lengths()
    39.0
"""

from __future__ import annotations

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types

HANDLERS = Handlers()


def call_method(ctx: TraceContext, method: BoundMethod, args: list, node, keywords=None):
    """``v.name(*args, **keywords)``, by the handler registered for ``name``."""
    handler = ctx.dispatch.methods.get(method.name)
    if handler is None:
        raise ctx.error(
            TiSyntaxError,
            node,
            f"unknown method '{method.name}'",
            "see Taichi's ti.Matrix methods: dot, norm, transpose, inverse...",
        )
    return handler(ctx, method, args, keywords or {}, node)


def positional(count: int, usage: str):
    """A method taking exactly ``count`` positional arguments and no keywords:
    ``handler(ctx, v, args, node)``; ``usage`` shows the call in errors."""

    def wrap(handler):
        def checked(ctx: TraceContext, method: BoundMethod, args: list, keywords: dict, node):
            if keywords or len(args) != count:
                given = len(args) + len(keywords)
                raise ctx.error(
                    TiTypeError,
                    node,
                    f"{method.name}() takes {count} argument(s), got {given}",
                    f"call it as {usage}",
                )
            return handler(ctx, method.value, args, node)

        return checked

    return wrap


def need_vector(ctx: TraceContext, value, name: str, node, role: str = "") -> Vector:
    """``value`` if it is a vector (shape ``(n,)``), else a TiTypeError for ``name``."""
    if isinstance(value, Vector) and len(value.shape) == 1:
        return value
    what = f"a matrix of shape {value.shape}" if isinstance(value, Vector) else "a scalar"
    raise ctx.error(
        TiTypeError,
        node,
        f"{name}() needs {role or 'a vector'}, got {what}",
        "vectors are ti.Vector([...]) values; index a matrix's row with m[i]",
    )


def need_square(ctx: TraceContext, value: Vector, name: str, node) -> int:
    """The size ``n`` of an n x n matrix, else a TiTypeError for ``name``."""
    if len(value.shape) == 2 and value.shape[0] == value.shape[1]:
        return value.shape[0]
    raise ctx.error(
        TiTypeError,
        node,
        f"{name}() needs a square matrix, got shape {value.shape}",
        "only n x n matrices have a trace, a determinant and an inverse",
    )


@HANDLERS.method("norm", "norm_inv", "normalized")
def _norms(ctx: TraceContext, method: BoundMethod, args: list, keywords: dict, node):
    v, b, name = method.value, ctx.builder, method.name
    (eps,) = method_arguments(ctx, name, args, keywords, ("eps",), (0,), node)
    if name == "normalized":
        need_vector(ctx, v, name, node)
    # Taichi's definitions: norm = sqrt(|v|^2 + eps), normalized = v / (sqrt(|v|^2) + eps)
    squared = sum_items(ctx, [b.binary("mul", x, x) for x in v])
    if name == "norm_inv":
        return b.binary("truediv", 1.0, b.unary("sqrt", b.binary("add", squared, eps)))
    if name == "norm":
        return b.unary("sqrt", b.binary("add", squared, eps))
    inv = b.binary("truediv", 1.0, b.binary("add", b.unary("sqrt", squared), eps))
    return Vector([b.binary("mul", x, inv) for x in v], v.shape)


def _two_vectors(ctx: TraceContext, v, w, name: str, node, same_size: bool = True):
    need_vector(ctx, v, name, node)
    need_vector(ctx, w, name, node, "a vector argument")
    if same_size and len(v) != len(w):
        raise ctx.error(
            TiTypeError,
            node,
            f"{name}() needs vectors of one size, got {len(v)} and {len(w)}",
            "both vectors must have as many components",
        )


@HANDLERS.method("dot")
@positional(1, "v.dot(w)")
def _dot(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    _two_vectors(ctx, v, w, "dot", node)
    b = ctx.builder
    return sum_items(ctx, [b.binary("mul", x, y) for x, y in zip(v, w, strict=True)])


@HANDLERS.method("norm_sqr")
@positional(0, "v.norm_sqr()")
def _norm_sqr(ctx: TraceContext, v: Vector, args: list, node):
    return sum_items(ctx, [ctx.builder.binary("mul", x, x) for x in v])


@HANDLERS.method("outer_product")
@positional(1, "v.outer_product(w)")
def _outer_product(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    _two_vectors(ctx, v, w, "outer_product", node, same_size=False)
    b = ctx.builder
    return Vector([b.binary("mul", x, y) for x in v for y in w], (len(v), len(w)))


@HANDLERS.method("transpose")
@positional(0, "m.transpose()")
def _transpose(ctx: TraceContext, v: Vector, args: list, node):
    if len(v.shape) != 2:
        raise ctx.error(
            TiTypeError,
            node,
            "transpose() applies to matrices, not vectors",
            "for a @ b.transpose() with vectors a and b, write a.outer_product(b)",
        )
    grid = v.rows()
    return Vector(
        [grid[r][c] for c in range(len(grid[0])) for r in range(len(grid))],
        (len(grid[0]), len(grid)),
    )


@HANDLERS.method("trace")
@positional(0, "m.trace()")
def _trace(ctx: TraceContext, v: Vector, args: list, node):
    n = need_square(ctx, v, "trace", node)
    return sum_items(ctx, [v.items[k * n + k] for k in range(n)])


@HANDLERS.method("cross")
@positional(1, "v.cross(w)")
def _cross(ctx: TraceContext, v: Vector, args: list, node):
    (w,) = args
    _two_vectors(ctx, v, w, "cross", node)
    if len(v) not in (2, 3):
        raise ctx.error(
            TiTypeError,
            node,
            f"cross() is defined for 2- and 3-vectors, got {len(v)}-vectors",
            "a 2-D cross product is a scalar, a 3-D one a vector",
        )
    b = ctx.builder
    if len(v) == 2:
        return b.binary("sub", b.binary("mul", v[0], w[1]), b.binary("mul", v[1], w[0]))
    items = []
    for i1, i2 in ((1, 2), (2, 0), (0, 1)):
        items.append(b.binary("sub", b.binary("mul", v[i1], w[i2]), b.binary("mul", v[i2], w[i1])))
    return Vector(items)


@HANDLERS.method("get_shape")
@positional(0, "m.get_shape()")
def _get_shape(ctx: TraceContext, v: Vector, args: list, node) -> tuple:
    return v.shape  # (n,) or (n, m), known while compiling


@HANDLERS.method("sum")
@positional(0, "v.sum()")
def _sum(ctx: TraceContext, v: Vector, args: list, node):
    return sum_items(ctx, list(v))


def _reduction(op: str):
    @positional(0, f"v.{op}()")
    def reduce(ctx: TraceContext, v: Vector, args: list, node):
        b = ctx.builder
        items = list(v.items)
        if op in ("any", "all"):  # Taichi: the components compared with 0, then or/and
            items = [b.truth(x) for x in items]
        combine = {"any": "logical_or", "all": "logical_and"}.get(op, op)
        result = items[0]
        for x in items[1:]:
            result = b.binary(combine, result, x)
        return b.truth(result) if op in ("any", "all") else result

    return reduce


for _op in ("max", "min", "any", "all"):
    HANDLERS.method(_op)(_reduction(_op))


@HANDLERS.method("cast")
@positional(1, "v.cast(ti.f32)")
def _cast(ctx: TraceContext, v: Vector, args: list, node):
    (dtype,) = args
    cfg = ctx.config
    resolved = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if resolved is None:
        raise ctx.error(
            TiTypeError, node, f"cast() needs a type, got {_describe(dtype)}", "e.g. v.cast(float)"
        )
    return Vector([ctx.builder.cast(x, resolved) for x in v], v.shape)


def _describe(value) -> str:
    return "a kernel value" if isinstance(value, (Vector, ir.Stmt)) else repr(value)


# -- helpers ---------------------------------------------------------------------------
def method_arguments(ctx: TraceContext, name, args, keywords, names, defaults, node) -> list:
    """``args``/``keywords`` of a vector method bound to ``names`` (with defaults)."""
    unknown = sorted(set(keywords) - set(names))
    if unknown or len(args) > len(names):
        raise ctx.error(
            TiTypeError,
            node,
            f"{name}() takes ({', '.join(names)}), got {unknown or args}",
            f"call it as v.{name}({', '.join(names)})",
        )
    values = list(args) + list(defaults[len(args) :])
    for k, key in enumerate(names):
        if key in keywords:
            if k < len(args):
                raise ctx.error(TiTypeError, node, f"{name}() got '{key}' twice", "give it once")
            values[k] = keywords[key]
    return values


def sum_items(ctx: TraceContext, items: list):
    """``items[0] + items[1] + ...`` in IR, left to right."""
    total = items[0]
    for x in items[1:]:
        total = ctx.builder.binary("add", total, x)
    return total
