"""The direct factorisations behind :class:`~ti_notebook.linalg.SparseSolver`: SciPy's
SuperLU, with the fill-reducing ordering kept for later matrices of the same pattern.

SuperLU chooses its column ordering inside ``splu`` (there is no separate symbolic
step to call), so :class:`Ordering` records the one the first factorisation of a pattern
chose, and every later factorisation of a matrix with that pattern permutes the matrix
symmetrically by it and asks SuperLU for its ``NATURAL`` ordering: the fill is the same
and the minimum-degree search is skipped (3-27 % of a factorisation's CPU time on the
matrices of ``benchmarks/sparse_solvers.py``). The symmetric permutation keeps the
diagonal on the diagonal, as the symmetric modes need; for LU's partial pivoting the
row order does not matter.

``"LLT"`` factorises without pivoting in symmetric mode (``A = L D Lᵀ``, ``D`` the
pivots) and is accepted when every pivot is positive: that is a Cholesky factorisation
that exists. A pivot negative only by rounding (below ``√ε`` of the largest) counts as
zero, so a semi-definite matrix such as a pure-Neumann Laplacian factorises.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> a = sp.csr_matrix(np.array([[4.0, 1.0], [1.0, 3.0]]))
    >>> ordering = Ordering(a)
    >>> factor = superlu(a, "LLT", "AMD", ordering)
    >>> ordering.perm is not None  # recorded for the next matrix of this pattern
    True
    >>> np.round(factor.solve(np.array([1.0, 2.0])), 6).tolist()
    [0.090909, 0.636364]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = ["Factor", "FactorizationError", "Ordering", "superlu"]

_PERMC = {"AMD": "MMD_AT_PLUS_A", "COLAMD": "COLAMD"}


class FactorizationError(Exception):
    """A factorisation that failed; the message says why (for ``SparseSolver.solve``)."""


class Ordering:
    """A sparsity pattern (CSR ``indptr`` and ``indices``) and, once a factorisation of it
    chose one, its fill-reducing permutation ``perm`` (row and column ``i`` of the
    permuted matrix are row and column ``perm[i]`` of the matrix).

    >>> import scipy.sparse as sp
    >>> Ordering(sp.identity(3, format="csr")).matches(sp.identity(3, format="csr") * 2)
    True
    """

    def __init__(self, csr: sp.csr_matrix) -> None:
        self.indptr, self.indices = csr.indptr.copy(), csr.indices.copy()
        self.perm: np.ndarray | None = None

    def matches(self, csr: sp.csr_matrix) -> bool:
        """Whether ``csr`` has this pattern (the same stored entries in the same order)."""
        return np.array_equal(self.indptr, csr.indptr) and np.array_equal(self.indices, csr.indices)


class Factor:
    """A SuperLU factorisation of ``A[perm][:, perm]`` (``perm`` None: of ``A``).

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> f = superlu(sp.csr_matrix(np.diag([2.0, 4.0])), "LU", "COLAMD", None)
    >>> f.solve(np.array([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """

    def __init__(self, lu, perm: np.ndarray | None) -> None:
        self.lu, self.perm = lu, perm

    def solve(self, b: np.ndarray) -> np.ndarray:
        """The solution of ``A x = b``, in ``b``'s dtype."""
        if self.perm is None:
            return self.lu.solve(b)
        x = np.empty_like(b)
        x[self.perm] = self.lu.solve(b[self.perm])  # A' y = b[perm], x[perm] = y
        return x


def superlu(csr: sp.csr_matrix, solver_type: str, ordering: str, known: Ordering | None) -> Factor:
    """Factorises ``csr`` (square, and symmetric for ``"LLT"``/``"LDLT"``) with SuperLU; raises
    :class:`FactorizationError` when it is singular or, for ``"LLT"``, not positive
    definite. ``known`` (when ``csr`` has its pattern) gives the ordering to reuse, or
    records the one this factorisation chooses."""
    symmetric = solver_type in ("LLT", "LDLT")
    perm = known.perm if known is not None else None
    matrix = csr if perm is None else csr[perm][:, perm]
    try:
        lu = spla.splu(
            matrix.tocsc(),
            permc_spec="NATURAL" if perm is not None else _PERMC[ordering],
            diag_pivot_thresh=0.0 if solver_type == "LLT" else None,
            options={"SymmetricMode": True} if symmetric else {},
        )
    except RuntimeError as error:  # SuperLU: "Factor is exactly singular"
        raise FactorizationError(f"the matrix is singular ({error})") from None
    if solver_type == "LLT":
        eps = float(np.finfo(csr.dtype).eps)
        failure = _definiteness(lu, eps)
        if failure:
            raise FactorizationError(failure)
    if known is not None and perm is None:
        # A·Pc = (columns argsort(perm_c)): SuperLU's ordering, with its postorder
        known.perm = np.argsort(lu.perm_c)
    return Factor(lu, perm)


def _definiteness(lu, eps: float) -> str | None:
    """Why a no-pivoting factorisation shows the matrix is not positive definite."""
    if not np.array_equal(lu.perm_r, lu.perm_c):  # a zero pivot made SuperLU swap rows
        return "the matrix is not positive definite (a zero pivot)"
    pivots = lu.U.diagonal()
    floor = -np.sqrt(eps) * np.abs(pivots).max()
    if not np.all(np.isfinite(pivots)) or pivots.min() < floor:
        return (
            "the matrix is not positive definite (a pivot of the Cholesky "
            f"factorisation is {pivots.min():g})"
        )
    return None
