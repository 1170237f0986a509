"""Control flow: ``if``, ``while``, ``break``/``continue``, ``return``, ``assert``.

``if ti.static(cond):`` keeps one branch while compiling; any other ``if`` or
``while`` needs an integer condition (a comparison gives one), as Taichi does. A
kernel returns once, at its top level; a parallel loop cannot ``break`` (its
iterations run at once). ``assert`` becomes a check only with ``ti.init(debug=True)``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def collatz(start: ti.i32) -> ti.i32:
    ...     n, steps = start, 0
    ...     while n != 1:
    ...         if n % 2 == 0:
    ...             n = n // 2
    ...         else:
    ...             n = 3 * n + 1
    ...         steps += 1
    ...     return steps
    >>> collatz(6)
    8
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend import compound_io
from ti_notebook.frontend.context import STATIC, TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.funcs import return_from_func
from ti_notebook.frontend.operands import check_scalar, static_condition, static_eval
from ti_notebook.frontend.struct_values import is_struct
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.compound_types import CompoundType

HANDLERS = Handlers()


@HANDLERS.statement(ast.If)
def _if(ctx: TraceContext, node: ast.If) -> None:
    static = static_condition(ctx, node.test)
    if static is not None:
        ctx.run_block(node.body if static else node.orelse)
        return
    b = ctx.builder
    if_stmt = b.emit(ir.IfStmt(_condition(ctx, node.test)))
    with ctx.nested():
        with b.inside(if_stmt.true_block):
            ctx.run_block(node.body)
        with b.inside(if_stmt.false_block):
            ctx.run_block(node.orelse)


@HANDLERS.statement(ast.While)
def _while(ctx: TraceContext, node: ast.While) -> None:
    if node.orelse:
        raise ctx.unsupported(node, "'while ... else'")
    b = ctx.builder
    loop = b.emit(ir.WhileStmt())
    with ctx.loop(loop, parallel=False), b.inside(loop.body):
        cond = _condition(ctx, node.test)
        exit_if = b.emit(ir.IfStmt(b.unary("logical_not", cond)))
        with b.inside(exit_if.true_block):
            b.emit(ir.BreakStmt())
        ctx.run_block(node.body)


def _condition(ctx: TraceContext, test: ast.expr) -> ir.Stmt:
    """An if/while condition: an integer (comparisons give i32), as Taichi requires."""
    value = ctx.expr(test)
    check_scalar(ctx, value, test)
    stmt = ctx.builder.value(value)
    if stmt.dtype.is_float:
        raise ctx.error(
            TiTypeError,
            test,
            f"a condition must be an integer, but this one is {stmt.dtype}",
            f"compare explicitly, e.g. '{ast.unparse(test)} != 0'",
        )
    return ctx.builder.truth(stmt)


@HANDLERS.statement(ast.Break)
def _break(ctx: TraceContext, node: ast.Break) -> None:
    _check_in_loop(ctx, node, "break")
    _loop, parallel = ctx.state.loops[-1]
    if parallel:
        raise ctx.error(
            TiSyntaxError,
            node,
            "'break' in an outermost (parallel) for loop",
            "iterations of a parallel loop run at once; add "
            "'ti.loop_config(serialize=True)' before the loop to run it serially",
        )
    ctx.builder.emit(ir.BreakStmt())


@HANDLERS.statement(ast.Continue)
def _continue(ctx: TraceContext, node: ast.Continue) -> None:
    _check_in_loop(ctx, node, "continue")
    ctx.builder.emit(ir.ContinueStmt())


def _check_in_loop(ctx: TraceContext, node: ast.AST, word: str) -> None:
    loops = ctx.state.loops
    if not loops or loops[-1][0] == STATIC:
        raise ctx.error(
            TiSyntaxError,
            node,
            f"'{word}' outside a loop" if not loops else f"'{word}' in ti.static",
            "ti.static loops are unrolled at compile time; use a plain range",
        )


@HANDLERS.statement(ast.Return)
def _return(ctx: TraceContext, node: ast.Return) -> None:
    if not ctx.frame.is_kernel:
        return_from_func(ctx, node)
        return
    state = ctx.state
    if not ctx.outermost:
        raise ctx.error(
            TiSyntaxError,
            node,
            "'return' inside a loop or if of a kernel",
            "store the result in a local and return it at the end of the kernel",
        )
    if state.return_type is None:
        if node.value is None:
            state.returned = True
            return
        raise ctx.error(
            TiTypeError,
            node,
            "this kernel returns a value but has no return annotation",
            "annotate it, e.g. 'def f() -> ti.i32:'",
        )
    if node.value is None:
        raise ctx.error(TiTypeError, node, "this kernel must return a value")
    value = ctx.expr(node.value)
    if isinstance(state.return_type, CompoundType):  # a vector, struct or tuple
        compound_io.emit_return(ctx, value, state.return_type, node)
        state.returned = True
        return
    if isinstance(value, (Vector, tuple, list)) or is_struct(value):
        raise ctx.error(
            TiTypeError,
            node.value,
            f"this kernel returns one scalar ({state.return_type})",
            "annotate the return type to return more: '-> ti.types.vector(3, ti.f32)', "
            "a struct type, or '-> tuple[ti.i32, ti.f32]'",
        )
    value = ctx.builder.cast(value, state.return_type)
    ctx.builder.emit(ir.ReturnStmt(value))
    state.returned = True


@HANDLERS.statement(ast.Assert)
def _assert(ctx: TraceContext, node: ast.Assert) -> None:
    if not ctx.config.debug:
        return
    cond = ctx.builder.truth(ctx.expr(node.test))
    message = "assertion failed"
    if node.msg is not None:
        message = str(static_eval(ctx, node.msg))
    ctx.builder.emit(ir.AssertStmt(cond, message, [], kind="assert"))
