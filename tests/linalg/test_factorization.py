"""SparseSolver's analyze_pattern + factorize: a later factorize of a matrix with the same
pattern reuses the ordering the first one chose and solves the new values' system (every
solver type and ordering, f32 and f64); a new pattern is analysed afresh; failures of a
reused ordering still report through info()."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp

import ti_notebook as ti
from ti_notebook.errors import TiRuntimeError
from ti_notebook.linalg.factorization import Ordering, superlu

pytestmark = pytest.mark.cpu

N = 60

CASES = [
    ("spd", "LLT"),
    ("spd", "LDLT"),
    ("indefinite", "LDLT"),
    ("indefinite", "LU"),
    ("nonsymmetric", "LU"),
]


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def sparse(dense, dtype):
    return ti.linalg.SparseMatrix(sm=sp.csr_matrix(dense.astype(dtype.np_dtype)))


def system(kind, rng):
    """A matrix of ``kind`` and one with the same pattern and other values."""
    mask = rng.random((N, N)) < 0.1
    r = rng.standard_normal((N, N)) * mask
    if kind == "spd":
        a = r @ r.T + N * np.eye(N)
    elif kind == "indefinite":
        a = r + r.T + np.diag(np.where(np.arange(N) % 2, 6.0, -6.0))
    else:
        a = r + np.diag(6.0 + rng.random(N))
    s = rng.random((N, N))
    if kind != "nonsymmetric":
        s = s + s.T
    a2 = a * (1.0 + 0.2 * s)  # same nonzeros, other values (symmetric when a is)
    if kind == "spd":
        a2 += np.diag(N * rng.random(N))
        assert np.linalg.eigvalsh(a2).min() > 0
    return a, a2


@pytest.mark.parametrize("ordering", ["AMD", "COLAMD"])
@pytest.mark.parametrize("kind, solver_type", CASES)
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_factorize_same_pattern_reuses_ordering(kind, solver_type, ordering, dtype):
    rng = np.random.default_rng(len(kind) + 7 * len(solver_type) + len(ordering))
    a, a2 = system(kind, rng)
    b = rng.standard_normal(N)
    solver = ti.linalg.SparseSolver(dtype=dtype, solver_type=solver_type, ordering=ordering)
    solver.analyze_pattern(sparse(a, dtype))
    solver.factorize(sparse(a, dtype))
    perm = solver._ordering.perm
    assert perm is not None and sorted(perm) == list(range(N))
    tol = 2e-3 if dtype is ti.f32 else 1e-9
    np.testing.assert_allclose(
        solver.solve(b.astype(dtype.np_dtype)), scipy.linalg.solve(a, b), rtol=tol, atol=tol
    )
    solver.factorize(sparse(a2, dtype))
    assert solver.info() is True and solver._ordering.perm is perm  # reused, not redone
    x = solver.solve(b.astype(dtype.np_dtype))
    assert x.dtype == dtype.np_dtype
    np.testing.assert_allclose(x, scipy.linalg.solve(a2, b), rtol=tol, atol=tol)


def test_factorize_new_pattern_is_analysed_afresh():
    rng = np.random.default_rng(1)
    a, _ = system("spd", rng)
    b = rng.standard_normal(N)
    solver = ti.linalg.SparseSolver(dtype=ti.f64)
    solver.compute(sparse(a, ti.f64))
    first = solver._ordering
    other = a + np.diag(np.ones(N - 1), 1) * 0.5 + np.diag(np.ones(N - 1), -1) * 0.5
    solver.factorize(sparse(other, ti.f64))
    assert solver._ordering is not first and not first.matches(sparse(other, ti.f64)._csr)
    np.testing.assert_allclose(solver.solve(b), scipy.linalg.solve(other, b), atol=1e-9)


def test_reused_ordering_still_reports_indefinite_and_recovers():
    rng = np.random.default_rng(2)
    a, _ = system("spd", rng)
    b = rng.standard_normal(N)
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    solver.compute(sparse(a, ti.f64))
    indefinite = a.copy()
    indefinite[5, 5] = -1.0  # same pattern, a negative eigenvalue
    solver.factorize(sparse(indefinite, ti.f64))
    assert solver.info() is False
    with pytest.raises(TiRuntimeError, match="LLT factorisation failed: .*not positive definite"):
        solver.solve(b)
    solver.factorize(sparse(a, ti.f64))
    assert solver.info() is True
    np.testing.assert_allclose(solver.solve(b), scipy.linalg.solve(a, b), atol=1e-9)


def test_semi_definite_neumann_laplacian_with_reused_ordering():
    # stable_fluid's pure-Neumann Laplacian: factorised twice, the second time reordered
    res = 24
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(res, res)).tolil()
    t[0, 0] = t[res - 1, res - 1] = 1.0
    lap = (sp.kron(sp.identity(res), t) + sp.kron(t, sp.identity(res))).tocsr()
    b = np.random.default_rng(3).standard_normal(res * res)
    b -= b.mean()
    known = Ordering(lap)
    for _ in range(2):
        x = superlu(lap, "LLT", "AMD", known).solve(b)
        np.testing.assert_allclose(lap @ x, b, atol=1e-8)
    assert known.perm is not None


def test_analyze_pattern_every_step_orders_once():
    # implicit_fem's loop: analyze_pattern + factorize each step on one solver
    rng = np.random.default_rng(4)
    a, a2 = system("spd", rng)
    b = rng.standard_normal(N)
    solver = ti.linalg.SparseSolver(dtype=ti.f32, solver_type="LLT")
    solver.compute(sparse(a, ti.f32))
    ordering = solver._ordering
    for dense in (a2, a):
        solver.analyze_pattern(sparse(dense, ti.f32))
        solver.factorize(sparse(dense, ti.f32))
        assert solver._ordering is ordering and solver.info()
        np.testing.assert_allclose(
            solver.solve(b.astype(np.float32)), scipy.linalg.solve(dense, b), rtol=2e-3, atol=2e-3
        )
