"""Expressions that name values: literals, names, tuples, attributes, subscripts.

A name is looked up in the block scopes, then the function's closure, globals and
builtins (every Python-level read is recorded for the offline cache,
``frontend/recorder.py``); an attribute of a Python object is read while compiling.
A subscript reads a field's or an ndarray's element, a component of a kernel vector
or an item of a Python tuple.

    >>> import ti_notebook as ti
    >>> import types
    >>> ti.init(arch=ti.cpu)
    >>> params = types.SimpleNamespace(scale=3, offsets=(10, 20))
    >>> x = ti.field(ti.i32, shape=4)
    >>> @ti.kernel
    ... def scaled(a: ti.types.ndarray()) -> ti.i32:
    ...     x[1] = a.shape[0]
    ...     return x[1] * params.scale + params.offsets[1]
    >>> import numpy as np
    >>> scaled(np.zeros(5, np.int32))
    35
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiError, TiIndexError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import structs
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.matrix_constructors import kernel_constructor
from ti_notebook.frontend.numpy_globals import array_subscript, is_array
from ti_notebook.frontend.operands import static_eval
from ti_notebook.frontend.places import load, lvalue, read, struct_element
from ti_notebook.frontend.pointers import (
    index_values,
    is_matrix_field,
    is_matrix_ndarray,
    load_matrix,
    ndarray_element_slots,
    subscript_pointer,
)
from ti_notebook.frontend.starred import display_items
from ti_notebook.frontend.struct_values import is_struct
from ti_notebook.frontend.values import NdarrayArg, Vector
from ti_notebook.frontend.vectors import vector_attribute, vector_element
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types
from ti_notebook.lang.struct_field import StructField

HANDLERS = Handlers()


@HANDLERS.expression(ast.Constant)
def _constant(ctx: TraceContext, node: ast.Constant):
    if isinstance(node.value, (bool, int, float, str)) or node.value is None:
        return node.value
    raise ctx.unsupported(node, f"the constant {node.value!r}")


@HANDLERS.expression(ast.Name)
def _name(ctx: TraceContext, node: ast.Name):
    return read(ctx, ctx.lookup(node.id, node))


@HANDLERS.expression(ast.Tuple)
def _tuple(ctx: TraceContext, node: ast.Tuple):
    return tuple(display_items(ctx, node.elts))


@HANDLERS.expression(ast.List)
def _list(ctx: TraceContext, node: ast.List):
    return display_items(ctx, node.elts)


@HANDLERS.expression(ast.Dict)
def _dict(ctx: TraceContext, node: ast.Dict):
    """A dict display (for ``f(**{...})``): keys known at compile time."""
    result = {}
    for key_node, value_node in zip(node.keys, node.values, strict=True):
        if key_node is None:  # {**other}
            other = ctx.expr(value_node)
            if not isinstance(other, dict):
                raise ctx.error(TiTypeError, value_node, "'**' in a dict needs a dict", "{**d}")
            result.update(other)
            continue
        key = ctx.expr(key_node)
        if isinstance(key, (ir.Stmt, Vector)):
            raise ctx.error(
                TiTypeError,
                key_node,
                "a dict's keys must be known at compile time",
                "use strings or numbers as keys",
            )
        result[key] = ctx.expr(value_node)
    return result


class ElementShape(tuple):
    """An ndarray argument's ``element_shape``: a tuple (``a.element_shape[0]``) that
    Taichi code also calls, ``a.element_shape() == [2]`` (a list, as Taichi's gives).

    >>> ElementShape((2,))[0], ElementShape((2,))() == [2]
    (2, True)
    """

    def __call__(self) -> list:
        return list(self)


@HANDLERS.expression(ast.Attribute)
def _attribute(ctx: TraceContext, node: ast.Attribute):
    base = ctx.expr(node.value)
    if isinstance(base, NdarrayArg):
        if node.attr == "shape":
            b = ctx.builder
            return tuple(
                b.emit(ir.ExternalShapeStmt(base.arg_index, axis, types.i32))
                for axis in range(base.ndim)
            )
        if node.attr == "dtype":
            return base.dtype
        if node.attr == "element_shape":  # () for scalars, (n,) or (n, m) for matrices
            return ElementShape(base.element_shape)
        raise ctx.error(TiSyntaxError, node, f"ndarray arguments have no '.{node.attr}'")
    if isinstance(base, Vector):
        return vector_attribute(ctx, base, node)
    if is_struct(base):
        return structs.member(ctx, base, node)
    if isinstance(base, ir.Stmt):
        raise ctx.error(TiSyntaxError, node, f"a kernel value has no attribute '{node.attr}'")
    if isinstance(base, type) and kernel_constructor(base, node.attr) is not None:
        return kernel_constructor(base, node.attr)  # ti.Matrix.zero: the kernel-scope one
    try:
        value = getattr(base, node.attr)
    except AttributeError as error:
        if isinstance(error, TiError):  # it says more (x.grad: declare with needs_grad)
            raise ctx.error(type(error), node, error.message, error.hint) from None
        raise ctx.error(
            TiSyntaxError, node, f"'{ast.unparse(node.value)}' has no attribute '{node.attr}'"
        ) from None
    except TiError as error:  # a refusal without a place (x.grad): point at the attribute
        if error.pos is not None:
            raise
        raise ctx.error(type(error), node, error.message, error.hint) from None
    ctx.state.reads.attribute(base, node.attr, value, node)  # Params.scale, cfg.N
    return value


@HANDLERS.expression(ast.Subscript)
def _subscript(ctx: TraceContext, node: ast.Subscript):
    inner = node.value
    if (
        isinstance(inner, ast.Subscript)
        and isinstance(inner.value, (ast.Name, ast.Attribute))
        and is_matrix_field(ctx.expr(inner.value))
    ):
        # v[i][k]: load the one component, not the whole element first
        return load(ctx, lvalue(ctx, node))
    base = ctx.expr(node.value)
    if isinstance(base, Vector):
        return vector_element(ctx, base, node)
    if is_array(base):  # a NumPy array from Python scope
        return array_subscript(ctx, base, node)
    if is_matrix_field(base):
        return load_matrix(ctx, base, index_values(ctx, node.slice), node)
    if is_matrix_ndarray(base):
        return load(ctx, ndarray_element_slots(ctx, base, index_values(ctx, node.slice), node))
    if isinstance(base, StructField):
        return struct_element(ctx, base, index_values(ctx, node.slice), node)
    if is_struct(base):
        raise ctx.error(
            TiTypeError, node, f"'{ast.unparse(node.value)}' is a struct and cannot be indexed"
        )
    if isinstance(base, (tuple, list)):
        index = static_eval(ctx, node.slice)
        if not isinstance(index, int):
            raise ctx.error(
                TiIndexError, node.slice, "a vector index must be a compile-time integer"
            )
        try:
            return base[index]
        except IndexError:
            raise ctx.error(
                TiIndexError, node.slice, f"index {index} out of range for size {len(base)}"
            ) from None
    if isinstance(base, dict):  # params["dt"]: a compile-time lookup
        key = static_eval(ctx, node.slice)
        if key not in base:
            raise ctx.error(
                TiIndexError, node.slice, f"'{ast.unparse(node.value)}' has no key {key!r}"
            )
        return base[key]
    indices = index_values(ctx, node.slice)
    ptr = subscript_pointer(ctx, base, indices, node)
    return ctx.builder.emit(ir.GlobalLoadStmt(ptr))
