"""``ti.is_active``, ``ti.activate`` and ``ti.deactivate`` inside kernels.

They take a ``pointer`` or ``bitmasked`` SNode and an index in that node's own index
space (``node.shape``): a list, a tuple, a vector or, for a 1-D node, a scalar.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> blk = ti.root.pointer(ti.i, 4)
    >>> blk.dense(ti.i, 8).place(x)
    <ti.SNode dense>
    >>> @ti.kernel
    ... def probe() -> ti.i32:
    ...     x[9] = 1  # in block 1
    ...     return ti.is_active(blk, 1) * 10 + ti.is_active(blk, [2])
    >>> probe()
    10
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.descriptors import describe
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types
from ti_notebook.lang.snode import SNode

HANDLERS = Handlers()


def _snode_op(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        name = f"ti.{op}"
        if len(node.args) != 2 or node.keywords:
            raise ctx.error(TiTypeError, node, f"{name}() takes (snode, indices)")
        snode = ctx.expr(node.args[0])
        if not isinstance(snode, SNode):
            raise ctx.error(
                TiTypeError,
                node.args[0],
                f"{name}() needs an SNode, got {type(snode).__name__}",
                "pass the pointer/bitmasked node, e.g. x.snode.parent()",
            )
        if snode.kind not in ("pointer", "bitmasked"):
            raise ctx.error(
                TiTypeError,
                node.args[0],
                f"{name}() works on pointer and bitmasked nodes, not on a {snode.kind} node",
                "a dense cell is always active; ask its sparse ancestor instead",
            )
        indices = _indices(ctx, node.args[1], snode, name)
        dtype = types.i32 if op == "is_active" else None
        ctx.state.captured.setdefault(("snode", id(snode)), snode)
        result = ctx.builder.emit(ir.SNodeOpStmt(op, describe(snode), indices, dtype))
        return result if op == "is_active" else None

    return handler


def _indices(ctx: TraceContext, arg: ast.expr, snode: SNode, name: str) -> list:
    value = ctx.expr(arg)
    items = list(value) if isinstance(value, (Vector, list, tuple)) else [value]
    if len(items) != snode.ndim:
        raise ctx.error(
            TiTypeError,
            arg,
            f"{name}() got {len(items)} index(es) for a {snode.ndim}-D node of shape {snode.shape}",
            "indices are in the node's own index space, one per axis",
        )
    for item in items:
        check_scalar(ctx, item, arg)
    return [ctx.builder.cast(item, types.i32) for item in items]


HANDLERS.call(ops.is_active)(_snode_op("is_active"))
HANDLERS.call(ops.activate)(_snode_op("activate"))
HANDLERS.call(ops.deactivate)(_snode_op("deactivate"))
