"""Assignments and expression statements: ``=``, ``x: ti.f32 = ...``, ``+=``, ``pass``.

Taichi's local-variable rules: the first assignment to a name declares a local in the
current block, typed by its value; later assignments cast to that type; a local
declared inside a block is gone after the block ends. Any other value (a field, a
tuple, a type) bound to a name is a compile-time alias. ``+=``, ``-=``, ``&=``, ``|=``
and ``^=`` are atomic, as in Taichi.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def count(n: ti.i32) -> ti.i32:
    ...     total = 0
    ...     for i in range(n):
    ...         total += i
    ...     a, b = total, 2
    ...     c: ti.i64 = a * b
    ...     return c
    >>> count(5)
    20
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend import precision, triplet_ops
from ti_notebook.frontend.context import MISSING, TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.local_sequences import LocalSequence
from ti_notebook.frontend.matrix_types import convert
from ti_notebook.frontend.operands import binary, is_static_call, static_eval, unpack
from ti_notebook.frontend.operators import BINARY_OPS
from ti_notebook.frontend.places import atomic_update, declare, load, lvalue, store
from ti_notebook.frontend.struct_values import StructSlots
from ti_notebook.frontend.values import LoopIndex, VectorVariable
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types
from ti_notebook.lang.element_type import ElementType

HANDLERS = Handlers()
# Augmented assignments that are atomic, as in Taichi.
_ATOMIC_AUG = {"add", "sub", "bit_and", "bit_or", "bit_xor"}


@HANDLERS.statement(ast.Pass)
def _pass(ctx: TraceContext, node: ast.Pass) -> None:
    pass


@HANDLERS.statement(ast.Expr)
def _expression_statement(ctx: TraceContext, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant) and (
        isinstance(node.value.value, str) or node.value.value is Ellipsis
    ):
        return  # a docstring, or '...' as a placeholder body
    ctx.expr(node.value)


@HANDLERS.statement(ast.Assign)
def _assign(ctx: TraceContext, node: ast.Assign) -> None:
    value = ctx.expr(node.value)
    static = is_static_call(ctx, node.value)
    for target in node.targets:
        if static and isinstance(target, ast.Name) and ctx.find_local(target.id) is MISSING:
            ctx.bind(target.id, value)  # n = ti.static(A.n): a compile-time name, as in Taichi
        else:
            assign(ctx, target, value, node.value)


@HANDLERS.expression(ast.NamedExpr)
def _named_expression(ctx: TraceContext, node: ast.NamedExpr):
    """``(p := value)``: assigns ``p`` as ``p = value`` would, and is the new value of p."""
    assign(ctx, node.target, ctx.expr(node.value), node.value)
    return ctx.expr(node.target)


@HANDLERS.statement(ast.AnnAssign)
def _annotated_assign(ctx: TraceContext, node: ast.AnnAssign) -> None:
    annotation = static_eval(ctx, node.annotation)
    element_type = isinstance(annotation, ElementType)  # p: vec3 = ...
    dtype = None if element_type else types.to_dtype(annotation, *_defaults(ctx))
    if (dtype is None and not element_type) or not isinstance(node.target, ast.Name):
        raise ctx.error(
            TiTypeError, node, "a local annotation must name a scalar, vector or matrix type"
        )
    if node.value is None:
        raise ctx.error(TiSyntaxError, node, "an annotated local needs a value")
    name = node.target.id
    if ctx.find_local(name) is not MISSING:
        raise ctx.error(TiSyntaxError, node, f"'{name}' is already declared")
    value = ctx.expr(node.value)
    if element_type:
        declare(ctx, name, convert(ctx, annotation, value, node.value, f"'{name}'"))
    else:
        place = f"the {dtype} local '{name}'"
        precision.warn_if_lossy(ctx, value, dtype, place, node.value)
        declare(ctx, name, ctx.builder.cast(value, dtype))


@HANDLERS.statement(ast.AugAssign)
def _augmented_assign(ctx: TraceContext, node: ast.AugAssign) -> None:
    op = BINARY_OPS.get(type(node.op))
    if op is None:
        raise ctx.unsupported(node, f"the operator {type(node.op).__name__}=")
    sink = triplet_ops.sink_of(ctx, node.target)
    if sink is not None:  # A[i, j] += v on a sparse matrix builder
        triplet_ops.add_triplet(ctx, op, sink, node)
        return
    value = ctx.expr(node.value)
    target = node.target
    slot = lvalue(ctx, target)
    if slot is None:  # not a local or an element: assign() says what is wrong
        assign(ctx, target, binary(ctx, op, ctx.expr(target), value, node), node.value)
        return
    if op in _ATOMIC_AUG:
        # Taichi: '+=' is atomic, on fields and also on a kernel-scope local that a
        # parallel loop updates; codegen demotes it where no other thread sees it.
        atomic_update(ctx, op, slot, value, target, node.value)
        return
    store(ctx, slot, binary(ctx, op, load(ctx, slot), value, node), target, node.value)


def _defaults(ctx: TraceContext) -> tuple:
    return ctx.config.default_ip, ctx.config.default_fp


def assign(ctx: TraceContext, target: ast.expr, value, at: ast.AST | None = None) -> None:
    """``target = value``: declares, stores, or unpacks into several targets; ``at`` is
    the value's code (where a precision warning puts its caret)."""
    if isinstance(target, ast.Name):
        current = ctx.find_local(target.id)
        if isinstance(current, (ir.AllocaStmt, VectorVariable, StructSlots, LocalSequence)):
            # a list of locals (v = [a, b]) is refused as a whole by lvalue, as in Taichi
            store(ctx, lvalue(ctx, target), value, target, at)
        elif isinstance(current, LoopIndex):
            raise ctx.error(
                TiSyntaxError,
                target,
                f"cannot assign to loop variable '{target.id}'",
                f"copy it first: 'k = {target.id}', then change k",
            )
        elif current is MISSING:
            declare(ctx, target.id, value)
        else:
            raise ctx.error(
                TiSyntaxError,
                target,
                f"'{target.id}' is a compile-time value and cannot be assigned in a kernel",
                "use a new local name",
            )
    elif isinstance(target, (ast.Tuple, ast.List)):
        items = unpack(ctx, value, len(target.elts), target)
        parts = at.elts if isinstance(at, (ast.Tuple, ast.List)) else [at] * len(items)
        if len(parts) != len(items):
            parts = [at] * len(items)
        for element, item, part in zip(target.elts, items, parts, strict=True):
            assign(ctx, element, item, part)
    elif isinstance(target, (ast.Subscript, ast.Attribute)):
        sink = triplet_ops.sink_of(ctx, target)
        if sink is not None:
            raise triplet_ops.store_error(ctx, sink, target)
        store(ctx, lvalue(ctx, target), value, target, at)
    else:
        raise ctx.unsupported(target, f"assigning to '{ast.unparse(target)}'")
