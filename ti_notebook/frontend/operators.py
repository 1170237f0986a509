"""Operators: arithmetic, bitwise, ``@``, unary, ``and``/``or``, comparisons, ``a if c else b``.

Operators on two constants fold while compiling; a kernel value and a constant give
IR typed by Taichi's promotion rules (``frontend/builder.py``). A chained comparison
``a < b < c`` is ``a < b and b < c``; ``and``/``or`` give Python's value (``a or b``
is ``a`` when it is true), computed without branches.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def mixed(a: ti.i32) -> ti.i32:
    ...     inside = 0 < a < 10
    ...     return (a or 7) * 100 + inside * 10 + (-a if a > 5 else ~a & 3)
    >>> mixed(0), mixed(8)
    (703, 802)
"""

from __future__ import annotations

import ast

from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import binary, check_scalar, static_condition
from ti_notebook.frontend.values import Vector
from ti_notebook.frontend.vectors import matmul

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
_UNARY_OPS = {ast.USub: "neg", ast.Invert: "bit_not", ast.Not: "logical_not"}


@HANDLERS.expression(ast.BinOp)
def _binop(ctx: TraceContext, node: ast.BinOp):
    if isinstance(node.op, ast.MatMult):
        return matmul(ctx, ctx.expr(node.left), ctx.expr(node.right), node)
    op = BINARY_OPS.get(type(node.op))
    if op is None:
        raise ctx.unsupported(node, f"the operator {type(node.op).__name__}")
    return binary(ctx, op, ctx.expr(node.left), ctx.expr(node.right), node)


@HANDLERS.expression(ast.UnaryOp)
def _unaryop(ctx: TraceContext, node: ast.UnaryOp):
    operand = ctx.expr(node.operand)
    if isinstance(node.op, ast.UAdd):
        return operand
    op = _UNARY_OPS[type(node.op)]
    if isinstance(operand, Vector):
        return Vector([ctx.builder.unary(op, v) for v in operand], operand.shape)
    check_scalar(ctx, operand, node)
    return ctx.builder.unary(op, operand)


@HANDLERS.expression(ast.BoolOp)
def _boolop(ctx: TraceContext, node: ast.BoolOp):
    op = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
    b = ctx.builder
    result = ctx.expr(node.values[0])
    for value in node.values[1:]:
        rhs = ctx.expr(value)
        for side in (result, rhs):
            check_scalar(ctx, side, node)
        if is_constant(result) and is_constant(rhs):
            result = b.binary(op, result, rhs)
        elif op == "logical_and":  # Python's value: a if a is falsy else b
            result = b.select(result, rhs, result)
        else:
            result = b.select(result, result, rhs)
    return result


@HANDLERS.expression(ast.Compare)
def _compare(ctx: TraceContext, node: ast.Compare):
    left = ctx.expr(node.left)
    result = None
    for op_node, comparator in zip(node.ops, node.comparators, strict=True):
        op = _COMPARE_OPS.get(type(op_node))
        if op is None:
            raise ctx.unsupported(node, f"the comparison '{type(op_node).__name__}'")
        right = ctx.expr(comparator)
        this = binary(ctx, op, left, right, node)
        result = this if result is None else ctx.builder.binary("logical_and", result, this)
        left = right
    return result


@HANDLERS.expression(ast.IfExp)
def _ifexp(ctx: TraceContext, node: ast.IfExp):
    static = static_condition(ctx, node.test)
    if static is not None:
        return ctx.expr(node.body if static else node.orelse)
    cond = ctx.expr(node.test)
    a, b = ctx.expr(node.body), ctx.expr(node.orelse)
    if is_constant(cond):
        return a if cond else b
    return ctx.builder.select(cond, a, b)
