"""SNode builtins in kernels: dynamic lists, addresses, index rescaling, ``no_activate``.

- ``ti.append(node, I, v)`` / ``x[I].append(v)`` (``x.append(v)`` for a list under
  ``ti.root``): appends to list ``I`` of a dynamic node, one value per field component
  placed in it (a vector for a vector field); the value is the list's old length;
- ``ti.length(node, I)`` / ``x[I].length()``; ``x[I].deactivate()`` empties the list
  (as ``ti.deactivate(node, I)``, ``frontend/sparse_ops.py``);
- ``ti.get_addr(f, I)``: the u64 address of element ``I`` of a field, from the memory
  plan (of an SNode that holds no field, as in Taichi: the block of its cells holding
  cell ``I``);
- ``ti.rescale_index(a, b, I)``: index ``I`` of ``a`` in ``b``'s index space;
- ``ti.no_activate(*fields)``: writes to them in this kernel activate nothing
  (``passes/no_activate.py``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> ti.root.dense(ti.i, 4).dynamic(ti.j, 8).place(x)
    <ti.SNode dynamic>
    >>> @ti.kernel
    ... def fill() -> ti.i32:
    ...     for i in range(4):
    ...         for j in range(i):
    ...             x[i].append(j * 10)
    ...     return ti.length(x.parent(), 3) * 100 + x[2].length()
    >>> fill(), x.to_numpy()[3, :4].tolist()
    (302, [0, 10, 20, 0])
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiError, TiIndexError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.descriptors import describe
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.pointers import index_values
from ti_notebook.frontend.sparse_ops import node_indices
from ti_notebook.frontend.struct_values import StructValue
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import snode_ops, types
from ti_notebook.lang.dynamic import list_shape
from ti_notebook.lang.field import Field
from ti_notebook.lang.matrix import MatrixField
from ti_notebook.lang.snode import SNode
from ti_notebook.lang.struct_field import StructField

HANDLERS = Handlers()
LIST_METHODS = ("append", "length", "deactivate")
NOT_A_LIST_METHOD = object()


def _dynamic_node(ctx: TraceContext, arg: ast.expr, name: str) -> SNode:
    snode = ctx.expr(arg)
    if not isinstance(snode, SNode) or snode.kind != "dynamic":
        what = f"a {snode.kind} node" if isinstance(snode, SNode) else type(snode).__name__
        raise ctx.error(
            TiTypeError,
            arg,
            f"{name}() works on dynamic nodes only, not on {what}",
            "declare the list with ti.root.dense(ti.i, n).dynamic(ti.j, m).place(x) and "
            "pass its node, x.parent()",
        )
    ctx.state.captured.setdefault(("snode", id(snode)), snode)
    return snode


def _list_indices(ctx, items: list, snode: SNode, name: str, node: ast.AST) -> list:
    shape = list_shape(snode)
    if len(items) != len(shape):
        raise ctx.error(
            TiIndexError,
            node,
            f"{name} got {len(items)} index(es) for the lists of {snode.name}, which are "
            f"indexed {len(shape)}-D (shape {shape})",
            "give the index of the list, without the position in it"
            + (" (none for a list directly under ti.root)" if not shape else ""),
        )
    for item in items:
        check_scalar(ctx, item, node)
    return [ctx.builder.cast(item, types.i32) for item in items]


def _append(ctx: TraceContext, snode: SNode, indices: list, value, node: ast.AST):
    fields = [leaf.field for leaf in snode.children if leaf.kind == "place"]
    items = _scalars_of(value)
    if len(items) != len(fields):
        raise ctx.error(
            TiTypeError,
            node,
            f"ti.append() got {len(items)} value(s) for the {len(fields)} field component(s) "
            f"placed in {snode.name}",
            "append one value per component: a ti.Vector for a vector field, or "
            "ti.Vector([a, b]) for place(x, y)",
        )
    values = []
    for field, item in zip(fields, items, strict=True):
        check_scalar(ctx, item, node)
        values.append(ctx.builder.cast(item, field.dtype))
        ctx.state.captured.setdefault(("field", id(field)), field)
    refs = tuple(describe(field) for field in fields)
    stmt = ir.SNodeOpStmt(
        "append", describe(snode), indices, types.i32, list_shape(snode), refs, values
    )
    return ctx.builder.emit(stmt)


def _scalars_of(value) -> list:
    """The scalars a value appends, in placement order: a struct's members in order
    (a struct field places its members' components that way), a vector's row-major."""
    if isinstance(value, StructValue):
        return [item for member in value.members.values() for item in _scalars_of(member)]
    if isinstance(value, (Vector, list, tuple)):
        return [item for part in value for item in _scalars_of(part)]
    return [value]


def _length(ctx: TraceContext, snode: SNode, indices: list):
    stmt = ir.SNodeOpStmt("length", describe(snode), indices, types.i32, list_shape(snode))
    return ctx.builder.emit(stmt)


@HANDLERS.call(snode_ops.append)
def _append_call(ctx: TraceContext, node: ast.Call):
    if len(node.args) != 3 or node.keywords:
        raise ctx.error(TiTypeError, node, "ti.append() takes (node, indices, value)")
    snode = _dynamic_node(ctx, node.args[0], "ti.append")
    shape = list_shape(snode)
    indices = node_indices(ctx, node.args[1], shape, "ti.append", f"the lists of {snode.name}")
    return _append(ctx, snode, indices, ctx.expr(node.args[2]), node.args[2])


@HANDLERS.call(snode_ops.length)
def _length_call(ctx: TraceContext, node: ast.Call):
    if len(node.args) != 2 or node.keywords:
        raise ctx.error(TiTypeError, node, "ti.length() takes (node, indices)")
    snode = _dynamic_node(ctx, node.args[0], "ti.length")
    shape = list_shape(snode)
    indices = node_indices(ctx, node.args[1], shape, "ti.length", f"the lists of {snode.name}")
    return _length(ctx, snode, indices)


def list_method(ctx: TraceContext, node: ast.Call):
    """``x[I].append(v)``, ``x[I].length()``, ``x[I].deactivate()`` (``x.append(v)``...
    for a list under ``ti.root``) on a field placed in a dynamic node; anything else
    gives ``NOT_A_LIST_METHOD`` without tracing anything."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in LIST_METHODS:
        return NOT_A_LIST_METHOD
    target, index = func.value, None
    if isinstance(target, ast.Subscript):
        target, index = target.value, target.slice
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return NOT_A_LIST_METHOD
    base = ctx.expr(target)
    if not isinstance(base, (Field, MatrixField, StructField)):
        return NOT_A_LIST_METHOD
    try:
        snode = base.parent()
    except TiError:  # not placed: the usual path reports it
        return NOT_A_LIST_METHOD
    if snode is None or snode.kind != "dynamic":
        return NOT_A_LIST_METHOD
    ctx.state.captured.setdefault(("snode", id(snode)), snode)
    name = f"{ast.unparse(func)}()"
    items = index_values(ctx, index) if index is not None else []
    indices = _list_indices(ctx, items, snode, name, func.value)
    wanted = 1 if func.attr == "append" else 0
    if len(node.args) != wanted or node.keywords:
        raise ctx.error(TiTypeError, node, f"{name} takes {wanted} argument(s)")
    if func.attr == "append":
        return _append(ctx, snode, indices, ctx.expr(node.args[0]), node.args[0])
    if func.attr == "length":
        return _length(ctx, snode, indices)
    stmt = ir.SNodeOpStmt("deactivate", describe(snode), indices, None, list_shape(snode))
    ctx.builder.emit(stmt)
    return None


@HANDLERS.call(snode_ops.get_addr)
def _get_addr(ctx: TraceContext, node: ast.Call):
    if len(node.args) != 2 or node.keywords:
        raise ctx.error(TiTypeError, node, "ti.get_addr() takes (field, indices)")
    target = ctx.expr(node.args[0])
    if isinstance(target, SNode) and target.kind == "place":
        target = target.field  # x.snode: the field's own elements
    if not isinstance(target, (Field, SNode)) or getattr(target, "kind", "") == "root":
        raise ctx.error(
            TiTypeError,
            node.args[0],
            f"ti.get_addr() needs a scalar field or an SNode, got {type(target).__name__}",
            "a vector field is one field per component; ask a scalar field's element, "
            "e.g. ti.get_addr(x, [i, j]), or its SNode: ti.get_addr(v.snode.parent(), [i])",
        )
    ref = describe(target)
    key = ("field" if isinstance(target, Field) else "snode", id(target))
    ctx.state.captured.setdefault(key, target)
    indices = node_indices(ctx, node.args[1], ref.shape, "ti.get_addr", f"'{ref.name}'")
    if isinstance(target, SNode):
        return _block_address(ctx, target, indices)
    return ctx.builder.emit(ir.SNodeOpStmt("get_addr", ref, indices, types.u64))


def _block_address(ctx: TraceContext, snode: SNode, indices: list):
    """Taichi's ``ti.get_addr(node, I)`` for a node that is not a field: the address of
    the block of the node's cells holding cell ``I`` (the cell of its parent)."""
    b = ctx.builder
    parent = snode.parent()
    if parent.kind == "root":  # one block: the node's first cell
        zeros = [b.const(0, types.i32) for _ in indices]
        return b.emit(ir.SNodeOpStmt("get_addr", describe(snode), zeros, types.u64))
    ctx.state.captured.setdefault(("snode", id(parent)), parent)
    outer = parent.shape
    scaled = []
    for axis, index in enumerate(indices[: len(outer)]):
        ratio = snode.shape[axis] // outer[axis]
        scaled.append(b.binary("floordiv", index, ratio) if ratio > 1 else index)
    cell = b.emit(ir.SNodeOpStmt("get_addr", describe(parent), scaled, types.u64))
    offset = snode.level_plan.offset
    return b.binary("add", cell, b.const(offset, types.u64)) if offset else cell


@HANDLERS.call(snode_ops.rescale_index)
def _rescale_index(ctx: TraceContext, node: ast.Call):
    if len(node.args) != 3 or node.keywords:
        raise ctx.error(TiTypeError, node, "ti.rescale_index() takes (a, b, I)")
    a, b = ctx.expr(node.args[0]), ctx.expr(node.args[1])
    value = ctx.expr(node.args[2])
    items = list(value) if isinstance(value, (Vector, list, tuple)) else [value]
    try:
        factors = snode_ops.rescale_factors(a, b)
    except TiTypeError as error:
        raise ctx.error(TiTypeError, node, error.message, error.hint) from None
    result = []
    for axis, item in enumerate(items):
        check_scalar(ctx, item, node.args[2])
        how, k = factors[axis] if axis < len(factors) else ("keep", 1)
        if how == "div":
            item = ctx.builder.binary("floordiv", item, k)
        elif how == "mul":
            item = ctx.builder.binary("mul", item, k)
        result.append(item)
    return Vector(result)


@HANDLERS.call(snode_ops.no_activate)
def _no_activate(ctx: TraceContext, node: ast.Call):
    if node.keywords:
        raise ctx.error(TiTypeError, node, "ti.no_activate() takes fields only")
    for arg in node.args:
        value = ctx.expr(arg)
        if isinstance(value, SNode):
            fields = [n.field for n in _walk(value) if n.kind == "place"]
        elif isinstance(value, MatrixField):
            fields = list(value.components)
        elif isinstance(value, Field):
            fields = [value]
        else:
            raise ctx.error(
                TiTypeError,
                arg,
                f"ti.no_activate() takes fields or SNodes, not {type(value).__name__}",
                "pass the fields the kernel writes, e.g. ti.no_activate(x)",
            )
        for field in fields:
            ctx.state.captured.setdefault(("field", id(field)), field)
            ctx.state.no_activate.add(describe(field))
    return None


def _walk(snode: SNode):
    yield snode
    for child in snode.children:
        yield from _walk(child)
