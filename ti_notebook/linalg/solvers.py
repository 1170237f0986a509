"""Direct and iterative solvers for :class:`~ti_notebook.linalg.SparseMatrix`.

:class:`SparseSolver` factorises with SciPy's SuperLU (``scipy.sparse.linalg.splu``, in
:mod:`~ti_notebook.linalg.factorization`):

- ``"LU"``: partial pivoting, any square non-singular matrix;
- ``"LLT"``: a symmetric matrix, factorised without pivoting in symmetric mode (so
  ``A = L D Lᵀ`` with ``D`` the pivots); it succeeds when the matrix is symmetric and
  every pivot is positive, i.e. positive definite. A pivot that is negative only by
  rounding (below ``√ε`` of the largest) counts as zero, so a semi-definite matrix such
  as a pure-Neumann Laplacian factorises, as Eigen's often does by luck;
- ``"LDLT"``: a symmetric, possibly indefinite matrix (pivoting in symmetric mode).

A Cholesky library does not back ``"LLT"``: CHOLMOD through ``cholespy`` (simplicial,
nested dissection, always in f64) took 0.97-2x SuperLU's CPU time to factorise the
5-point Laplacians of 64² to 512², the 7-point ones of 32³ and 64³ and a 20,000-dof
mass-spring matrix (its solves took 1.0-2.2x less time, 3x at 64³), refuses the
semi-definite Laplacians SuperLU accepts (stable_fluid's), and cannot refactorise a
known pattern (``python -m benchmarks.sparse_solvers`` measures it).

``ordering="AMD"`` uses SuperLU's minimum degree on ``A + Aᵀ``, ``"COLAMD"`` its
column approximate minimum degree. The first ``factorize`` of a pattern chooses the
ordering; later ones with the same pattern reuse it (the minimum-degree search, 3-27 %
of a factorisation, is skipped). Like Taichi, a factorisation that fails does not
raise: ``info()`` returns False, and ``solve()`` then raises an error that says why
(instead of returning NaNs). Wrong arguments (not square, a dtype that differs from the
solver's, an unknown solver type) raise at once.

:class:`SparseCG` is the conjugate gradient of Eigen's ``ConjugateGradient`` (Jacobi
preconditioner, converged when ``‖r‖ ≤ atol·‖b‖``), in NumPy.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f64)
    >>> A[0, 0], A[1, 1], A[0, 1], A[1, 0] = 4.0, 3.0, 1.0, 1.0
    >>> solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    >>> solver.compute(A)
    >>> solver.info()
    True
    >>> np.round(solver.solve(np.array([1.0, 2.0])), 6).tolist()
    [0.090909, 0.636364]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ti_notebook.errors import TiRuntimeError, TiTypeError, TiValueError
from ti_notebook.lang import types
from ti_notebook.lang.ndarray import Ndarray, ndarray
from ti_notebook.linalg.factorization import Factor, FactorizationError, Ordering, superlu
from ti_notebook.linalg.sparse_matrix import SparseMatrix, vector_of

__all__ = ["SOLVER_TYPES", "ORDERINGS", "SparseCG", "SparseSolver"]

SOLVER_TYPES = ("LLT", "LDLT", "LU")
ORDERINGS = ("AMD", "COLAMD")


def _as_matrix(value, call: str) -> SparseMatrix:
    if not isinstance(value, SparseMatrix):
        raise TiTypeError(
            f"{call}: takes a ti.linalg.SparseMatrix, got a {type(value).__name__}",
            hint="build one with ti.linalg.SparseMatrixBuilder(...).build()",
        )
    return value


def _symmetry_error(csr: sp.csr_matrix, eps: float) -> str | None:
    """Why ``csr`` is not symmetric (to ``√ε`` of its largest entry), or None."""
    scale = abs(csr).max() if csr.nnz else 0.0
    diff = abs(csr - csr.T)
    worst = diff.max() if diff.nnz else 0.0
    if worst > np.sqrt(eps) * scale:
        return f"the matrix is not symmetric (|A - Aᵀ| reaches {worst:g}, |A| {scale:g})"
    return None


class SparseSolver:
    """A direct solver: ``compute(A)`` (or ``analyze_pattern(A)`` then
    ``factorize(A)``), then ``solve(b)`` as often as needed.

    Args:
        dtype: the matrices' dtype, ``ti.f32`` or ``ti.f64``.
        solver_type: ``"LLT"``, ``"LDLT"`` or ``"LU"``.
        ordering: ``"AMD"`` or ``"COLAMD"``.

    ``solve`` takes a 1-D field or NumPy vector (returns a NumPy array) or a 1-D
    ``ti.ndarray`` (returns a ``ti.ndarray``), as Taichi.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> ti.linalg.SparseSolver(solver_type="LU", ordering="COLAMD").info()
    False
    """

    def __init__(self, dtype=types.f32, solver_type: str = "LLT", ordering: str = "AMD") -> None:
        if solver_type not in SOLVER_TYPES or ordering not in ORDERINGS:
            raise TiValueError(
                f"ti.linalg.SparseSolver: the solver type {solver_type!r} with ordering "
                f"{ordering!r} is not supported",
                hint=f"solver_type is one of {SOLVER_TYPES}, ordering one of {ORDERINGS}",
            )
        self.dtype = types.to_dtype(dtype, types.i32, types.f32)
        if self.dtype not in (types.f32, types.f64):
            raise TiTypeError(
                f"ti.linalg.SparseSolver: dtype must be ti.f32 or ti.f64, got {dtype!r}"
            )
        self.solver_type, self.ordering = solver_type, ordering
        self.matrix: SparseMatrix | None = None
        self._factor: Factor | None = None
        self._ordering: Ordering | None = None
        self._failure: str | None = "no matrix was factorised yet (call compute(A))"

    def _check(self, value, call: str) -> SparseMatrix:
        matrix = _as_matrix(value, call)
        if matrix.dtype is not self.dtype:
            raise TiValueError(
                f"{call}: the SparseSolver's dtype {self.dtype} is not the SparseMatrix's "
                f"dtype {matrix.dtype}",
                hint=f"create the solver with ti.linalg.SparseSolver(dtype=ti.{matrix.dtype})",
            )
        if matrix.n != matrix.m:
            raise TiValueError(f"{call}: the matrix is {matrix.n} x {matrix.m}, not square")
        return matrix

    def compute(self, sparse_matrix: SparseMatrix) -> None:
        """``analyze_pattern`` then ``factorize``."""
        self._check(sparse_matrix, "SparseSolver.compute")
        self.analyze_pattern(sparse_matrix)
        self.factorize(sparse_matrix)

    def analyze_pattern(self, sparse_matrix: SparseMatrix) -> None:
        """Checks the matrix (square, the solver's dtype) and records its sparsity pattern.
        SuperLU chooses the fill-reducing ordering inside a factorisation, so the first
        ``factorize`` of this pattern chooses it and later ones reuse it. Analysing the
        pattern the solver already holds keeps its ordering (the analysis would be the
        same), so ``analyze_pattern`` + ``factorize`` every step reorders only once."""
        self.matrix = self._check(sparse_matrix, "SparseSolver.analyze_pattern")
        csr = self.matrix._csr
        if self._ordering is None or not self._ordering.matches(csr):
            self._ordering = Ordering(csr)

    def factorize(self, sparse_matrix: SparseMatrix) -> None:
        """Factorises the matrix; ``info()`` says whether that succeeded.

        A matrix with the pattern of the last ``analyze_pattern`` (its values may differ)
        reuses the fill-reducing ordering an earlier ``factorize`` of that pattern chose;
        another pattern is analysed afresh.

        >>> import numpy as np
        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f64)
        >>> A[0, 0], A[1, 1] = 2.0, 4.0
        >>> solver = ti.linalg.SparseSolver(dtype=ti.f64)
        >>> solver.analyze_pattern(A)
        >>> solver.factorize(A)
        >>> solver.factorize(A * 2.0)  # same pattern, new values
        >>> solver.solve(np.array([4.0, 8.0])).tolist()
        [1.0, 1.0]
        """
        matrix = self._check(sparse_matrix, "SparseSolver.factorize")
        csr = matrix._csr
        if self._ordering is None or not self._ordering.matches(csr):
            self._ordering = Ordering(csr)
        self.matrix, self._factor, self._failure = matrix, None, None
        if self.solver_type in ("LLT", "LDLT"):
            self._failure = _symmetry_error(csr, float(np.finfo(matrix.dtype.np_dtype).eps))
            if self._failure:
                return
        try:
            self._factor = superlu(csr, self.solver_type, self.ordering, self._ordering)
        except FactorizationError as error:
            self._failure = str(error)

    def solve(self, b):
        """The solution of ``A x = b``."""
        call = "SparseSolver.solve"
        if self.matrix is None:
            raise TiRuntimeError(f"{call}: call compute() before calling solve()")
        if self._factor is None:
            raise TiRuntimeError(
                f"{call}: the {self.solver_type} factorisation failed: {self._failure}",
                hint="LLT needs a symmetric positive definite matrix, LDLT a symmetric one; "
                "LU takes any non-singular square matrix",
            )
        vector = vector_of(b, self.matrix.n, call).astype(self.dtype.np_dtype)
        x = self._factor.solve(vector)
        if isinstance(b, Ndarray):
            out = ndarray(b.dtype, shape=(self.matrix.m,))
            out.from_numpy(x.astype(b.dtype.np_dtype))
            return out
        return x.astype(self.dtype.np_dtype, copy=False)

    def info(self) -> bool:
        """Whether the last factorisation succeeded."""
        return self._factor is not None


class SparseCG:
    """Conjugate gradient for a symmetric positive definite SparseMatrix.

    Args:
        A: the matrix.
        b: the right-hand side: a NumPy vector, 1-D ``ti.ndarray`` or field.
        x0: the initial guess (zeros when None).
        max_iter: the most iterations.
        atol: converged when ``‖b - A x‖ ≤ atol·‖b‖`` (Eigen's tolerance, which Taichi
            passes this value to).

    ``solve()`` returns ``(x, converged)``, ``x`` a NumPy array in A's dtype.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f64)
    >>> A[0, 0], A[1, 1] = 2.0, 4.0
    >>> x, ok = ti.linalg.SparseCG(A, np.array([2.0, 2.0])).solve()
    >>> x.tolist(), ok
    ([1.0, 0.5], True)
    """

    def __init__(self, A: SparseMatrix, b, x0=None, max_iter: int = 50, atol: float = 1e-6):
        call = "ti.linalg.SparseCG"
        self.matrix = _as_matrix(A, call)
        if A.n != A.m:
            raise TiValueError(f"{call}: the matrix is {A.n} x {A.m}, not square")
        self.dtype = A.dtype
        np_dtype = A.dtype.np_dtype
        self.b = vector_of(b, A.n, call).astype(np_dtype)
        self.x0 = (
            np.zeros(A.n, np_dtype) if x0 is None else vector_of(x0, A.n, call).astype(np_dtype)
        )
        self.max_iter, self.atol = int(max_iter), float(atol)
        self.iterations, self.error = 0, 0.0

    def solve(self) -> tuple[np.ndarray, bool]:
        """Runs the iterations; ``(x, converged)``."""
        a = self.matrix._csr
        dtype = a.dtype
        x, b = self.x0.copy(), self.b
        diag = a.diagonal()
        inv_diag = np.where(diag != 0, 1 / np.where(diag != 0, diag, 1), 1).astype(dtype)
        rhs_norm2 = float(b @ b)
        if rhs_norm2 == 0:
            self.iterations, self.error = 0, 0.0
            return np.zeros_like(x), True
        threshold = max(self.atol**2 * rhs_norm2, float(np.finfo(dtype).tiny))
        r = b - a @ x
        r_norm2 = float(r @ r)
        i = 0
        if r_norm2 >= threshold:
            p = inv_diag * r
            abs_new = float(r @ p)
            while i < self.max_iter:
                q = a @ p
                alpha = dtype.type(abs_new / float(p @ q))
                x += alpha * p
                r -= alpha * q
                r_norm2 = float(r @ r)
                if r_norm2 < threshold:
                    i += 1
                    break
                z = inv_diag * r
                abs_old, abs_new = abs_new, float(r @ z)
                p = z + dtype.type(abs_new / abs_old) * p
                i += 1
        self.iterations = i
        self.error = float(np.sqrt(r_norm2 / rhs_norm2))
        return x, bool(self.error <= self.atol)
