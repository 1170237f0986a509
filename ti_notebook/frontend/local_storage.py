"""``ti.block_local(*fields)``: asks ``make_block_local`` to cache fields per block.

It is written on the line before a struct-for over a field (the form Taichi's
documentation shows) or as the first line of its body; the pass
(``passes/make_block_local.py``) does the rest.
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import KernelState, TraceContext
from ti_notebook.frontend.descriptors import describe
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.refs import FieldRef
from ti_notebook.lang import ops
from ti_notebook.lang.field import Field

HANDLERS = Handlers()


@HANDLERS.call(ops.block_local)
def _block_local(ctx: TraceContext, node: ast.Call):
    if node.keywords or not node.args:
        raise ctx.error(TiTypeError, node, "ti.block_local() takes one or more fields")
    fields = []
    for arg in node.args:
        value = ctx.expr(arg)
        components = getattr(value, "components", None)
        if components is not None:
            fields.extend(describe(component) for component in components)
        elif isinstance(value, Field):
            fields.append(describe(value))
        else:
            raise ctx.error(
                TiTypeError,
                arg,
                f"ti.block_local() caches fields, not {type(value).__name__}",
                "pass the field itself: ti.block_local(a)",
            )
    loops = ctx.state.loops
    innermost = loops[-1][0] if loops else None
    if isinstance(innermost, ir.StructForStmt) and isinstance(innermost.field, FieldRef):
        ctx.builder.emit(ir.BlockLocalStmt(fields))
        return
    # As in Taichi's documentation: written before a loop, it applies to the next one.
    ctx.state.pending_block_local = (fields, ctx.pos(node))


def attach_pending(state: KernelState, loop: ir.Stmt, builder) -> None:
    """Emits a ``ti.block_local`` written before ``loop`` as the loop body's first
    statement; called as each loop's body starts."""
    pending = state.pending_block_local
    if pending is None:
        return
    state.pending_block_local = None
    fields, pos = pending
    if not isinstance(loop, ir.StructForStmt) or not isinstance(loop.field, FieldRef):
        raise _misplaced(pos)
    stmt = builder.emit(ir.BlockLocalStmt(fields))
    stmt.pos = pos


def check_none_pending(state: KernelState) -> None:
    """At the end of a kernel: a ``ti.block_local`` with no loop after it is an error."""
    if state.pending_block_local is not None:
        _fields, pos = state.pending_block_local
        state.pending_block_local = None
        raise _misplaced(pos)


def _misplaced(pos) -> TiSyntaxError:
    return TiSyntaxError(
        "ti.block_local() applies to a struct-for over a field, written on the line "
        "before the loop or as the loop's first line",
        pos,
        "e.g. ti.block_local(a) followed by `for i, j in a:`",
    )
