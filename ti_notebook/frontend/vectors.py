"""Vectors and matrices inside kernels: constructors, components, ``@``.

A kernel-scope matrix is a :class:`~ti_notebook.frontend.values.Vector` of scalar
values with a ``shape`` of ``(n,)`` or ``(n, m)``: every operation unrolls into scalar
IR, so LLVM sees plain arithmetic it can vectorise across loop iterations. Components
are chosen by compile-time indices (``m[1, 0]``, ``m[1]`` for a row) or by name
(``v.x`` to ``v.w``); the methods are in ``frontend/vector_methods.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def rotate() -> ti.f32:
    ...     m = ti.Matrix([[0.0, -1.0], [1.0, 0.0]])
    ...     v = m @ ti.Vector([2.0, 3.0])
    ...     return v.x * 10 + v[1] + m.T[0, 1] + ti.Matrix.identity(ti.f32, 2)[1, 1]
    >>> rotate()
    -26.0
"""

from __future__ import annotations

import ast
import numbers

from ti_notebook.errors import TiIndexError, TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import keywords, map_vector, static_eval
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.frontend.vector_methods import call_method
from ti_notebook.lang import matrix as lang_matrix
from ti_notebook.lang import ops

HANDLERS = Handlers()
COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


# -- construction ----------------------------------------------------------------------
@HANDLERS.call(lang_matrix.Vector)
def _vector(ctx: TraceContext, node: ast.Call) -> Vector:
    return _build_matrix(ctx, node, is_vector=True)


@HANDLERS.call(lang_matrix.Matrix)
def _matrix(ctx: TraceContext, node: ast.Call) -> Vector:
    return _build_matrix(ctx, node, is_vector=False)


def _build_matrix(ctx: TraceContext, node: ast.Call, is_vector: bool) -> Vector:
    """``ti.Vector([...])`` or ``ti.Matrix([[...], ...])``, with an optional dtype."""
    if len(node.args) != 1:
        raise ctx.error(TiTypeError, node, "ti.Vector/ti.Matrix take one list of values")
    value = ctx.expr(node.args[0])
    kw = keywords(ctx, node)
    if isinstance(value, Vector):
        value = list(value.items) if len(value.shape) == 1 else value.rows()
    if not isinstance(value, (list, tuple)):
        raise ctx.error(TiTypeError, node, "ti.Vector/ti.Matrix take a list of values")
    if value and isinstance(value[0], (list, tuple, Vector)) and not is_vector:
        grid = [list(r.items) if isinstance(r, Vector) else list(r) for r in value]
        width = len(grid[0])
        if any(len(r) != width for r in grid):
            raise ctx.error(TiTypeError, node, "matrix rows must have the same length")
        result = Vector([x for r in grid for x in r], (len(grid), width))
    else:
        result = Vector(list(value))
    dtype = kw.get("dtype")
    if dtype is not None:
        result = map_vector(ctx, result, lambda v: ctx.builder.cast(v, dtype))
    return result


@HANDLERS.call(lang_matrix.Matrix.identity)
def _identity(ctx: TraceContext, node: ast.Call) -> Vector:
    dtype, n = (static_eval(ctx, a) for a in node.args)
    one, zero = (1.0, 0.0) if dtype.is_float else (1, 0)
    items = [ctx.builder.const(one if r == c else zero, dtype) for r in range(n) for c in range(n)]
    return Vector(items, (n, n))


@HANDLERS.call(ops.zero)
def _zero_like(ctx: TraceContext, node: ast.Call):
    b = ctx.builder
    (value,) = (ctx.expr(a) for a in node.args)
    if isinstance(value, Vector):
        return Vector([b.const(0, b.value(v).dtype) for v in value], value.shape)
    return b.const(0, b.value(value).dtype)


# -- components --------------------------------------------------------------------------
def element_positions(ctx: TraceContext, shape: tuple[int, ...], node: ast.Subscript):
    """The row-major item ``x[...]`` names in a value of ``shape``, or a matrix row's."""
    index = ctx.expr(node.slice)
    index = (index,) if isinstance(index, numbers.Integral) else index
    if not (isinstance(index, tuple) and all(isinstance(i, numbers.Integral) for i in index)):
        raise ctx.error(
            TiIndexError,
            node.slice,
            "a vector/matrix index must be compile-time integers",
            "use constants, or ti.static(range(n)) for a loop over components",
        )
    index = tuple(int(i) for i in index)
    row = len(shape) == 2 and len(index) == 1
    if len(index) != len(shape) and not row:
        raise ctx.error(
            TiIndexError, node, f"a value of shape {shape} takes {len(shape)} index(es)"
        )
    for i, extent in zip(index, shape, strict=False):
        if not 0 <= i < extent:
            raise ctx.error(TiIndexError, node, f"index {index} out of range for shape {shape}")
    if row:
        width = shape[1]
        return list(range(index[0] * width, (index[0] + 1) * width))
    flat = 0
    for i, extent in zip(index, shape, strict=True):
        flat = flat * extent + i
    return flat


def vector_element(ctx: TraceContext, value: Vector, node: ast.Subscript):
    """``v[k]``, ``m[r, c]`` or a matrix's row ``m[r]`` (a vector)."""
    found = element_positions(ctx, value.shape, node)
    if isinstance(found, list):
        return Vector([value.items[k] for k in found])
    return value.items[found]


def vector_attribute(ctx: TraceContext, value: Vector, node: ast.Attribute):
    """``v.x``, ``m.T``, ``m.n``/``m.m``, or a method to call (``v.dot``)."""
    if node.attr in COMPONENTS and len(value.shape) == 1:
        k = COMPONENTS[node.attr]
        if k >= len(value.items):
            raise ctx.error(TiSyntaxError, node, f"a {len(value)}-vector has no .{node.attr}")
        return value.items[k]
    if node.attr == "T":
        return call_method(ctx, BoundMethod(value, "transpose"), [], node)
    if node.attr == "n":
        return value.shape[0]
    if node.attr == "m":
        return value.shape[1] if len(value.shape) == 2 else 1
    if node.attr in ctx.dispatch.methods:
        return BoundMethod(value, node.attr)
    raise ctx.error(TiSyntaxError, node, f"vectors and matrices have no '.{node.attr}'")


# -- operations ----------------------------------------------------------------------
def matmul(ctx: TraceContext, a, b, node) -> Vector:
    """``a @ b``: matrix × matrix or matrix × vector, unrolled."""
    if not (isinstance(a, Vector) and isinstance(b, Vector)):
        raise ctx.error(TiTypeError, node, "'@' needs two vectors/matrices")
    left = a.rows()
    right = b.rows()
    if len(left[0]) != len(right):
        raise ctx.error(TiTypeError, node, f"cannot multiply {a.shape} by {b.shape}")
    builder = ctx.builder
    out = []
    for row in left:
        for c in range(len(right[0])):
            acc = None
            for k, x in enumerate(row):
                term = builder.binary("mul", x, right[k][c])
                acc = term if acc is None else builder.binary("add", acc, term)
            out.append(acc)
    shape = (len(left),) if len(b.shape) == 1 else (len(left), len(right[0]))
    return Vector(out, shape)
