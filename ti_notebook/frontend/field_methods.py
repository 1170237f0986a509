"""Methods of fields, SNodes and ndarrays called inside a kernel.

``x.fill(v)`` becomes a loop of the kernel, written where the call is, as if the kernel
said ``for I in ti.grouped(x): x[I] = v``: it runs at every launch (not once, while
compiling, which made what a launch did depend on the offline cache), a vector or
matrix field takes a scalar for every component or a whole vector, and a sparse field
gets Taichi's semantics (only the active cells). ``v`` is evaluated once, before the
loop.

The other methods move data between Python and the device (``to_numpy``,
``from_numpy``, ``deactivate_all``, ...): inside a kernel they are an error at their
line, never run while compiling. Pure questions about the layout (``x.parent()``,
``x.snode.parent(2)``) stay compile-time values.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=4)
    >>> @ti.kernel
    ... def reset(v: ti.i32):
    ...     x.fill(v + 1)
    >>> reset(6)
    >>> x.to_numpy().tolist()
    [7, 7, 7, 7]
"""

from __future__ import annotations

import ast
import inspect

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.assignments import declare
from ti_notebook.frontend.context import TraceContext
from ti_notebook.lang import ops
from ti_notebook.lang.field import Field
from ti_notebook.lang.matrix import MatrixField
from ti_notebook.lang.ndarray import Ndarray
from ti_notebook.lang.snode import FieldsBuilder, SNode
from ti_notebook.lang.snode_tree import SNodeTree
from ti_notebook.lang.struct_field import StructField

_CONTAINERS = (Field, MatrixField, StructField, SNode, Ndarray, SNodeTree, FieldsBuilder)
_QUERIES = {"parent", "path", "layout", "plan", "label", "component_layouts", "get_member_field"}
_FIELD, _INDEX, _VALUE, _GROUPED = "__ti_fill_field__", "__ti_fill_I__", "__ti_fill_v__", "__ti_g__"


def is_container_method(func) -> bool:
    """A method of a field, SNode or ndarray that is not a pure layout question."""
    return (
        inspect.ismethod(func)
        and isinstance(func.__self__, _CONTAINERS)
        and func.__name__ not in _QUERIES
    )


def call(ctx: TraceContext, func, node: ast.Call):
    """``x.fill(v)`` as a loop; any other such method: an error at its line."""
    target = func.__self__
    if func.__name__ == "fill" and isinstance(target, (Field, MatrixField)):
        return _fill(ctx, target, node)
    raise ctx.error(
        TiSyntaxError,
        node,
        f"'{ast.unparse(node.func)}()' can only be called from Python scope",
        "call it before or after the kernel, from Python; inside a kernel, write the loop "
        "(e.g. 'for I in ti.grouped(x): x[I] = ...')",
    )


def _fill(ctx: TraceContext, target, node: ast.Call) -> None:
    if len(node.args) != 1 or node.keywords:
        raise ctx.error(TiTypeError, node, f"{ast.unparse(node.func)}() takes one value")
    value = ctx.expr(node.args[0])
    # A 0-D field has one cell and no loop: x[None] = v.
    index = ast.Constant(None) if target.ndim == 0 else ast.Name(_INDEX, ast.Load())
    store = ast.Assign(
        [ast.Subscript(ast.Name(_FIELD, ast.Load()), index)], ast.Name(_VALUE, ast.Load())
    )
    code = store
    if target.ndim:
        grouped = ast.Call(ast.Name(_GROUPED, ast.Load()), [ast.Name(_FIELD, ast.Load())], [])
        code = ast.For(ast.Name(_INDEX, ast.Store()), grouped, [store], [])
    # Every synthetic node sits at the call, so an error in the loop points at it.
    for child in ast.walk(code):
        ast.copy_location(child, node)
    with ctx.scope(remember=False):
        ctx.bind(_FIELD, target)
        ctx.bind(_GROUPED, ops.grouped)
        declare(ctx, _VALUE, value)
        ctx.stmt(code)
