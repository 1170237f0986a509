"""Operators: arithmetic, bitwise, ``@``, unary, ``and``/``or``, comparisons.

Operators on two constants fold while compiling; a kernel value and a constant give
IR typed by Taichi's promotion rules (``frontend/builder.py``). A chained comparison
``a < b < c`` is ``a < b and b < c`` (per component on vectors); ``and``/``or`` give
Python's value (``a or b`` is ``a`` when it is true), computed without branches. On
values known while compiling (strings, None, tuples, types) comparisons, ``not``,
``and``/``or``, ``is`` and ``in`` are Python's: ``ti.static(op == "sum")``,
``ti.static(a is not None and a.n > 2)``. ``a if c else b`` is in
``frontend/if_expressions.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def mixed(a: ti.i32) -> ti.i32:
    ...     inside = 0 < a < 10
    ...     return (a or 7) * 100 + inside * 10 + (~a & 3) + ti.static("f" in "ti.f32")
    >>> mixed(0), mixed(8)
    (704, 814)
"""

from __future__ import annotations

import ast
import operator

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.constants import kernel_value
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.numpy_globals import as_operand, is_array, known_while_compiling
from ti_notebook.frontend.operands import binary, check_scalar
from ti_notebook.frontend.values import Vector
from ti_notebook.frontend.vectors import matmul
from ti_notebook.ir import nodes as ir

HANDLERS = Handlers()
BINARY_OPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or",
    ast.BitXor: "bit_xor",
    ast.LShift: "shl",
    ast.RShift: "shr",
}
_COMPARE_OPS = {
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
}
_SEQUENCES = (tuple, list, str)
_PYTHON_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_COMPARE_PYTHON = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}
_PYTHON_COMPARE = {
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}
_SYMBOLS = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_UNARY_OPS = {ast.USub: "neg", ast.Invert: "bit_not", ast.Not: "logical_not"}


@HANDLERS.expression(ast.BinOp)
def _binop(ctx: TraceContext, node: ast.BinOp):
    # ``x[0] + x[1] + ... + x[599]`` nests to the left once per term: evaluating the
    # chain in a loop (innermost first) keeps Python's recursion flat for any length
    chain = [node]
    while isinstance(chain[-1].left, ast.BinOp):
        chain.append(chain[-1].left)
    left = ctx.expr(chain[-1].left)
    for level in reversed(chain[1:]):
        left = _nested(ctx, level, left)
    return _apply(ctx, node, left)


def _nested(ctx: TraceContext, node: ast.BinOp, left):
    """One inner level of a chain, as ``ctx.expr(node)`` would give it (position for
    errors, Python-scope values turned into kernel values)."""
    saved = ctx.builder.pos
    ctx.at(node)
    try:
        return kernel_value(ctx, _apply(ctx, node, left))
    finally:
        ctx.builder.pos = saved


def _apply(ctx: TraceContext, node: ast.BinOp, left):
    """``node``'s operator on ``left`` (already evaluated) and its right operand."""
    if isinstance(node.op, ast.MatMult):
        right = ctx.expr(node.right)
        if is_array(left) or is_array(right):
            if known_while_compiling(left) and known_while_compiling(right):
                return _python_binary(ctx, node, left, right)  # NumPy's, as in Taichi
            left, right = _arrays_as_vectors(ctx, node, left, right)
        return matmul(ctx, left, right, node)
    op = BINARY_OPS.get(type(node.op))
    if op is None:
        raise ctx.unsupported(node, f"the operator {type(node.op).__name__}")
    right = ctx.expr(node.right)
    if is_array(left) or is_array(right):  # a NumPy array from Python scope
        if known_while_compiling(left) and known_while_compiling(right):
            return _python_binary(ctx, node, left, right)  # NumPy's, as in Taichi
        left, right = _arrays_as_vectors(ctx, node, left, right)
    sequences = [v for v in (left, right) if isinstance(v, _SEQUENCES)]
    if sequences and all(isinstance(v, _SEQUENCES) or is_constant(v) for v in (left, right)):
        return _python_binary(ctx, node, left, right)  # [n] * dim, shape + (3,), "a" + "b"
    return binary(ctx, op, left, right, node)


def _arrays_as_vectors(ctx: TraceContext, node: ast.BinOp, left, right) -> tuple:
    """A NumPy array meeting a kernel value: a constant vector (frontend/numpy_globals.py)."""
    return (
        as_operand(ctx, left, node.left, ast.unparse(node.left)),
        as_operand(ctx, right, node.right, ast.unparse(node.right)),
    )


def _python_binary(ctx: TraceContext, node: ast.BinOp, left, right):
    """An operator on a tuple, list or string known while compiling: Python's."""
    try:
        return _PYTHON_BINARY[type(node.op)](left, right)
    except Exception as exc:  # a TypeError, mostly: the operand kinds in the message
        raise ctx.error(
            TiTypeError,
            node,
            f"cannot compute '{ast.unparse(node)}' while compiling: {exc}",
            "kernel arithmetic works on numbers, vectors and fields' elements",
        ) from None


@HANDLERS.expression(ast.UnaryOp)
def _unaryop(ctx: TraceContext, node: ast.UnaryOp):
    operand = ctx.expr(node.operand)
    if isinstance(node.op, ast.UAdd):
        return operand
    if is_array(operand) and not isinstance(node.op, ast.Not):
        return -operand if isinstance(node.op, ast.USub) else ~operand  # NumPy's
    op = _UNARY_OPS[type(node.op)]
    if isinstance(node.op, ast.Not) and _known(operand) and not is_constant(operand):
        return not operand  # not None, not (), not "": Python's, while compiling
    if isinstance(operand, Vector):
        if op == "logical_not":
            _check_integral(ctx, list(operand), node, "not")
        return Vector([ctx.builder.unary(op, v) for v in operand], operand.shape)
    check_scalar(ctx, operand, node)
    if op == "logical_not":
        _check_integral(ctx, [operand], node, "not")
    return ctx.builder.unary(op, operand)


def _check_integral(ctx: TraceContext, values: list, node: ast.AST, word: str) -> None:
    """``and``, ``or`` and ``not`` on kernel values take integers (Taichi's rule): a
    float's truth is spelled as a comparison."""
    for value in values:
        dtype = value.dtype if isinstance(value, ir.Stmt) else None
        if (dtype is not None and dtype.is_float) or isinstance(value, float):
            what = dtype if dtype is not None else "a float constant"
            raise ctx.error(
                TiTypeError,
                node,
                f"'{word}' takes integers only, got {what}",
                "use a comparison such as x != 0.0",
            )


@HANDLERS.expression(ast.BoolOp)
def _boolop(ctx: TraceContext, node: ast.BoolOp):
    op = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
    b = ctx.builder
    result = ctx.expr(node.values[0])
    for value in node.values[1:]:
        if _known(result):
            # ``a is not None and a.n > 2``: Python's, short-circuiting, while compiling
            if bool(result) == (op == "logical_or"):
                return result
            result = ctx.expr(value)
            continue
        rhs = ctx.expr(value)
        for side in (result, rhs):
            check_scalar(ctx, side, node)
        _check_integral(ctx, [result, rhs], node, "and" if op == "logical_and" else "or")
        if op == "logical_and":  # Python's value: a if a is falsy else b
            result = b.select(result, rhs, result)
        else:
            result = b.select(result, result, rhs)
    return result


@HANDLERS.expression(ast.Compare)
def _compare(ctx: TraceContext, node: ast.Compare):
    left = ctx.expr(node.left)
    result = None
    for op_node, comparator in zip(node.ops, node.comparators, strict=True):
        right = ctx.expr(comparator)
        this = _compare_pair(ctx, op_node, left, right, node)
        if result is None:
            result = this
        elif _known(result) and _known(this):
            result = result and this
        else:  # a < b < c on kernel values: both hold, component by component
            result = binary(ctx, "logical_and", result, this, node)
        left = right
    return result


def _compare_pair(ctx: TraceContext, op_node: ast.cmpop, left, right, node: ast.Compare):
    """One comparison: kernel IR, or Python's on values known while compiling."""
    python = _PYTHON_COMPARE.get(type(op_node))
    if python is not None:  # is, is not, in, not in
        for side in (left, right):
            if not _known(side):
                symbol = _SYMBOLS[type(op_node)]
                raise ctx.error(
                    TiTypeError,
                    node,
                    f"'{symbol}' compares values known at compile time, but one side is "
                    "known only when the kernel runs",
                    "compare kernel values with ==, !=, <, <=, > or >=",
                )
        return python(left, right)
    op = _COMPARE_OPS[type(op_node)]
    if _known(left) and _known(right) and not (is_constant(left) and is_constant(right)):
        return _COMPARE_PYTHON[op](left, right)  # op == "sum", dtype == ti.f32, shape == ()
    return binary(ctx, op, left, right, node)


def _known(value) -> bool:
    """A value known while compiling: anything but kernel values (IR, vectors of it)."""
    return not isinstance(value, (ir.Stmt, Vector))
