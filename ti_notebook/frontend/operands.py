"""Kernel operands: scalar checks, vectors element-wise, values known at compile time.

A traced value is an IR statement (known when the kernel runs), a Python number (a
constant), a :class:`~ti_notebook.frontend.values.Vector` of those, or another Python
object known while compiling (a field, a tuple, a type). These helpers, shared by the
handler modules, check which one an operation got and apply scalar operations to each
component of a vector; a scalar operand meets every component:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def second() -> ti.f32:
    ...     v = ti.Vector([1.0, 2.0]) * 2 + ti.Vector([0.5, 0.25])
    ...     return v[ti.static(1)]
    >>> second()
    4.25
"""

from __future__ import annotations

import ast

import numpy as np

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops
from ti_notebook.lang.field import Field


def check_scalar(ctx: TraceContext, value, node: ast.AST | None) -> None:
    """An error at ``node`` unless ``value`` is a number (a statement or a constant)."""
    if isinstance(value, ir.Stmt) or is_constant(value):
        return
    what = type(value).__name__
    hint = "kernel arithmetic works on numbers; index fields and arrays first"
    if isinstance(value, Field):
        what = f"field '{value.name}' (index it: x[i])"
    elif isinstance(value, np.ndarray):  # from Python scope: frontend/numpy_globals.py
        what = f"NumPy array of shape {value.shape}"
        hint = (
            "index it (a[0]), or pass it as a ti.types.ndarray() argument or copy it into a field"
        )
    raise ctx.error(TiTypeError, node, f"unsupported operand: {what}", hint)


def unpack(ctx: TraceContext, value, count: int, node: ast.AST) -> list:
    """The ``count`` items of a vector, tuple or list (``a, b = v``)."""
    if isinstance(value, (tuple, list, Vector)):
        items = list(value)
    else:
        raise ctx.error(TiTypeError, node, f"cannot unpack a scalar into {count} names")
    if len(items) != count:
        raise ctx.error(TiTypeError, node, f"cannot unpack {len(items)} values into {count} names")
    return items


def as_vector(ctx: TraceContext, value, count: int, node: ast.AST) -> list:
    """``count`` items: a vector's own, or a scalar repeated."""
    if isinstance(value, (Vector, tuple, list)):
        return unpack(ctx, value, count, node)
    return [value] * count


def map_vector(ctx: TraceContext, value, fn):
    """``fn`` applied to a scalar, or to each component of a vector."""
    if isinstance(value, Vector):
        return Vector([fn(v) for v in value], value.shape)
    check_scalar(ctx, value, None)
    return fn(value)


def binary(ctx: TraceContext, op: str, lhs, rhs, node: ast.AST):
    """``lhs op rhs`` on scalars, or element-wise on vectors of one shape."""
    if isinstance(lhs, Vector) or isinstance(rhs, Vector):
        if isinstance(lhs, Vector) and isinstance(rhs, Vector) and lhs.shape != rhs.shape:
            raise ctx.error(
                TiTypeError,
                node,
                f"cannot apply '{op}' to a vector of shape {lhs.shape} and one of shape "
                f"{rhs.shape}",
                "element-wise operations need operands of the same shape",
            )
        size = len(lhs) if isinstance(lhs, Vector) else len(rhs)
        left = as_vector(ctx, lhs, size, node)
        right = as_vector(ctx, rhs, size, node)
        shape = lhs.shape if isinstance(lhs, Vector) else rhs.shape
        pairs = zip(left, right, strict=True)
        return Vector([binary(ctx, op, a, b, node) for a, b in pairs], shape)
    for side in (lhs, rhs):
        check_scalar(ctx, side, node)
    return ctx.builder.binary(op, lhs, rhs)


# -- values known while compiling ------------------------------------------------------
def static_eval(ctx: TraceContext, node: ast.expr):
    """The value of an expression that must be known at compile time."""
    value = ctx.expr(node)
    if isinstance(value, (ir.Stmt, Vector)):
        raise ctx.error(
            TiSyntaxError,
            node,
            f"'{ast.unparse(node)}' must be known at compile time",
            "use Python values, template arguments or constants here",
        )
    return value


def static_condition(ctx: TraceContext, test: ast.expr):
    """The value of ``ti.static(cond)`` when ``test`` is one, else None."""
    if not is_static_call(ctx, test):
        return None
    if len(test.args) != 1:
        raise ctx.error(TiSyntaxError, test, "ti.static(cond) takes one argument here")
    return bool(static_eval(ctx, test.args[0]))


def is_static_call(ctx: TraceContext, node: ast.expr) -> bool:
    """Whether ``node`` is a call of ``ti.static`` (anything that fails to evaluate is not)."""
    if not isinstance(node, ast.Call):
        return False
    try:
        func = ctx.expr(node.func)
    except Exception:
        return False
    return func is ops.static


# -- call arguments --------------------------------------------------------------------
def call_args(ctx: TraceContext, node: ast.Call, count: int | None = None) -> list:
    """The values of a call's positional arguments; ``count`` of them when given."""
    if node.keywords and count is not None:
        raise ctx.error(TiSyntaxError, node, "this call takes no keyword arguments")
    args = [ctx.expr(a) for a in node.args]
    if count is not None and len(args) != count:
        name = ast.unparse(node.func)
        raise ctx.error(TiTypeError, node, f"{name}() takes {count} argument(s)")
    return args


def keywords(ctx: TraceContext, node: ast.Call) -> dict:
    """A call's keyword arguments, which must be known at compile time."""
    return {kw.arg: static_eval(ctx, kw.value) for kw in node.keywords}
