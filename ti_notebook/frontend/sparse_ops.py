"""``ti.is_active``, ``ti.activate`` and ``ti.deactivate`` inside kernels.

They take a ``pointer`` or ``bitmasked`` SNode and an index in that node's own index
space (``node.shape``): a list, a tuple, a vector or, for a 1-D node, a scalar.
``ti.deactivate`` of a ``dynamic`` node takes the index of a list and empties it; as in
Taichi, ``ti.is_active``/``ti.activate`` refuse a dynamic node.

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
from ti_notebook.lang import snode_ops, types
from ti_notebook.lang.dynamic import list_shape
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
        if snode.kind == "dynamic" and op == "deactivate":  # empties a list
            shape = list_shape(snode)
            indices = node_indices(ctx, node.args[1], shape, name, f"the lists of {snode.name}")
            ctx.state.captured.setdefault(("snode", id(snode)), snode)
            ctx.builder.emit(ir.SNodeOpStmt(op, describe(snode), indices, None, shape))
            return None
        if snode.kind not in ("pointer", "bitmasked"):
            hint = "a dense cell is always active; ask its sparse ancestor instead"
            if snode.kind == "dynamic":
                hint = (
                    "a dynamic list's cells [0, ti.length(node, i)) are active: test "
                    "j < ti.length(node, i); ti.append adds a cell"
                )
            raise ctx.error(
                TiTypeError,
                node.args[0],
                f"{name}() works on pointer and bitmasked nodes, not on a {snode.kind} node",
                hint,
            )
        indices = node_indices(ctx, node.args[1], snode.shape, name, f"a {snode.ndim}-D node")
        dtype = types.i32 if op == "is_active" else None
        ctx.state.captured.setdefault(("snode", id(snode)), snode)
        result = ctx.builder.emit(ir.SNodeOpStmt(op, describe(snode), indices, dtype))
        return result if op == "is_active" else None

    return handler


def node_indices(
    ctx: TraceContext, arg: ast.expr, shape: tuple[int, ...], name: str, what: str
) -> list:
    """The indices (i32) ``arg`` gives: a list, a tuple, a vector or, for one axis, a
    scalar; exactly one per axis of ``shape``."""
    value = ctx.expr(arg)
    if value is None:
        items: list = []
    elif isinstance(value, (Vector, list, tuple)):
        items = list(value)
    else:
        items = [value]
    if len(items) != len(shape):
        raise ctx.error(
            TiTypeError,
            arg,
            f"{name}() got {len(items)} index(es) for {what} of shape {tuple(shape)}",
            "indices are in the node's own index space, one per axis"
            + ("" if shape else " ([] for a list directly under ti.root)"),
        )
    for item in items:
        check_scalar(ctx, item, arg)
    return [ctx.builder.cast(item, types.i32) for item in items]


HANDLERS.call(snode_ops.is_active)(_snode_op("is_active"))
HANDLERS.call(snode_ops.activate)(_snode_op("activate"))
HANDLERS.call(snode_ops.deactivate)(_snode_op("deactivate"))
