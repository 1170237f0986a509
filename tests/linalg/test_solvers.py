"""ti.linalg.SparseSolver and SparseCG against NumPy's dense solve, on random SPD,
symmetric indefinite and non-symmetric systems in f32 and f64, every solver type and
ordering that applies; failures report through info() and solve() says why."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiRuntimeError, TiTypeError, TiValueError

pytestmark = pytest.mark.cpu

N = 40


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def as_sparse(dense, dtype):
    B = ti.linalg.SparseMatrixBuilder(*dense.shape, max_num_triplets=dense.size, dtype=dtype)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder(), d: ti.types.ndarray()):
        for i, j in ti.ndrange(d.shape[0], d.shape[1]):
            if d[i, j] != 0:
                A[i, j] += d[i, j]

    fill(B, dense.astype(dtype.np_dtype))
    return B.build()


def random_system(kind, seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((N, N)) < 0.15
    r = rng.standard_normal((N, N)) * mask
    if kind == "spd":
        a = r @ r.T + N * np.eye(N)
    elif kind == "indefinite":  # symmetric, eigenvalues of both signs
        a = r + r.T + np.diag(np.where(np.arange(N) % 2, 6.0, -6.0))
    else:  # non-symmetric, diagonally dominant enough to be well conditioned
        a = r + np.diag(6.0 + rng.random(N))
    return a, rng.standard_normal(N)


CASES = [
    ("spd", "LLT"),
    ("spd", "LDLT"),
    ("spd", "LU"),
    ("indefinite", "LDLT"),
    ("indefinite", "LU"),
    ("nonsymmetric", "LU"),
]


@pytest.mark.parametrize("ordering", ["AMD", "COLAMD"])
@pytest.mark.parametrize("kind, solver_type", CASES)
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_direct_solve_matches_numpy(kind, solver_type, ordering, dtype):
    a, b = random_system(kind, seed=len(kind) + len(solver_type))
    A = as_sparse(a, dtype)
    solver = ti.linalg.SparseSolver(dtype=dtype, solver_type=solver_type, ordering=ordering)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info() is True
    x = solver.solve(b.astype(dtype.np_dtype))
    assert isinstance(x, np.ndarray) and x.dtype == dtype.np_dtype
    tol = 2e-3 if dtype is ti.f32 else 1e-9
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_solve_field_and_ndarray_right_hand_sides(dtype):
    a, b = random_system("spd", seed=3)
    solver = ti.linalg.SparseSolver(dtype=dtype)
    solver.compute(as_sparse(a, dtype))
    f = ti.field(dtype, shape=N)
    f.from_numpy(b.astype(dtype.np_dtype))
    nd = ti.ndarray(dtype, shape=N)
    nd.from_numpy(b.astype(dtype.np_dtype))
    from_field, from_nd = solver.solve(f), solver.solve(nd)
    assert isinstance(from_field, np.ndarray)
    assert isinstance(from_nd, ti.Ndarray) and from_nd.dtype is dtype
    want = np.linalg.solve(a, b)
    for got in (from_field, from_nd.to_numpy()):
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_semi_definite_laplacian_factorises_with_llt():
    # a pure-Neumann Laplacian (stable_fluid's) is singular; the consistent system solves
    res = 16
    n = res * res
    a = np.zeros((n, n))
    for i in range(res):
        for j in range(res):
            r = i * res + j
            for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if 0 <= i + di < res and 0 <= j + dj < res:
                    a[r, r + di * res + dj] -= 1
                    a[r, r] += 1
    b = np.random.default_rng(0).standard_normal(n)
    b -= b.mean()
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    solver.compute(as_sparse(a, ti.f64))
    assert solver.info()
    x = solver.solve(b)
    np.testing.assert_allclose(a @ x, b, atol=1e-6)


@pytest.mark.parametrize(
    "dense, reason",
    [
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "not positive definite"),
        (np.array([[-1.0, 0.0], [0.0, -2.0]]), "not positive definite"),
        (np.array([[2.0, 1.0], [0.0, 2.0]]), "not symmetric"),
    ],
)
def test_llt_refuses_what_it_cannot_factorise(dense, reason):
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    solver.compute(as_sparse(dense, ti.f64))
    assert solver.info() is False
    with pytest.raises(
        TiRuntimeError, match=f"SparseSolver.solve: the LLT factorisation failed: .*{reason}"
    ):
        solver.solve(np.ones(2))


@pytest.mark.parametrize("solver_type", ["LU", "LDLT"])
def test_singular_matrix_reports_through_info(solver_type):
    singular = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type=solver_type)
    solver.compute(as_sparse(singular, ti.f64))
    assert solver.info() is False
    with pytest.raises(TiRuntimeError, match="singular"):
        solver.solve(np.ones(3))


def test_argument_errors_name_the_call():
    with pytest.raises(TiValueError, match="SparseSolver: the solver type 'QR'"):
        ti.linalg.SparseSolver(solver_type="QR")
    with pytest.raises(TiValueError, match="ordering 'METIS'"):
        ti.linalg.SparseSolver(ordering="METIS")
    solver = ti.linalg.SparseSolver(dtype=ti.f32)
    with pytest.raises(TiRuntimeError, match=r"SparseSolver.solve: call compute\(\)"):
        solver.solve(np.ones(2))
    with pytest.raises(TiValueError, match="analyze_pattern: the SparseSolver's dtype f32 .* f64"):
        solver.analyze_pattern(ti.linalg.SparseMatrix(2, 2, dtype=ti.f64))
    with pytest.raises(TiValueError, match="factorize: the matrix is 2 x 3, not square"):
        solver.factorize(ti.linalg.SparseMatrix(2, 3))
    with pytest.raises(TiTypeError, match="compute: takes a ti.linalg.SparseMatrix"):
        solver.compute(np.eye(2))
    solver.compute(as_sparse(np.eye(2), ti.f32))
    with pytest.raises(TiValueError, match="SparseSolver.solve: dimension mismatch"):
        solver.solve(np.ones(3))


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_sparse_cg_matches_numpy(dtype):
    a, b = random_system("spd", seed=5)
    A = as_sparse(a, dtype)
    x, converged = ti.linalg.SparseCG(A, b.astype(dtype.np_dtype), max_iter=200, atol=1e-6).solve()
    assert converged is True and x.dtype == dtype.np_dtype
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-4, atol=1e-4)
    nd = ti.ndarray(dtype, shape=N)
    nd.from_numpy(b.astype(dtype.np_dtype))
    x0 = np.linalg.solve(a, b).astype(dtype.np_dtype)
    x, converged = ti.linalg.SparseCG(A, nd, x0=x0, max_iter=200).solve()
    assert converged and np.allclose(x, x0, atol=1e-4)


def test_sparse_cg_reports_no_convergence():
    a, b = random_system("spd", seed=6)
    x, converged = ti.linalg.SparseCG(as_sparse(a, ti.f64), b, max_iter=1, atol=1e-12).solve()
    assert converged is False and x.shape == (N,)


def _ldlt_with(lib, a, b):
    lib.init(arch=lib.cpu)
    B = lib.linalg.SparseMatrixBuilder(N, N, max_num_triplets=N * N)

    @lib.kernel
    def fill(A: lib.types.sparse_matrix_builder(), d: lib.types.ndarray()):
        for i, j in lib.ndrange(N, N):
            if d[i, j] != 0:
                A[i, j] += d[i, j]

    fill(B, a.astype(np.float32))
    solver = lib.linalg.SparseSolver(solver_type="LDLT")
    solver.compute(B.build())
    assert solver.info()
    return solver.solve(b.astype(np.float32))


@pytest.mark.taichi
def test_same_solution_as_taichi():
    taichi = pytest.importorskip("taichi")
    a, b = random_system("spd", seed=7)
    np.testing.assert_allclose(_ldlt_with(ti, a, b), _ldlt_with(taichi, a, b), rtol=1e-3, atol=1e-4)
