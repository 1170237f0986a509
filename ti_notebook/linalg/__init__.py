"""``ti.linalg``: sparse matrices and solvers, as Taichi 1.7 has them.

- :class:`SparseMatrixBuilder`: kernels fill it through a parameter annotated
  ``ti.types.sparse_matrix_builder()`` with ``A[i, j] += v`` / ``A[i, j] -= v``;
  ``build()`` gives a :class:`SparseMatrix`.
- :class:`SparseMatrix`: ``+ - * @``, ``transpose()``, ``A[i, j]``, ``mmwrite``
  (SciPy's CSR matrices underneath).
- :class:`SparseSolver` (``"LLT"``, ``"LDLT"``, ``"LU"``; SciPy's SuperLU) and
  :class:`SparseCG` (conjugate gradient) for sparse matrices.
- :class:`LinearOperator`, :func:`MatrixFreeCG`, :func:`MatrixFreeBICGSTAB`: Krylov
  solvers whose matrix is a kernel, written as ti_notebook kernels.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> n = 4
    >>> K = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=3 * n)
    >>> @ti.kernel
    ... def fill(A: ti.types.sparse_matrix_builder()):
    ...     for i in range(n):
    ...         A[i, i] += 2.0
    ...         if i + 1 < n:
    ...             A[i, i + 1] -= 1.0
    ...             A[i + 1, i] -= 1.0
    >>> fill(K)
    >>> A = K.build()
    >>> solver = ti.linalg.SparseSolver(solver_type="LLT")
    >>> solver.compute(A)
    >>> x = solver.solve(np.ones(n, np.float32))
    >>> np.allclose(A @ x, 1.0, atol=1e-5)
    True
"""

from ti_notebook.linalg.builder import SparseMatrixBuilder
from ti_notebook.linalg.matrix_free import LinearOperator, MatrixFreeBICGSTAB, MatrixFreeCG
from ti_notebook.linalg.solvers import SparseCG, SparseSolver
from ti_notebook.linalg.sparse_matrix import SparseMatrix

__all__ = [
    "LinearOperator",
    "MatrixFreeBICGSTAB",
    "MatrixFreeCG",
    "SparseCG",
    "SparseMatrix",
    "SparseMatrixBuilder",
    "SparseSolver",
]
