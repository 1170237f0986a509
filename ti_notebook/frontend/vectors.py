"""Vectors and matrices inside kernels: components, attributes, ``@``.

A kernel-scope matrix is a :class:`~ti_notebook.frontend.values.Vector` of scalar
values with a ``shape`` of ``(n,)`` or ``(n, m)``: every operation unrolls into scalar
IR, so LLVM sees plain arithmetic it can vectorise across loop iterations. Components
are chosen by indices (``m[1, 0]``, ``m[1]`` for a row, slices ``m[:, 0]``; a runtime
index is ``frontend/dynamic_index.py``'s) or by name (``v.x`` to ``v.w``); making them is
``frontend/matrix_constructors.py``'s, their methods ``frontend/vector_methods.py``'s.

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
import dataclasses
import itertools
import numbers

from ti_notebook.errors import TiIndexError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import dynamic_index
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.dynamic_index import DynamicPositions, dynamic_positions, is_runtime_index
from ti_notebook.frontend.operands import static_eval
from ti_notebook.frontend.values import BoundMethod, Vector
from ti_notebook.frontend.vector_methods import call_method
from ti_notebook.ir import nodes as ir

HANDLERS = Handlers()
SWIZZLE_GROUPS = ("xyzw", "rgba", "stpq")  # Taichi's (and GLSL's) component names
COMPONENTS = {name: k for group in SWIZZLE_GROUPS for k, name in enumerate(group)}


# -- components --------------------------------------------------------------------------
@dataclasses.dataclass
class Selection:
    """Several items of a vector/matrix value, row-major, and the shape they form: a
    matrix's row ``m[r]``, a slice ``m[:, c]`` or ``v[1:3]``."""

    positions: list[int]
    shape: tuple[int, ...]


def element_positions(ctx: TraceContext, shape: tuple[int, ...], node: ast.Subscript):
    """The row-major item ``x[...]`` names in a value of ``shape``: its position, a
    Selection (a matrix row, a slice), or for an index known only at run time its
    DynamicPositions."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(part, ast.Slice) for part in parts):
        return _sliced(ctx, shape, parts, node)
    return index_positions(ctx, shape, ctx.expr(node.slice), node)


def index_positions(ctx: TraceContext, shape: tuple[int, ...], index, node: ast.Subscript):
    """:func:`element_positions` for an index already evaluated (no slices)."""
    index = index if isinstance(index, tuple) else (index,)
    index = tuple(_constant_index(i) for i in index)
    if not all(isinstance(i, numbers.Integral) or is_runtime_index(i) for i in index):
        raise ctx.error(
            TiIndexError,
            node.slice,
            "a vector/matrix index must be an integer",
            "index with integers, e.g. v[0], m[i, j] or ti.static(range(n)) loops",
        )
    row = len(shape) == 2 and len(index) == 1
    if len(index) != len(shape) and not row:
        raise ctx.error(
            TiIndexError,
            node,
            f"a value of shape {shape} takes {len(shape)} index(es)",
            "a vector takes v[k], a matrix m[i, j] (or m[i] for a row)",
        )
    for i, extent in zip(index, shape, strict=False):
        if isinstance(i, numbers.Integral) and not 0 <= i < extent:
            raise ctx.error(
                TiIndexError,
                node,
                f"index {index} out of range for shape {shape}",
                "indices start at 0",
            )
    if any(is_runtime_index(i) for i in index):
        return dynamic_positions(ctx, shape, index, node)
    index = tuple(int(i) for i in index)
    if row:
        width = shape[1]
        return Selection(list(range(index[0] * width, (index[0] + 1) * width)), (width,))
    flat = 0
    for i, extent in zip(index, shape, strict=True):
        flat = flat * extent + i
    return flat


def _sliced(ctx: TraceContext, shape: tuple[int, ...], parts: list, node) -> Selection:
    """``m[:, 1]``, ``m[0, 1:]``, ``v[::2]``: slices with compile-time bounds."""
    if len(parts) > len(shape):
        raise ctx.error(
            TiIndexError,
            node,
            f"a value of shape {shape} takes {len(shape)} index(es)",
            "a vector takes v[k], a matrix m[i, j] (or m[i] for a row)",
        )
    axes, sliced_shape = [], []
    for part, extent in zip([*parts, *[None] * (len(shape) - len(parts))], shape, strict=True):
        if part is None or isinstance(part, ast.Slice):
            bounds = [
                None if bound is None else static_eval(ctx, bound)
                for bound in ((part.lower, part.upper, part.step) if part else (None,) * 3)
            ]
            picked = range(*slice(*bounds).indices(extent))
            axes.append(picked)
            sliced_shape.append(len(picked))
            continue
        k = _constant_index(static_eval(ctx, part))
        if not isinstance(k, numbers.Integral) or not 0 <= k < extent:
            raise ctx.error(
                TiIndexError,
                part,
                f"index {k!r} is not an integer in range for shape {shape}",
                "slice with compile-time bounds, e.g. m[:, 1] or v[1:3]",
            )
        axes.append([int(k)])
    strides = (shape[1], 1) if len(shape) == 2 else (1,)
    positions = [
        sum(p * stride for p, stride in zip(position, strides, strict=True))
        for position in itertools.product(*axes)
    ]
    return Selection(positions, tuple(sliced_shape))


def _constant_index(value):
    """An integer constant statement (``ti.cast(1, ti.i32)``) as its value."""
    if isinstance(value, ir.ConstStmt) and not value.dtype.is_float:
        return int(value.value)
    return value


def vector_element(ctx: TraceContext, value: Vector, node: ast.Subscript):
    """``v[k]``, ``m[r, c]`` or a matrix's row ``m[r]`` (a vector); ``v[i]`` for a
    runtime ``i`` chooses among the components (``frontend/dynamic_index.py``)."""
    return pick_element(ctx, value, element_positions(ctx, value.shape, node))


def pick_element(ctx: TraceContext, value: Vector, found):
    """The item(s) of ``value`` at positions :func:`element_positions` found."""
    if isinstance(found, DynamicPositions):
        return dynamic_index.read(ctx, value, found)
    if isinstance(found, Selection):
        return Vector([value.items[k] for k in found.positions], found.shape)
    return value.items[found]


def vector_attribute(ctx: TraceContext, value: Vector, node: ast.Attribute):
    """``v.x``, a swizzle ``v.xy``/``v.bgr``, ``m.T``, ``m.n``/``m.m``, or a method to
    call (``v.dot``)."""
    if len(value.shape) == 1 and _swizzle_group(node.attr) is not None:
        group = _swizzle_group(node.attr)
        if any(group.index(c) >= len(value.items) for c in node.attr):
            names = ", ".join(group[: len(value.items)])
            raise ctx.error(
                TiSyntaxError,
                node,
                f"a {len(value)}-vector has no .{node.attr}",
                f"its components are {names}",
            )
        picked = [value.items[group.index(c)] for c in node.attr]
        return picked[0] if len(picked) == 1 else Vector(picked)
    if node.attr == "T":
        return call_method(ctx, BoundMethod(value, "transpose"), [], node)
    if node.attr == "n":
        return value.shape[0]
    if node.attr == "m":
        return value.shape[1] if len(value.shape) == 2 else 1
    if node.attr in ctx.dispatch.methods:
        return BoundMethod(value, node.attr)
    raise ctx.error(
        TiSyntaxError,
        node,
        f"vectors and matrices have no '.{node.attr}'",
        "components are .x/.y/.z/.w (or v[k]); methods: dot, norm, transpose...",
    )


def _swizzle_group(name: str) -> str | None:
    """The component-name group ``name`` draws from (1 to 4 letters), else None."""
    for group in SWIZZLE_GROUPS:
        if 1 <= len(name) <= 4 and all(c in group for c in name):
            return group
    return None


# -- operations ----------------------------------------------------------------------
def matmul(ctx: TraceContext, a, b, node) -> Vector:
    """``a @ b``, unrolled, with Taichi's shapes: matrix @ matrix, matrix @ vector (a
    vector), vector @ matrix (``b.T @ a``, a vector) and vector @ vector (their dot
    product, a scalar)."""
    if not (isinstance(a, Vector) and isinstance(b, Vector)):
        raise ctx.error(
            TiTypeError,
            node,
            "'@' needs two vectors/matrices",
            "multiply by a scalar with '*'",
        )
    builder = ctx.builder
    if len(a.shape) == 1 and len(b.shape) == 2:
        left, right = _columns(b), [[x] for x in a]
        if len(a) != b.shape[0]:
            raise _shape_mismatch(ctx, a, b, node)
    elif len(a.shape) == 1:
        if a.shape != b.shape:
            raise _shape_mismatch(ctx, a, b, node)
        products = [builder.binary("mul", x, y) for x, y in zip(a, b, strict=True)]
        return _sum(ctx, products)
    else:
        left, right = a.rows(), b.rows()
        if len(left[0]) != len(right):
            raise _shape_mismatch(ctx, a, b, node)
    out = []
    for row in left:
        for c in range(len(right[0])):
            terms = [builder.binary("mul", x, right[k][c]) for k, x in enumerate(row)]
            out.append(_sum(ctx, terms))
    vector_result = len(b.shape) == 1 or len(a.shape) == 1
    return Vector(out, (len(left),) if vector_result else (len(left), len(right[0])))


def _shape_mismatch(ctx: TraceContext, a: Vector, b: Vector, node):
    return ctx.error(
        TiTypeError,
        node,
        f"cannot multiply a value of shape {a.shape} by one of shape {b.shape} with '@'",
        "the left operand needs as many columns as the right one has rows",
    )


def _columns(m: Vector) -> list[list]:
    n, width = m.shape
    return [[m.items[r * width + c] for r in range(n)] for c in range(width)]


def _sum(ctx: TraceContext, items: list):
    total = items[0]
    for x in items[1:]:
        total = ctx.builder.binary("add", total, x)
    return total
