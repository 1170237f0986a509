"""Element pointers: ``x[i, j]`` on a field or an ndarray argument, checked at its line.

The indices must be scalar integers, as many as the container has dimensions; each is
cast to i32, the type of Taichi's indices. A vector or matrix field is one field per
component, so its element is one pointer per component.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=(2, 3))
    >>> @ti.kernel
    ... def corner() -> ti.i32:
    ...     x[1, 2] = 5
    ...     return x[1, 2.0]
    >>> corner()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiTypeError: ...index of 'x' is a float (f32)...
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiIndexError, TiRuntimeError, TiTypeError, TiValueError
from ti_notebook.frontend import offset_indices
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.descriptors import describe
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.values import ComponentPointers, NdarrayArg, Slots, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import matrix as lang_matrix
from ti_notebook.lang import types
from ti_notebook.lang.field import Field

MAX_KERNEL_COMPONENTS = 256


def is_matrix_field(value) -> bool:
    """Whether ``value`` is a vector or matrix field (one field per component)."""
    return isinstance(value, lang_matrix.MatrixField)


def index_values(ctx: TraceContext, slice_node: ast.expr) -> list:
    """The indices in ``x[...]``, vectors flattened: ``x[I]``, ``x[I, k]``, ``x[None]``."""
    value = ctx.expr(slice_node)
    if value is None:
        return []
    if isinstance(value, (tuple, list)):
        flat = []
        for item in value:
            flat.extend(item if isinstance(item, Vector) else [item])
        return flat
    if isinstance(value, Vector):
        return list(value)
    return [value]


def subscript_pointer(
    ctx: TraceContext, base, indices: list, node: ast.Subscript, component: tuple[int, ...] = ()
) -> ir.Stmt:
    """The pointer to ``base[indices]``, a field's or an ndarray argument's element; for an
    ndarray of vectors/matrices, ``component`` picks the element's component."""
    b = ctx.builder
    if isinstance(base, Field):
        _check_placed(ctx, base, node)
    if isinstance(base, (Field, NdarrayArg)):
        ndim, name = base.ndim, base.name
    else:
        raise ctx.error(
            TiTypeError,
            node.value,
            f"'{ast.unparse(node.value)}' cannot be indexed in a kernel",
            "only fields, ndarray arguments and vectors can be indexed",
        )
    if len(indices) != ndim:
        hint = "index a 0-D field with x[None]" if ndim == 0 else ""
        raise ctx.error(
            TiIndexError,
            node,
            f"'{name}' has {ndim} dimension(s) but is indexed with {len(indices)}",
            hint,
        )
    cast = []
    for index in indices:
        check_scalar(ctx, index, node)
        value = b.value(index)
        if value.dtype.is_float:
            raise ctx.error(
                TiTypeError,
                node.slice,
                f"index of '{name}' is a float ({value.dtype})",
                "indices must be integers: use ti.cast(i, ti.i32) or int(i)",
            )
        cast.append(b.cast(value, types.i32))
    if isinstance(base, Field):
        ctx.state.captured.setdefault(("field", id(base)), base)
        ref = describe(base)
        cast = offset_indices.to_positions(b, cast, offset_indices.offset_of(ref))
        return b.emit(ir.GlobalPtrStmt(ref, cast))
    cast += [b.const(c, types.i32) for c in component]
    total = base.ndim + len(base.element_shape)
    return b.emit(ir.ExternalPtrStmt(base.arg_index, total, cast, base.dtype))


def is_matrix_ndarray(value) -> bool:
    """``a`` is an ndarray argument whose elements are vectors or matrices."""
    return isinstance(value, NdarrayArg) and bool(value.element_shape)


def ndarray_element_slots(ctx: TraceContext, base: NdarrayArg, indices: list, node) -> Slots:
    """The components of a vector/matrix ndarray's element ``a[i, j]``, row-major."""
    shape = base.element_shape
    positions = [(k,) for k in range(shape[0])]
    if len(shape) == 2:
        positions = [(r, c) for r in range(shape[0]) for c in range(shape[1])]
    pointers = ComponentPointers(
        lambda k: subscript_pointer(ctx, base, indices, node, positions[k]), len(positions)
    )
    return Slots(pointers, shape)


def _check_placed(ctx: TraceContext, field: Field, node: ast.AST) -> None:
    """An unplaced, unfinalized or destroyed field: an error at the line using it."""
    try:
        field.layout()
    except TiRuntimeError as exc:
        raise ctx.error(TiRuntimeError, node, exc.message, exc.hint) from None


def load_matrix(ctx: TraceContext, field, indices: list, node) -> Vector:
    """A vector/matrix field's element, every component loaded."""
    _check_component_count(ctx, field, node)
    pointers = [subscript_pointer(ctx, c, indices, node) for c in field.components]
    items = [ctx.builder.emit(ir.GlobalLoadStmt(ptr)) for ptr in pointers]
    return Vector(items, field.element_shape)


def _check_component_count(ctx: TraceContext, field, node) -> None:
    """Kernels unroll vector values per component, and LLVM's time grows faster than
    the component count (2,000 took minutes): a whole-element value of a huge vector
    field is refused with the usual remedy (one component at a time still works)."""
    count = len(field.components)
    if count > MAX_KERNEL_COMPONENTS:
        raise ctx.error(
            TiValueError,
            node,
            f"'{field.name}' has {count} components per element; kernels handle at "
            f"most {MAX_KERNEL_COMPONENTS} as one vector value",
            f"make the components a field dimension instead, e.g. "
            f"ti.field(ti.{field.dtype}, shape=(..., {count})), and loop over it",
        )
