"""Python's builtins in kernels: ``pow``, ``bool``, ``all``/``any``, ``sum``, ``range``...

Taichi lets kernels call these on kernel values; here each becomes scalar IR, applied
per component to a vector where Python would (``pow(v, 2)``). ``all``/``any`` and
``sum`` reduce a vector or a list (a comprehension's) to one value: ``all(v > 0)`` is
an i32 1 or 0. ``range``, ``ti.ndrange``, ``zip``, ``enumerate`` and ``reversed`` make
compile-time sequences for comprehensions and ``ti.static`` loops (a for statement over
``range(n)`` is a kernel loop, ``frontend/loops.py``); on values known only when the
kernel runs they say so. ``abs``, ``min``/``max``, ``int``/``float`` are in
``frontend/scalar_ops.py``, ``len`` in ``frontend/calls.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def checks(a: ti.f32) -> ti.i32:
    ...     v = ti.Vector([a, 2.0, 3.0])
    ...     inside = all(v > 0) + any(v > 2.5) * 10
    ...     return inside + int(pow(a, 2)) * 100 + bool(a) * 1000 + sum(range(4)) * 10000
    >>> checks(3.0), checks(-1.0)
    (61911, 61110)
"""

from __future__ import annotations

import ast
import builtins

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import binary, call_args, check_scalar, map_vector
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.frontend.vector_methods import call_method
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops

HANDLERS = Handlers()


def _is_kernel_value(value) -> bool:
    return isinstance(value, (ir.Stmt, Vector))


@HANDLERS.call(builtins.pow)
def _pow(ctx: TraceContext, node: ast.Call):
    args = call_args(ctx, node)
    if len(args) == 3 and not any(_is_kernel_value(a) for a in args):
        return pow(*args)  # pow(a, b, m) of compile-time integers: Python's
    if len(args) != 2:
        raise ctx.error(
            TiTypeError,
            node,
            f"pow() in a kernel takes 2 arguments, got {len(args)}",
            "pow(base, exp); for a modulus write pow(base, exp) % m",
        )
    return binary(ctx, "pow", args[0], args[1], node)


@HANDLERS.call(builtins.bool)
def _bool(ctx: TraceContext, node: ast.Call):
    args = call_args(ctx, node)
    if len(args) > 1:
        raise ctx.error(TiTypeError, node, "bool() takes one argument", "bool(x)")
    if not args:
        return False
    (value,) = args
    if not _is_kernel_value(value):
        return bool(value)
    return map_vector(ctx, value, ctx.builder.truth)  # 1 or 0 (i32), per component


# -- reductions ------------------------------------------------------------------------------
def _reduce_truth(op: str, python):
    def handler(ctx: TraceContext, node: ast.Call):
        items = _sequence_argument(ctx, node, python.__name__)
        if isinstance(items, Vector):  # all(v > 0) is v.all() (frontend/vector_methods.py)
            return call_method(ctx, BoundMethod(items, python.__name__), [], node)
        if not any(_is_kernel_value(v) for v in items):
            return python(items)
        b = ctx.builder
        result = None
        for item in items:
            check_scalar(ctx, item, node)
            truth = int(bool(item)) if is_constant(item) else b.truth(item)
            result = truth if result is None else b.binary(op, result, truth)
        return b.truth(result)

    return handler


HANDLERS.call(builtins.all)(_reduce_truth("logical_and", builtins.all))
HANDLERS.call(builtins.any)(_reduce_truth("logical_or", builtins.any))


@HANDLERS.call(builtins.sum)
def _sum(ctx: TraceContext, node: ast.Call):
    items = list(_sequence_argument(ctx, node, "sum", extra=("start",)))
    start = 0
    if len(node.args) > 1:
        start = ctx.expr(node.args[1])
    elif node.keywords:
        start = ctx.expr(node.keywords[0].value)
    if not any(_is_kernel_value(v) for v in [*items, start]):
        return sum(items, start)
    result = start
    for item in items:
        result = binary(ctx, "add", result, item, node)
    return result


def _sequence_argument(ctx: TraceContext, node: ast.Call, name: str, extra=()) -> list | Vector:
    """The one iterable a reduction takes: a kernel vector, or a tuple's or list's items."""
    allowed = 1 + len(extra)
    keywords_ok = all(kw.arg in extra for kw in node.keywords)
    if not node.args or len(node.args) > allowed or not keywords_ok:
        raise ctx.error(
            TiTypeError, node, f"{name}() takes one vector, tuple or list", f"{name}(v)"
        )
    value = ctx.expr(node.args[0])
    if isinstance(value, Vector):
        return value
    if isinstance(value, ir.Stmt) or is_constant(value):
        raise ctx.error(
            TiTypeError,
            node.args[0],
            f"{name}() needs a vector, tuple or list, but '{ast.unparse(node.args[0])}' is "
            "a single number",
            f"{name}() reduces many values, e.g. {name}(v > 0) for a vector v",
        )
    try:
        return list(value)
    except TypeError:
        raise ctx.error(
            TiTypeError,
            node.args[0],
            f"{name}() cannot iterate over a {type(value).__name__}",
            "pass a vector, a tuple or a list",
        ) from None


# -- compile-time sequences ----------------------------------------------------------------
def _static_sequence(python, what: str):
    """``range(3)``, ``ti.ndrange(2, 2)``: run in Python when every bound is known."""

    def handler(ctx: TraceContext, node: ast.Call):
        args = call_args(ctx, node)
        for arg_node, value in zip(node.args, args, strict=True):
            items = value if isinstance(value, (tuple, list)) else [value]
            if any(_is_kernel_value(v) for v in items):
                raise ctx.error(
                    TiSyntaxError,
                    arg_node,
                    f"{what} here is made at compile time (a comprehension or ti.static), "
                    f"but '{ast.unparse(arg_node)}' is known only when the kernel runs",
                    "use bounds known at compile time (constants, Python globals, "
                    "ti.template() arguments), or a for loop over the range",
                )
        try:
            return python(*args)
        except (TypeError, ValueError) as exc:
            raise ctx.error(TiTypeError, node, f"{what}: {exc}", "bounds are integers") from None

    return handler


HANDLERS.call(builtins.range)(_static_sequence(builtins.range, "range()"))
HANDLERS.call(ops.ndrange)(_static_sequence(ops.ndrange, "ti.ndrange()"))


def _itemwise(python):
    """``zip``/``enumerate``/``reversed`` over vectors (their components) and sequences,
    as a list: what comprehensions and ``ti.static`` loops iterate over."""

    def handler(ctx: TraceContext, node: ast.Call):
        args = [_as_items(ctx, a) for a in call_args(ctx, node)]
        kwargs = {kw.arg: ctx.expr(kw.value) for kw in node.keywords}
        try:
            return list(python(*args, **kwargs))
        except TypeError as exc:
            hint = "pass vectors, tuples or lists known at compile time"
            raise ctx.error(TiTypeError, node, f"{python.__name__}(): {exc}", hint) from None

    return handler


def _as_items(ctx: TraceContext, value):
    if isinstance(value, Vector):
        if len(value.shape) == 1:
            return list(value.items)
        return [Vector(row) for row in value.rows()]
    return value


for _function in (builtins.zip, builtins.enumerate, builtins.reversed):
    HANDLERS.call(_function)(_itemwise(_function))
