"""``a if cond else b``: only the chosen side runs, as in Python and Taichi.

With ``ti.static(cond)``, or any condition known while compiling, only that side is
traced. Otherwise both sides are traced into the two blocks of an ``if``; when neither
side can fault or has an effect (arithmetic on values already computed), the blocks
are spliced back and the result is a branch-free select, else the ``if`` stays and
each side stores into a local. So a guard protects what it guards:
``x[i] if 0 <= i < n else 0`` never reads ``x[-1]`` (Taichi's game of life relies on
it), and a ``ti.func`` called on one side runs only when that side is chosen (Python's
rule; Taichi 1.7 inlines, and so runs, the funcs of both sides).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=4)
    >>> @ti.kernel
    ... def get(i: ti.i32) -> ti.i32:
    ...     return x[i] + 1 if 0 <= i < 4 else -1
    >>> get(2), get(-1), get(4)
    (1, -1, -1)
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import as_vector, check_scalar, static_condition
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types

HANDLERS = Handlers()
# Statements that may run although their side was not chosen: no fault, no effect.
# (Integer division by zero gives 0 in kernels, so BinaryOp is safe.)
_SPECULATABLE = (
    ir.ConstStmt,
    ir.ArgLoadStmt,
    ir.ExternalShapeStmt,
    ir.BinaryOpStmt,
    ir.UnaryOpStmt,
    ir.CastStmt,
    ir.SelectStmt,
    ir.LoopIndexStmt,
    ir.LocalLoadStmt,
)


@HANDLERS.expression(ast.IfExp)
def _if_expression(ctx: TraceContext, node: ast.IfExp):
    static = static_condition(ctx, node.test)
    if static is not None:
        return ctx.expr(node.body if static else node.orelse)
    cond = ctx.expr(node.test)
    if not isinstance(cond, (ir.Stmt, Vector)):  # known while compiling: one side only
        return ctx.expr(node.body if cond else node.orelse)
    if isinstance(cond, Vector):
        raise ctx.error(
            TiTypeError,
            node.test,
            "the condition of 'a if cond else b' is a vector",
            "choose per component with ti.select(cond, a, b), or reduce the condition "
            "with all(...) or any(...)",
        )
    check_scalar(ctx, cond, node.test)
    b = ctx.builder
    branch = ir.IfStmt(b.truth(cond))
    branch.pos = b.pos
    with ctx.nested():
        with b.inside(branch.true_block):
            chosen = ctx.expr(node.body)
        with b.inside(branch.false_block):
            other = ctx.expr(node.orelse)
    chosen, other, shape = _components(ctx, chosen, other, node)
    if all(isinstance(s, _SPECULATABLE) for s in branch.true_block.walk()) and all(
        isinstance(s, _SPECULATABLE) for s in branch.false_block.walk()
    ):
        for stmt in [*branch.true_block.stmts, *branch.false_block.stmts]:
            b.block.append(stmt)
        values = [b.select(branch.cond, x, y) for x, y in zip(chosen, other, strict=True)]
    else:
        values = _through_locals(ctx, branch, chosen, other)
    return values[0] if shape is None else Vector(values, shape)


def _components(ctx: TraceContext, chosen, other, node: ast.IfExp):
    """Both sides as lists of scalars, and the vector shape (None for scalars)."""
    vectors = [v for v in (chosen, other) if isinstance(v, Vector)]
    if not vectors:
        for side, where in ((chosen, node.body), (other, node.orelse)):
            check_scalar(ctx, side, where)
        return [chosen], [other], None
    shape = vectors[0].shape
    if any(v.shape != shape for v in vectors):
        raise ctx.error(
            TiTypeError,
            node,
            f"the two sides of 'a if cond else b' have shapes {chosen.shape} and {other.shape}",
            "both sides must be vectors/matrices of one shape (or scalars)",
        )
    size = len(vectors[0])
    return as_vector(ctx, chosen, size, node), as_vector(ctx, other, size, node), shape


def _through_locals(ctx: TraceContext, branch: ir.IfStmt, chosen: list, other: list) -> list:
    """Keeps the ``if``: each side stores its values into locals read after it."""
    b = ctx.builder
    allocas = []
    for x, y in zip(chosen, other, strict=True):
        dtype = types.promote(_dtype(b, x), _dtype(b, y))
        allocas.append(b.emit(ir.AllocaStmt(dtype, "if_value")))
    b.emit(branch)
    for block, values in ((branch.true_block, chosen), (branch.false_block, other)):
        with b.inside(block):
            for alloca, value in zip(allocas, values, strict=True):
                b.emit(ir.LocalStoreStmt(alloca, b.cast(value, alloca.dtype)))
    return [b.emit(ir.LocalLoadStmt(alloca)) for alloca in allocas]


def _dtype(b, value) -> types.DataType:
    return value.dtype if isinstance(value, ir.Stmt) else b.literal_type(value)
