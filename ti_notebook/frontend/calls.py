"""Calls inside kernels: which rule takes ``f(...)``, and Python run while compiling.

A call is, in this order: a method of a kernel vector (``v.dot(w)``); a method of a
field, SNode or ndarray (``x.fill(v)``, ``frontend/field_methods.py``); a function some
handler module registered (``ti.sqrt``, ``print``, ``ti.Vector``...); a ``ti.func``
(inlined, ``frontend/funcs.py``); a type (``ti.f32(x)`` casts); else a plain Python
function, which runs while compiling when every argument is known then. ``*args`` and
``**kwargs`` are unpacked first (``frontend/starred.py``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> def cells(n):
    ...     return n * n
    >>> @ti.kernel
    ... def area() -> ti.f32:
    ...     return ti.f32(cells(3)) + len(ti.static((1, 2)))
    >>> area()
    11.0
"""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import (
    field_methods,
    matrix_types,
    process_reads,
    snode_builtins,
    structs,
)
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.funcs import inline
from ti_notebook.frontend.operands import call_args, map_vector, static_eval
from ti_notebook.frontend.starred import expand_call
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.frontend.vector_methods import call_method
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types
from ti_notebook.lang.data_oriented import BoundKernel
from ti_notebook.lang.func import Func, KernelBase
from ti_notebook.lang.struct_types import StructType

HANDLERS = Handlers()


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


@HANDLERS.expression(ast.Call)
def _call(ctx: TraceContext, node: ast.Call):
    listed = snode_builtins.list_method(ctx, node)  # x[i].append(v) on a dynamic field
    if listed is not snode_builtins.NOT_A_LIST_METHOD:
        return listed
    func = ctx.expr(node.func)
    node = expand_call(ctx, node)  # f(*t, **kw): plain arguments for every handler
    if isinstance(func, BoundMethod):
        keywords = {kw.arg: ctx.expr(kw.value) for kw in node.keywords}
        return call_method(ctx, func, [ctx.expr(a) for a in node.args], node, keywords)
    if field_methods.is_container_method(func):  # x.fill(v) is a loop, not a Python call
        return field_methods.call(ctx, func, node)
    if not _hashable(func):
        raise ctx.error(TiTypeError, node, f"'{ast.unparse(node.func)}' is not callable")
    handler = ctx.dispatch.calls.get(func)
    if handler is not None:
        return handler(ctx, node)
    if isinstance(func, Func):
        return inline(ctx, func, node)
    if isinstance(func, StructType):
        return structs.construct_call(ctx, func, node)
    if isinstance(func, (KernelBase, BoundKernel)):
        raise ctx.error(
            TiSyntaxError,
            node,
            "a kernel cannot call another kernel",
            "make the callee a @ti.func, or call both kernels from Python",
        )
    if isinstance(func, matrix_types.MatrixType):  # vec3(x, y, z), ti.math.mat2(...)
        return matrix_types.construct(ctx, func, node)
    if isinstance(func, types.DataType):
        (value,) = call_args(ctx, node, 1)
        if isinstance(value, int) and not isinstance(value, bool) and func.is_integral:
            return _typed_literal(ctx, node, value, func)
        return map_vector(ctx, value, lambda v: ctx.builder.cast(v, func, exact_literal=True))
    return _call_python(ctx, func, node)


def _typed_literal(ctx: TraceContext, node: ast.Call, value: int, dtype: types.DataType):
    """``ti.u64(2**64 - 1)``: a constant of that type, as Taichi makes it, so a literal
    the default integer type cannot hold is still written directly."""
    low, high = dtype.int_range()
    if not low <= value <= high:
        raise ctx.error(
            TiTypeError,
            node,
            f"the constant {value} does not fit in {dtype} [{low}, {high}]",
            "give a value in range, or a wider type",
        )
    return ctx.builder.const(value, dtype)


def _call_python(ctx: TraceContext, func, node: ast.Call):
    """A Python function run while compiling, on values known then; its result."""
    args = [ctx.expr(a) for a in node.args]
    kwargs = {kw.arg: ctx.expr(kw.value) for kw in node.keywords}
    dynamic = [a for a in [*args, *kwargs.values()] if isinstance(a, (ir.Stmt, Vector))]
    if not dynamic and callable(func):
        ctx.state.reads.python_call(func, args, kwargs, node)
        helpers = ops.compiling_helper
        helpers.depth = getattr(helpers, "depth", 0) + 1
        try:
            # what it reads from the process (environment, files, clock) is recorded too
            with process_reads.watch(ctx.state.reads):
                result = func(*args, **kwargs)
        except Exception as exc:
            detail, hint = (exc.message, exc.hint) if isinstance(exc, TiError) else (exc, "")
            message = f"calling '{ast.unparse(node.func)}' failed: {detail}"
            raise ctx.error(TiSyntaxError, node, message, hint) from None
        finally:
            helpers.depth -= 1
        ctx.state.reads.python_result(result, node)
        return result
    raise ctx.error(
        TiSyntaxError,
        node,
        f"'{ast.unparse(node.func)}' is a Python function and cannot run on kernel values",
        "decorate it with @ti.func to call it from a kernel",
    )


@HANDLERS.call(ops.static)
def _static(ctx: TraceContext, node: ast.Call):
    values = [static_eval(ctx, a) for a in node.args]
    return values[0] if len(values) == 1 else tuple(values)


@HANDLERS.call(builtins.len)
def _len(ctx: TraceContext, node: ast.Call):
    (value,) = call_args(ctx, node, 1)
    if isinstance(value, Vector):
        return value.shape[0]  # a matrix's rows, as Taichi's len(m) == m.n
    if isinstance(value, (tuple, list, dict, str, range, np.ndarray)):
        return len(value)  # a NumPy array from Python scope: its first axis, as Taichi
    what = "a single number" if isinstance(value, ir.Stmt) else f"a {type(value).__name__}"
    hint = "len() counts a vector's components or a tuple's items"
    if hasattr(value, "shape"):
        what, hint = "a field or array", f"use {ast.unparse(node.args[0])}.shape[0]"
    raise ctx.error(
        TiTypeError, node, f"len() of '{ast.unparse(node.args[0])}': it is {what}", hint
    )
