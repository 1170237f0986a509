"""``ti.types.sparse_matrix_builder()``: a kernel parameter that collects triplets.

A parameter so annotated takes a :class:`~ti_notebook.linalg.SparseMatrixBuilder`. It
is a compile-time value, like ``ti.template()`` (each builder is its own
specialisation), and the frontend turns ``A[i, j] += v`` and ``A[i, j] -= v`` on it
into "reserve the next triplet slot atomically, store (i, j, ±v) there": any thread
may add, to the same entry or to different ones; ``build()`` sums the duplicates.

The builder's storage is what :class:`TripletSink` states: three fields of
``capacity + 1`` rows, columns and values, and a 0-D counter. The spare last slot takes
the writes past ``capacity`` (the counter keeps counting), so a kernel never writes out
of bounds and ``build()`` reports the overflow with the count that was wanted.

    >>> import ti_notebook as ti
    >>> ti.types.sparse_matrix_builder()
    sparse_matrix_builder()
"""

from __future__ import annotations

from ti_notebook.lang.field import Field
from ti_notebook.lang.ndarray import Template

__all__ = ["SparseMatrixBuilderType", "TripletSink", "sparse_matrix_builder"]


class SparseMatrixBuilderType(Template):
    """The annotation ``ti.types.sparse_matrix_builder()`` (a template kind)."""

    def __repr__(self) -> str:
        return "sparse_matrix_builder()"


def sparse_matrix_builder() -> SparseMatrixBuilderType:
    """The annotation of a kernel parameter that takes a sparse matrix builder.

    >>> import ti_notebook as ti
    >>> isinstance(ti.types.sparse_matrix_builder(), SparseMatrixBuilderType)
    True
    """
    return SparseMatrixBuilderType()


class TripletSink:
    """What a kernel's ``A[i, j] += v`` writes into (the frontend reads these names).

    ``rows``, ``cols`` (i32) and ``values`` (the matrix's dtype) hold ``capacity + 1``
    entries; ``count`` is a 0-D i32 field, the number of triplets added so far;
    ``name`` says which builder an error is about.

        >>> issubclass(TripletSink, object)
        True
    """

    rows: Field
    cols: Field
    values: Field
    count: Field
    capacity: int
    name: str
