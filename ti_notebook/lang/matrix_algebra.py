"""Methods of Python-scope vectors and matrices, with Taichi's definitions and checks.

``norm(eps)`` is ``sqrt(|v|^2 + eps)``, ``normalized(eps)`` is ``v / (norm + eps)``;
``cross`` of 2-vectors is a scalar, of 3-vectors a vector; ``v @ w`` of two vectors is
their dot product; ``transpose`` of a vector is refused (Taichi's hint:
``outer_product``). Scalars come back as Python numbers, vectors and matrices as new
values; the element types are the kernel's (a float function of integers gives
``default_fp``). Unlike in a kernel, ``inverse`` and ``determinant`` take any square
size here.

    >>> import ti_notebook as ti
    >>> v, w = ti.Vector([3.0, 4.0]), ti.Vector([1.0, 0.0])
    >>> v.norm(), v.dot(w), v.cross(w), v.normalized().tolist(), v.outer_product(w).tolist()
    (5.0, 3.0, -4.0, [0.6000000000000001, 0.8], [[3.0, 0.0], [4.0, 0.0]])
    >>> m = ti.Matrix([[2, 1], [1, 3]])
    >>> m.determinant(), m.trace(), ti.Matrix([[2, 0], [0, 4]]).inverse().tolist(), m.T[0, 1]
    (5, 5, [[0.5, 0.0], [0.0, 0.25]], 1)
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import matrix_dtypes as dtypes
from ti_notebook.lang.matrix_arith import compute, operand


def _scalar(array: np.ndarray, spec):
    """A 0-d result as a Python number of the spec's precision."""
    return np.asarray(array).astype(dtypes.storage(spec)).item()


class MatrixAlgebra:
    """Taichi's methods; a subclass provides ``entries``, ``_spec``, ``shape``, ``_new``
    and ``_store``."""

    # -- vectors ----------------------------------------------------------------------
    def dot(self, other):
        """The dot product of two vectors of one size."""
        a, b = self._vector_pair(other, "dot")
        product, spec = compute("mul", a, b)
        return _scalar(product.sum(), spec)

    def cross(self, other):
        """``x1*y2 - x2*y1`` of two 2-vectors; the cross product of two 3-vectors."""
        (a, a_spec), (b, b_spec) = self._vector_pair(other, "cross")
        if a.shape[0] not in (2, 3):
            raise TiTypeError(
                f"cross() needs two 2-D or two 3-D vectors, got {a.shape[0]}-D ones",
                hint="for other sizes, write the products you need out with v[i]",
            )
        spec = dtypes.binary("mul", a_spec, b_spec)
        x, y = a.astype(dtypes.storage(spec)), b.astype(dtypes.storage(spec))
        if a.shape[0] == 2:
            return _scalar(x[0] * y[1] - x[1] * y[0], spec)
        return self._new(np.cross(x, y), spec)

    def outer_product(self, other):
        """The ``n x k`` matrix ``v[i] * w[j]`` of an ``n``- and a ``k``-vector."""
        (a, a_spec), (b, b_spec) = self._vectors(other, "outer_product")
        spec = dtypes.binary("mul", a_spec, b_spec)
        storage = dtypes.storage(spec)
        return self._new(np.outer(a.astype(storage), b.astype(storage)), spec)

    def normalized(self, eps=0):
        """``v / (|v| + eps)``."""
        self._require_vector("normalized")
        length = self.norm() + eps
        return self * (1.0 / length if length else float("inf"))  # 0-vector: nan, as Taichi

    # -- norms and reductions ---------------------------------------------------------------
    def norm_sqr(self):
        """The sum of the squares of the components."""
        squares, spec = compute("mul", (self.entries, self._spec), (self.entries, self._spec))
        return _scalar(squares.sum(), spec)

    def norm(self, eps=0):
        """``sqrt(norm_sqr() + eps)``."""
        spec = dtypes.unary("sqrt", self._spec)
        with np.errstate(all="ignore"):
            return _scalar(np.sqrt(np.asarray(self.norm_sqr() + eps, dtypes.storage(spec))), spec)

    def norm_inv(self, eps=0):
        """``1 / sqrt(norm_sqr() + eps)``."""
        spec = dtypes.unary("sqrt", self._spec)
        value = np.asarray(self.norm_sqr() + eps, dtypes.storage(spec))
        with np.errstate(all="ignore"):
            return _scalar(1 / np.sqrt(value), spec)

    def sum(self):
        """The sum of all components."""
        return _scalar(self.entries.sum(), self._spec)

    def max(self):
        """The largest component."""
        return _scalar(self.entries.max(), self._spec)

    def min(self):
        """The smallest component."""
        return _scalar(self.entries.min(), self._spec)

    def any(self) -> bool:
        """Whether some component is not zero."""
        return bool(np.any(self.entries != 0))

    def all(self) -> bool:
        """Whether every component is not zero."""
        return bool(np.all(self.entries != 0))

    # -- matrices -------------------------------------------------------------------------
    def transpose(self):
        """The transposed matrix."""
        if len(self.shape) == 1:
            raise TiTypeError(
                "transpose() cannot apply to a vector",
                hint="for a @ b.transpose(), write a.outer_product(b)",
            )
        return self._new(self.entries.T.copy(), self._spec)

    @property
    def T(self):  # noqa: N802 - Taichi's (and NumPy's) name
        """``m.transpose()``."""
        return self.transpose()

    def trace(self):
        """The sum of the diagonal of a square matrix."""
        self._require_square("trace")
        return _scalar(np.trace(self.entries), self._spec)

    def determinant(self):
        """The determinant of a square matrix (an integer one's is exact)."""
        self._require_square("determinant")
        if not dtypes.is_float(self._spec):
            return _scalar(round(_exact_determinant(self.entries.tolist())), self._spec)
        return _scalar(np.linalg.det(self.entries.astype(np.float64)), self._spec)

    def inverse(self):
        """The inverse of a square matrix; a singular one is an error."""
        self._require_square("inverse")
        spec = dtypes.unary("sqrt", self._spec)  # a float type, as 1 / det makes it
        try:
            inverse = np.linalg.inv(self.entries.astype(np.float64))
        except np.linalg.LinAlgError:
            raise TiValueError(
                f"the matrix {self.entries.tolist()} is singular: it has no inverse",
                hint="check it with m.determinant() != 0 first",
            ) from None
        return self._new(inverse.astype(dtypes.storage(spec)), spec)

    # -- types and contents ------------------------------------------------------------------
    def cast(self, dtype):
        """A copy with components of ``dtype`` (``float``/``int``: the defaults)."""
        spec = dtypes.explicit(dtype)
        with np.errstate(all="ignore"):
            return self._new(self.entries.astype(dtypes.storage(spec)), spec)

    def fill(self, value) -> None:
        """Sets every component to ``value``."""
        self._store(Ellipsis, value)

    # -- checks -------------------------------------------------------------------------
    def _require_vector(self, name: str) -> None:
        if len(self.shape) != 1:
            raise TiTypeError(
                f"{name}() needs a vector, got a value of shape {self.shape}",
                hint="index a row or column first, e.g. m[0, :]",
            )

    def _require_square(self, name: str) -> None:
        if len(self.shape) != 2 or self.shape[0] != self.shape[1]:
            raise TiTypeError(f"{name}() needs a square matrix, got a value of shape {self.shape}")

    def _vectors(self, other, name: str):
        self._require_vector(name)
        found = operand(other)
        if found is None or found[0].ndim != 1:
            shape = getattr(found[0], "shape", None) if found else type(other).__name__
            raise TiTypeError(f"{name}() needs a vector argument, got {shape}")
        return (self.entries, self._spec), found

    def _vector_pair(self, other, name: str):
        a, b = self._vectors(other, name)
        if a[0].shape != b[0].shape:
            raise TiTypeError(
                f"{name}() needs two vectors of one size, got {a[0].shape[0]} and "
                f"{b[0].shape[0]} components"
            )
        return a, b


def _exact_determinant(rows: list[list[int]]) -> int:
    """Bareiss elimination on Python integers: no rounding, any size."""
    rows = [list(r) for r in rows]
    n, sign, previous = len(rows), 1, 1
    for k in range(n - 1):
        if rows[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if rows[i][k] != 0), None)
            if swap is None:
                return 0
            rows[k], rows[swap], sign = rows[swap], rows[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                rows[i][j] = (rows[i][j] * rows[k][k] - rows[i][k] * rows[k][j]) // previous
        previous = rows[k][k]
    return sign * rows[-1][-1] if n else 1
