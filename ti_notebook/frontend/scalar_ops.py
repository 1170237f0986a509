"""Scalar builtins in kernels: math functions, rounding, casts, min/max, select, clock.

Each applies to a scalar or, component by component, to a vector. ``int(x)`` and
``float(x)`` of a value known while compiling stay Python's (``int("64")`` works);
of a kernel value they cast to ``default_ip``/``default_fp``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def rounded(a: ti.f32) -> ti.i32:
    ...     v = ti.floor(ti.Vector([a, -a]), ti.i32)
    ...     return ti.max(v[0], v[1], 0) * 100 + int(ti.sqrt(a)) + ti.select(a > 2, 10, 20)
    >>> rounded(4.5)
    412
"""

from __future__ import annotations

import ast
import builtins

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import (
    as_vector,
    binary,
    call_args,
    keywords,
    map_vector,
    static_eval,
)
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types

HANDLERS = Handlers()
_UNARY = {
    ops.sqrt: "sqrt",
    ops.sin: "sin",
    ops.cos: "cos",
    ops.tan: "tan",
    ops.asin: "asin",
    ops.acos: "acos",
    ops.tanh: "tanh",
    ops.exp: "exp",
    ops.log: "log",
    ops.abs: "abs",
    builtins.abs: "abs",
}
_ROUNDING = {ops.floor: "floor", ops.ceil: "ceil", ops.round: "round"}


# Taichi refuses these on integers ("takes real inputs only"); sqrt, exp and log cast
_REAL_ONLY_UNARY = frozenset({"sin", "cos", "tan", "asin", "acos", "tanh"})


def _unary(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        (value,) = call_args(ctx, node, 1)
        if op in _REAL_ONLY_UNARY:
            return map_vector(ctx, value, lambda v: ctx.builder.unary(op, _real(ctx, v, node)))
        return map_vector(ctx, value, lambda v: ctx.builder.unary(op, v))

    return handler


def _rounding(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        args = [ctx.expr(a) for a in node.args]
        kw = keywords(ctx, node)
        dtype = kw.get("dtype", args[1] if len(args) > 1 else None)
        result = map_vector(ctx, args[0], lambda v: ctx.builder.unary(op, _real(ctx, v, node)))
        if dtype is not None:
            result = map_vector(ctx, result, lambda v: ctx.builder.cast(v, dtype))
        return result

    return handler


def _real(ctx: TraceContext, value, node: ast.Call):
    """floor, ceil, round and the trigonometric functions take floats (Taichi's rule):
    on an integer the first three would do nothing, which hides a missing cast."""
    if isinstance(value, ir.Stmt) and not value.dtype.is_float:
        name = ast.unparse(node.func)
        raise ctx.error(
            TiTypeError,
            node,
            f"{name} takes real inputs only, got {value.dtype}",
            f"cast with ti.cast(x, ti.{ctx.config.default_fp})",
        )
    return value


for _function, _op in _UNARY.items():
    HANDLERS.call(_function)(_unary(_op))
for _function, _op in _ROUNDING.items():
    HANDLERS.call(_function)(_rounding(_op))


# -- casts -------------------------------------------------------------------------------
@HANDLERS.call(ops.cast)
def _cast(ctx: TraceContext, node: ast.Call):
    if len(node.args) != 2:
        raise ctx.error(TiTypeError, node, "ti.cast takes (value, dtype)")
    value = ctx.expr(node.args[0])
    dtype = static_eval(ctx, node.args[1])
    dtype = types.to_dtype(dtype, ctx.config.default_ip, ctx.config.default_fp)
    if dtype is None:
        raise ctx.error(TiTypeError, node.args[1], "ti.cast needs a type such as ti.f32")
    return map_vector(ctx, value, lambda v: ctx.builder.cast(v, dtype))


@HANDLERS.call(builtins.int)
def _int(ctx: TraceContext, node: ast.Call):
    (value,) = call_args(ctx, node, 1)
    if not isinstance(value, (ir.Stmt, Vector)):
        return _python_convert(ctx, node, int, value)  # int(3.7), int("64"): compile time
    # int(vector) truncates each component, as in Taichi's mpm3d example
    return map_vector(ctx, value, lambda v: ctx.builder.cast(v, ctx.config.default_ip))


@HANDLERS.call(builtins.float)
def _float(ctx: TraceContext, node: ast.Call):
    (value,) = call_args(ctx, node, 1)
    if not isinstance(value, (ir.Stmt, Vector)):
        return _python_convert(ctx, node, float, value)
    return map_vector(ctx, value, lambda v: ctx.builder.cast(v, ctx.config.default_fp))


def _python_convert(ctx: TraceContext, node: ast.Call, convert, value):
    try:
        return convert(value)
    except (TypeError, ValueError) as exc:
        raise ctx.error(TiTypeError, node, f"{convert.__name__}() failed: {exc}") from None


# -- several operands ----------------------------------------------------------------------
def _minmax(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        args = call_args(ctx, node)
        if len(args) == 1 and isinstance(args[0], (Vector, tuple, list)):
            args = list(args[0])
        if len(args) < 2:
            raise ctx.error(TiTypeError, node, f"{op}() needs at least two values")
        result = args[0]
        for value in args[1:]:
            result = binary(ctx, op, result, value, node)
        return result

    return handler


def _binary(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        a, b = call_args(ctx, node, 2)
        return binary(ctx, op, a, b, node)

    return handler


HANDLERS.call(builtins.min, ops.min)(_minmax("min"))
HANDLERS.call(builtins.max, ops.max)(_minmax("max"))
HANDLERS.call(ops.pow)(_binary("pow"))
HANDLERS.call(ops.atan2)(_binary("atan2"))


@HANDLERS.call(ops.select)
def _select(ctx: TraceContext, node: ast.Call):
    """``ti.select(cond, a, b)``; element-wise when any operand is a vector (a vector
    ``cond`` picks per component, a scalar one for all)."""
    cond, a, b = call_args(ctx, node, 3)
    vectors = [v for v in (cond, a, b) if isinstance(v, Vector)]
    if not vectors:
        return ctx.builder.select(cond, a, b)
    shape = vectors[0].shape
    if any(v.shape != shape for v in vectors):
        raise ctx.error(
            TiTypeError,
            node,
            f"ti.select() got vectors of shapes {[v.shape for v in vectors]}",
            "the condition and both values must have one shape (or be scalars)",
        )
    size = len(vectors[0])
    parts = [as_vector(ctx, v, size, node) for v in (cond, a, b)]
    return Vector([ctx.builder.select(c, x, y) for c, x, y in zip(*parts, strict=True)], shape)


@HANDLERS.call(ops.clock_counter)
def _clock(ctx: TraceContext, node: ast.Call):
    return ctx.builder.emit(ir.ClockStmt(types.i64))
