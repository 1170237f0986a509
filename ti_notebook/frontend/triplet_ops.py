"""``A[i, j] += v`` / ``A[i, j] -= v`` on a sparse matrix builder argument.

The statement becomes ``k = atomic_add(count[None], 1)``, then row, column and value
stored at ``min(k, capacity)``: the spare last slot absorbs what overflows, and the
builder reports the overflow after the launch from the counter. Other operators, a
plain ``A[i, j] = v`` and reads are errors naming the builder.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> B = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=8)
    >>> @ti.kernel
    ... def fill(A: ti.types.sparse_matrix_builder()):
    ...     for i in range(4):
    ...         A[i % 2, i % 2] += 1.0
    ...         A[0, 1] -= 0.5
    >>> fill(B)
    >>> B.build().to_numpy().tolist()
    [[2.0, -2.0], [0.0, 2.0]]
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import MISSING, TraceContext
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.places import atomic, store
from ti_notebook.frontend.pointers import index_values, subscript_pointer
from ti_notebook.lang import types
from ti_notebook.lang.triplets import TripletSink

__all__ = ["add_triplet", "sink_of", "store_error"]


def sink_of(ctx: TraceContext, target: ast.expr) -> TripletSink | None:
    """The builder that ``target`` (``A[i, j]``) indexes, or None for any other target.

    Only a name or an attribute (``A``, ``self.K``) can name one, so nothing else is
    evaluated twice."""
    if not isinstance(target, ast.Subscript):
        return None
    if not isinstance(target.value, (ast.Name, ast.Attribute)):
        return None
    if isinstance(target.value, ast.Name):
        found = ctx.find_local(target.value.id)  # a parameter, a local
        if found is not MISSING:
            return found if isinstance(found, TripletSink) else None
    base = ctx.expr(target.value)
    return base if isinstance(base, TripletSink) else None


def add_triplet(ctx: TraceContext, op: str, sink: TripletSink, node: ast.AugAssign) -> None:
    """Lowers ``sink[i, j] op= value`` (``op`` is ``add`` or ``sub``)."""
    target = node.target
    if op not in ("add", "sub"):
        raise ctx.error(
            TiSyntaxError,
            node,
            f"a sparse matrix builder ('{sink.name}') takes only '+=' and '-='",
            "add the entry's value: A[i, j] += v (duplicates are summed by build())",
        )
    indices = index_values(ctx, target.slice)
    if len(indices) != 2:
        raise ctx.error(
            TiTypeError,
            target,
            f"a sparse matrix builder ('{sink.name}') is indexed with a row and a column, "
            f"got {len(indices)} index(es)",
            "write A[i, j] += v",
        )
    value = ctx.expr(node.value)
    check_scalar(ctx, value, node.value)
    b = ctx.builder
    if value is None or isinstance(value, (tuple, list)):
        raise ctx.error(TiTypeError, node.value, "a triplet's value must be a number")
    value = b.cast(value, sink.values.dtype)
    if op == "sub":
        value = b.unary("neg", value)
    for index, what in zip(indices, ("row", "column"), strict=True):
        check_scalar(ctx, index, target)
        if b.value(index).dtype.is_float:
            raise ctx.error(
                TiTypeError,
                target.slice,
                f"the {what} index of '{sink.name}' is a float",
                "indices must be integers: use int(i)",
            )
    counter = subscript_pointer(ctx, sink.count, [], target)
    taken = atomic(ctx, "add", counter, b.const(1, types.i32))
    slot = b.binary("min", taken, b.const(sink.capacity, types.i32))
    for field, item in zip(
        (sink.rows, sink.cols, sink.values), (indices[0], indices[1], value), strict=True
    ):
        store(ctx, subscript_pointer(ctx, field, [slot], target), item, target)


def store_error(ctx: TraceContext, sink: TripletSink, target: ast.expr) -> TiError:
    """``A[i, j] = v`` on a builder: it has no entries to overwrite, only triplets to add."""
    return ctx.error(
        TiSyntaxError,
        target,
        f"a sparse matrix builder ('{sink.name}') takes only '+=' and '-=', not '='",
        "add the entry's value: A[i, j] += v (duplicates are summed by build())",
    )
