"""``ti.linalg.SparseMatrix``: a sparse matrix in Python scope, backed by SciPy (CSR).

Arithmetic follows Taichi 1.7: ``+``, ``-``, ``*`` (a number, or element-wise with
another sparse matrix), ``@`` (with a sparse matrix: a sparse matrix; with a 1-D field
or NumPy vector: a NumPy array; with a 1-D ``ti.ndarray``: a ``ti.ndarray``),
``transpose()``, ``A[i, j]``, ``shape``, ``build_from_ndarray`` and ``mmwrite``. Shapes
that do not fit are errors naming the operation; ``f32`` with ``f64`` gives ``f64``.
Besides Taichi's surface, ``to_numpy()`` (dense) and ``to_scipy()`` (a CSR copy) hand
the values to other libraries.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f64)
    >>> A[0, 0] = 2.0
    >>> A[1, 0] = 1.0
    >>> print(A + A.transpose())
    [4, 1]
    [1, 0]
    >>> (A @ np.array([1.0, 1.0])).tolist()
    [2.0, 1.0]
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.io
import scipy.sparse as sp

from ti_notebook.errors import TiIndexError, TiTypeError, TiValueError
from ti_notebook.lang import types
from ti_notebook.lang.field import Field
from ti_notebook.lang.ndarray import Ndarray, ndarray

__all__ = ["STORAGE_FORMATS", "SparseMatrix", "from_triplets", "vector_of"]

STORAGE_FORMATS = ("col_major", "row_major")


def _dtype(dtype, where: str):
    dt = types.to_dtype(dtype, types.i32, types.f32)
    if dt not in (types.f32, types.f64):
        raise TiTypeError(f"{where}: dtype must be ti.f32 or ti.f64, got {dtype!r}")
    return dt


class SparseMatrix:
    """A sparse matrix; ``SparseMatrix(n, m, dtype=ti.f32)`` is an empty n x m one.

    Args:
        n: rows.
        m: columns (``n`` when not given).
        sm: a SciPy sparse matrix to wrap (what ``build()`` and the operators pass).
        dtype: ``ti.f32`` or ``ti.f64`` (a dtype given third, ``SparseMatrix(n, m,
            ti.f64)``, is taken as the dtype).
        storage_format: ``"col_major"`` or ``"row_major"``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> A = ti.linalg.SparseMatrix(3, 2)
    >>> A.shape, A.n, A.m, A.dtype
    ((3, 2), 3, 2, f32)
    """

    def __init__(self, n=None, m=None, sm=None, dtype=types.f32, storage_format="col_major"):
        if isinstance(sm, types.DataType) or (
            isinstance(sm, type) and not issubclass(sm, sp.spmatrix)
        ):
            sm, dtype = None, sm  # SparseMatrix(n, m, ti.f64)
        if storage_format not in STORAGE_FORMATS:
            raise TiValueError(
                f"ti.linalg.SparseMatrix: storage_format must be one of {STORAGE_FORMATS}, "
                f"got {storage_format!r}"
            )
        self.storage_format = storage_format
        if sm is None:
            if n is None or int(n) <= 0 or (m is not None and int(m) <= 0):
                raise TiValueError(
                    f"ti.linalg.SparseMatrix: n and m must be positive ints, got {n!r}, {m!r}"
                )
            self.dtype = _dtype(dtype, "ti.linalg.SparseMatrix")
            shape = (int(n), int(m) if m else int(n))
            self._csr = sp.csr_matrix(shape, dtype=self.dtype.np_dtype)
        elif isinstance(sm, SparseMatrix):
            self.dtype, self._csr = sm.dtype, sm._csr.copy()
        else:
            csr = sp.csr_matrix(sm)
            self.dtype = types.f64 if csr.dtype == np.float64 else types.f32
            self._csr = csr.astype(self.dtype.np_dtype)
        self._csr.sum_duplicates()

    # -- shape and elements ---------------------------------------------------------------
    @property
    def n(self) -> int:
        """Rows."""
        return self._csr.shape[0]

    @property
    def m(self) -> int:
        """Columns."""
        return self._csr.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, m)``."""
        return (self.n, self.m)

    def _index(self, indices, call: str) -> tuple[int, int]:
        if not isinstance(indices, tuple) or len(indices) != 2:
            raise TiIndexError(f"SparseMatrix{call}: index with a row and a column: A[i, j]")
        i, j = (int(k) for k in indices)
        if not (0 <= i < self.n and 0 <= j < self.m):
            raise TiIndexError(f"SparseMatrix{call}: [{i}, {j}] is outside shape {self.shape}")
        return i, j

    def __getitem__(self, indices) -> float:
        i, j = self._index(indices, "[i, j]")
        return float(self._csr[i, j])

    def __setitem__(self, indices, value) -> None:
        i, j = self._index(indices, "[i, j] = v")
        lil = self._csr.tolil()  # a new entry changes the pattern: CSR would warn
        lil[i, j] = value
        self._csr = lil.tocsr()

    # -- arithmetic -------------------------------------------------------------------------
    def _same_shape(self, other, op: str) -> None:
        if not isinstance(other, SparseMatrix):
            raise TiTypeError(
                f"SparseMatrix {op}: the other operand is a {type(other).__name__}, not a "
                "SparseMatrix"
            )
        if self.shape != other.shape:
            raise TiValueError(
                f"SparseMatrix {op}: dimension mismatch between sparse matrices {self.shape} "
                f"and {other.shape}"
            )

    def __add__(self, other) -> SparseMatrix:
        self._same_shape(other, "+")
        return SparseMatrix(sm=self._csr + other._csr)

    def __sub__(self, other) -> SparseMatrix:
        self._same_shape(other, "-")
        return SparseMatrix(sm=self._csr - other._csr)

    def __iadd__(self, other) -> SparseMatrix:
        result = self + other
        self._csr, self.dtype = result._csr, result.dtype
        return self

    def __isub__(self, other) -> SparseMatrix:
        result = self - other
        self._csr, self.dtype = result._csr, result.dtype
        return self

    def __neg__(self) -> SparseMatrix:
        return SparseMatrix(sm=-self._csr)

    def __mul__(self, other) -> SparseMatrix:
        """A number times the matrix, or the element-wise (Hadamard) product."""
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return SparseMatrix(sm=self._csr * self.dtype.np_dtype.type(other))
        if isinstance(other, SparseMatrix):
            self._same_shape(other, "*")
            return SparseMatrix(sm=self._csr.multiply(other._csr))
        raise TiTypeError(
            f"SparseMatrix *: cannot multiply by a {type(other).__name__}",
            hint="'*' takes a number or a SparseMatrix (element-wise); use '@' for a "
            "matrix product",
        )

    def __rmul__(self, other) -> SparseMatrix:
        return self * other

    def transpose(self) -> SparseMatrix:
        """The transposed matrix."""
        return SparseMatrix(sm=self._csr.transpose())

    def __matmul__(self, other):
        """``A @ B`` (sparse), ``A @ v`` with a 1-D field / NumPy vector (NumPy result)
        or a 1-D ``ti.ndarray`` (``ti.ndarray`` result of the vector's dtype)."""
        if isinstance(other, SparseMatrix):
            if self.m != other.n:
                raise TiValueError(
                    f"SparseMatrix @: dimension mismatch between sparse matrices "
                    f"{self.shape} and {other.shape}"
                )
            return SparseMatrix(sm=self._csr @ other._csr)
        vector = vector_of(other, self.m, "SparseMatrix @")
        result = self._csr @ vector.astype(self.dtype.np_dtype, copy=False)
        if isinstance(other, Ndarray):
            out = ndarray(other.dtype, shape=(self.n,))
            out.from_numpy(result.astype(other.dtype.np_dtype))
            return out
        return result.astype(self.dtype.np_dtype, copy=False)

    # -- conversion -------------------------------------------------------------------------
    def build_from_ndarray(self, array) -> None:
        """Sets the matrix to the triplets ``(row, column, value)`` an ndarray holds (an
        (k, 3) array, k 3-vectors, or 3k scalars); duplicates are summed.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> t = ti.Vector.ndarray(3, ti.f32, shape=2)
        >>> t.from_numpy(np.array([[0, 1, 5.0], [1, 0, 7.0]], np.float32))
        >>> A = ti.linalg.SparseMatrix(2, 2)
        >>> A.build_from_ndarray(t)
        >>> print(A)
        [0, 5]
        [7, 0]
        """
        call = "SparseMatrix.build_from_ndarray"
        if not isinstance(array, Ndarray):
            raise TiTypeError(
                f"{call}: takes a ti.ndarray, ti.Vector.ndarray or ti.Matrix.ndarray, got a "
                f"{type(array).__name__}"
            )
        flat = np.asarray(array.to_numpy(), dtype=np.float64).reshape(-1)
        if flat.size % 3:
            raise TiValueError(
                f"{call}: the ndarray holds {flat.size} numbers, not a multiple of 3 "
                "(row, column, value)"
            )
        rows, cols, values = flat[0::3], flat[1::3], flat[2::3]
        bad = (rows < 0) | (rows >= self.n) | (cols < 0) | (cols >= self.m)
        if bad.any():
            k = int(np.argmax(bad))
            raise TiIndexError(
                f"{call}: triplet [{rows[k]:g}, {cols[k]:g}] is outside shape {self.shape}"
            )
        built = from_triplets(rows, cols, values, self.shape, self.dtype, self.storage_format)
        self._csr = built._csr

    def mmwrite(self, filename) -> None:
        """Writes the matrix to a Matrix Market file (``scipy.io.mmread`` reads it)."""
        scipy.io.mmwrite(filename, self._csr.tocoo())

    def to_numpy(self) -> np.ndarray:
        """The dense matrix, in the matrix's dtype."""
        return self._csr.toarray()

    def to_scipy(self) -> sp.csr_matrix:
        """A copy as a SciPy CSR matrix."""
        return self._csr.copy()

    def __str__(self) -> str:
        """Each row as ``[a, b, ...]``, numbers as Taichi prints them (``%g``)."""
        dense = self._csr.toarray()
        return "\n".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in dense)

    def __repr__(self) -> str:
        return str(self)


def vector_of(value, length: int, call: str) -> np.ndarray:
    """A field, ``ti.ndarray`` or NumPy vector as a 1-D NumPy array of ``length``."""
    if isinstance(value, (Field, Ndarray)):
        array = value.to_numpy()
    elif isinstance(value, np.ndarray):
        array = value
    else:
        raise TiTypeError(
            f"{call}: does not take a {type(value).__name__}",
            hint="pass a SparseMatrix, a 1-D ti.field, a 1-D ti.ndarray or a NumPy vector",
        )
    if array.ndim != 1 or array.shape[0] != length:
        raise TiValueError(
            f"{call}: dimension mismatch: a vector of {length} is needed, got shape "
            f"{tuple(array.shape)}"
        )
    return array


def from_triplets(rows, cols, values, shape, dtype, storage_format="col_major") -> SparseMatrix:
    """The matrix of ``(rows[k], cols[k], values[k])``, duplicates summed."""
    coo = sp.coo_matrix(
        (np.asarray(values, dtype=dtype.np_dtype), (np.asarray(rows), np.asarray(cols))),
        shape=shape,
    )
    return SparseMatrix(sm=coo.tocsr(), storage_format=storage_format)
