"""``ti.linalg.SparseMatrixBuilder``: kernels add (row, column, value) triplets.

A kernel takes the builder through a parameter annotated
``ti.types.sparse_matrix_builder()`` and adds entries with ``A[i, j] += v`` or
``A[i, j] -= v`` from any thread; ``build()`` turns the triplets into a
:class:`~ti_notebook.linalg.SparseMatrix`, summing duplicates, and empties the builder
for the next fill (Taichi's behaviour).

The triplets live in ti_notebook fields (rows, columns, values and a counter that each
addition reserves its slot from atomically), so filling runs on every backend; adding
more than ``max_num_triplets`` is reported by ``build()`` (and ``print_triplets()``)
with the count the kernels wanted.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> K = ti.linalg.SparseMatrixBuilder(3, 3, max_num_triplets=16)
    >>> @ti.kernel
    ... def laplacian(A: ti.types.sparse_matrix_builder()):
    ...     for i in range(3):
    ...         A[i, i] += 2.0
    ...         if i > 0:
    ...             A[i, i - 1] -= 1.0
    ...             A[i - 1, i] -= 1.0
    >>> laplacian(K)
    >>> print(K.build())
    [2, -1, 0]
    [-1, 2, -1]
    [0, -1, 2]
"""

from __future__ import annotations

import contextlib
import weakref

import numpy as np

from ti_notebook.errors import TiIndexError, TiRuntimeError, TiTypeError, TiValueError
from ti_notebook.lang import types
from ti_notebook.lang.field import field
from ti_notebook.lang.snode import FieldsBuilder, axes
from ti_notebook.lang.triplets import TripletSink
from ti_notebook.linalg.sparse_matrix import STORAGE_FORMATS, SparseMatrix, from_triplets

__all__ = ["SparseMatrixBuilder"]


def _destroy(tree) -> None:
    # ti.reset() may have freed it already, or the interpreter is shutting down
    with contextlib.suppress(Exception):
        tree.destroy()


class SparseMatrixBuilder(TripletSink):
    """Collects triplets that kernels add, then builds a sparse matrix.

    Args:
        num_rows: the matrix's number of rows.
        num_cols: its number of columns (``num_rows`` when not given).
        max_num_triplets: how many additions the kernels may make before ``build()``.
        dtype: ``ti.f32`` or ``ti.f64``.
        storage_format: ``"col_major"`` or ``"row_major"`` (kept; both build the same
            matrix).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> B = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=4, dtype=ti.f64)
    >>> B.shape, B.dtype
    ((2, 2), f64)
    """

    def __init__(
        self,
        num_rows: int | None = None,
        num_cols: int | None = None,
        max_num_triplets: int = 0,
        dtype=types.f32,
        storage_format: str = "col_major",
    ) -> None:
        where = "ti.linalg.SparseMatrixBuilder"
        if num_rows is None or int(num_rows) <= 0:
            raise TiValueError(f"{where}: num_rows must be a positive int, got {num_rows!r}")
        num_cols = num_cols if num_cols else num_rows
        if int(num_cols) <= 0:
            raise TiValueError(f"{where}: num_cols must be a positive int, got {num_cols!r}")
        if int(max_num_triplets) <= 0:
            raise TiValueError(
                f"{where}: max_num_triplets must be a positive int, got {max_num_triplets!r}",
                hint="pass how many 'A[i, j] += v' the kernels make before build()",
            )
        dt = types.to_dtype(dtype, types.i32, types.f32)
        if dt not in (types.f32, types.f64):
            raise TiTypeError(f"{where}: dtype must be ti.f32 or ti.f64, got {dtype!r}")
        if storage_format not in STORAGE_FORMATS:
            raise TiValueError(
                f"{where}: storage_format must be one of {STORAGE_FORMATS}, got {storage_format!r}"
            )
        self.num_rows, self.num_cols = int(num_rows), int(num_cols)
        self.capacity = int(max_num_triplets)
        self.dtype = dt
        self.storage_format = storage_format
        self.name = f"SparseMatrixBuilder({self.num_rows}, {self.num_cols})"
        self.rows = field(types.i32, name="triplet_rows")
        self.cols = field(types.i32, name="triplet_cols")
        self.values = field(dt, name="triplet_values")
        self.count = field(types.i32, name="triplet_count")
        fb = FieldsBuilder()
        for f in (self.rows, self.cols, self.values):  # one array each (SoA)
            fb.dense(axes(0), self.capacity + 1).place(f)
        fb.place(self.count)
        self._tree = fb.finalize()
        weakref.finalize(self, _destroy, self._tree)

    @property
    def shape(self) -> tuple[int, int]:
        """``(num_rows, num_cols)``."""
        return (self.num_rows, self.num_cols)

    @property
    def max_num_triplets(self) -> int:
        """How many triplets fit."""
        return self.capacity

    def _triplets(self, call: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The triplets added so far; an overflow or an index out of range is an error
        that names ``call``."""
        wanted = int(self.count[None])
        if wanted > self.capacity:
            raise TiRuntimeError(
                f"{call}: the kernels added {wanted} triplets to {self.name}, more than its "
                f"max_num_triplets={self.capacity}",
                hint=f"create it with max_num_triplets={wanted} or more (each "
                "'A[i, j] += v' takes one, duplicates included)",
            )
        rows = self.rows.to_numpy()[:wanted]
        cols = self.cols.to_numpy()[:wanted]
        values = self.values.to_numpy()[:wanted]
        bad = (rows < 0) | (rows >= self.num_rows) | (cols < 0) | (cols >= self.num_cols)
        if bad.any():
            k = int(np.argmax(bad))
            raise TiIndexError(
                f"{call}: triplet [{rows[k]}, {cols[k]}] added to {self.name} is out of range "
                f"(shape {self.shape}; {int(bad.sum())} such triplet(s))",
                hint="rows run over 0..num_rows-1 and columns over 0..num_cols-1",
            )
        return rows, cols, values

    def build(self, dtype=None, _format: str = "CSR") -> SparseMatrix:
        """The matrix of the triplets added so far (duplicates summed); the builder is
        empty afterwards. ``dtype`` is accepted for Taichi's signature; the builder's own
        dtype is the matrix's.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> B = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=2)
        >>> B.build().shape
        (2, 2)
        """
        rows, cols, values = self._triplets(f"{self.name}.build()")
        self.count[None] = 0
        return from_triplets(rows, cols, values, self.shape, self.dtype, self.storage_format)

    def print_triplets(self) -> None:
        """Prints the count and each triplet, as Taichi does.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=3).print_triplets()
        n=2, m=2, num_triplets=0 (max=3)
        """
        rows, cols, values = self._triplets(f"{self.name}.print_triplets()")
        print(
            f"n={self.num_rows}, m={self.num_cols}, num_triplets={len(rows)} (max={self.capacity})"
        )
        for r, c, v in zip(rows.tolist(), cols.tolist(), values.tolist(), strict=True):
            print(f"[{r}, {c}] = {v:g}")

    def __repr__(self) -> str:
        return f"<ti.linalg.{self.name}, max_num_triplets={self.capacity}, {self.dtype}>"
