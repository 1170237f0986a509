"""ti.svd, ti.polar_decompose, ti.sym_eig, ti.eig and ti.solve in kernels, against NumPy.

Conventions checked are Taichi 1.7.4's (taichi/_funcs.py, and results of real Taichi
compared while writing this): ``A = U @ S @ V.T`` with ``S`` diagonal and ``|S|``
descending; a 2x2 SVD has ``S >= 0`` and a rotation ``V`` (``U`` is a reflection when
``det(A) < 0``); a 3x3 SVD has rotations ``U`` and ``V`` and only ``S[2, 2]`` may be
negative. ``A = R @ P`` with ``P`` symmetric. ``sym_eig``'s eigenvalues are descending
for 2x2 and ascending for 3x3. Results have the input's float type (or ``dt``).
"""

import numpy as np
import pytest
from kernel_errors import raises_at

import ti_notebook as ti
from ti_notebook.errors import TiNotImplementedError, TiTypeError

pytestmark = pytest.mark.cpu

DTYPES = [(ti.f32, np.float32, 2e-5), (ti.f64, np.float64, 1e-12)]


def _cases(n: int, np_type) -> np.ndarray:
    """Random, near-identity (an MPM deformation gradient), negative-determinant,
    rank-deficient, diagonal, repeated-value and zero matrices."""
    rng = np.random.default_rng(n)
    cases = [rng.uniform(-2, 2, (n, n)) for _ in range(6)]
    cases.append(np.eye(n) + 0.01 * rng.uniform(-1, 1, (n, n)))
    flipped = rng.uniform(-1, 1, (n, n))
    flipped[0] = -flipped[0] if np.linalg.det(flipped) > 0 else flipped[0]
    cases.append(flipped)
    low_rank = rng.uniform(-1, 1, (n, 1)) @ rng.uniform(-1, 1, (1, n))
    cases += [low_rank, np.diag(np.arange(1.0, n + 1)), 2.5 * np.eye(n), np.zeros((n, n))]
    return np.array(cases, dtype=np_type)


def _run(kind: str, n: int, dt, inputs: np.ndarray, outputs: int):
    """Runs ``ti.<kind>`` on each input matrix; its results as NumPy arrays."""
    a = ti.Matrix.field(n, n, dt, shape=len(inputs))
    shapes = [(n, n), (2 * n, n)] if kind == "eig" else [(n, n)] * outputs
    results = [ti.Matrix.field(r, c, dt, shape=len(inputs)) for r, c in shapes]

    @ti.kernel
    def run():
        for i in a:
            found = ti.static(getattr(ti, kind))(a[i])
            for k in ti.static(range(outputs)):
                value = found[k]
                if ti.static(len(value.get_shape()) == 1):  # eigenvalues: a diagonal
                    results[k][i] = ti.Matrix.zero(dt, n, n)
                    for j in ti.static(range(n)):
                        results[k][i][j, j] = value[j]
                else:
                    results[k][i] = value

    a.from_numpy(inputs)
    run()
    return [r.to_numpy() for r in results]


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_svd_reconstructs_with_taichis_conventions(dt, np_type, tol, n):
    inputs = _cases(n, np_type)
    U, S, V = _run("svd", n, dt, inputs, 3)
    scale = 1 + np.abs(inputs).max()
    np.testing.assert_allclose(U @ S @ V.transpose(0, 2, 1), inputs, atol=tol * 20 * scale)
    eye = np.broadcast_to(np.eye(n), U.shape)
    np.testing.assert_allclose(U @ U.transpose(0, 2, 1), eye, atol=tol * 20)
    np.testing.assert_allclose(V @ V.transpose(0, 2, 1), eye, atol=tol * 20)
    sigma = np.diagonal(S, axis1=1, axis2=2)
    np.testing.assert_array_equal(S, np.stack([np.diag(s) for s in sigma]))
    expected = np.linalg.svd(inputs.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(np.abs(sigma), expected, atol=tol * 20 * scale)
    assert (np.diff(np.abs(sigma), axis=1) <= tol * 20 * scale).all()  # descending
    np.testing.assert_allclose(np.linalg.det(V), 1, atol=tol * 20)  # V is a rotation
    if n == 2:
        assert (sigma >= 0).all()
    else:
        np.testing.assert_allclose(np.linalg.det(U), 1, atol=tol * 20)
        assert (sigma[:, :2] >= 0).all()
        det = np.linalg.det(inputs.astype(np.float64))
        clear = np.abs(det) > 1e-3  # sigma_3 carries det(A)'s sign
        np.testing.assert_array_equal(np.sign(sigma[clear, 2]), np.sign(det[clear]))


def test_svd_of_the_2x2_matches_real_taichi():
    # Values printed by Taichi 1.7.4 for ti.svd(ti.Matrix([[1.0, 2.0], [3.0, 4.0]])).
    U, S, V = _run("svd", 2, ti.f32, np.array([[[1, 2], [3, 4]]], np.float32), 3)
    np.testing.assert_allclose(U[0], [[-0.40455, -0.91451], [-0.91451, 0.40455]], atol=1e-5)
    np.testing.assert_allclose(S[0], [[5.46499, 0], [0, 0.36597]], atol=1e-5)
    np.testing.assert_allclose(V[0], [[-0.57605, 0.81742], [-0.81742, -0.57605]], atol=1e-5)


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_polar_decompose(dt, np_type, tol, n):
    inputs = _cases(n, np_type)
    R, P = _run("polar_decompose", n, dt, inputs, 2)
    scale = 1 + np.abs(inputs).max()
    np.testing.assert_allclose(R @ P, inputs, atol=tol * 20 * scale)
    np.testing.assert_allclose(P, P.transpose(0, 2, 1), atol=tol * 20 * scale)
    eye = np.broadcast_to(np.eye(n), R.shape)
    np.testing.assert_allclose(R @ R.transpose(0, 2, 1), eye, atol=tol * 20)
    if n == 2:  # P is sqrt(A.T A): positive semi-definite
        assert (np.linalg.eigvalsh(P.astype(np.float64)) >= -tol * 20 * scale).all()
    else:
        np.testing.assert_allclose(np.linalg.det(R), 1, atol=tol * 20)


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_sym_eig(dt, np_type, tol, n):
    inputs = _cases(n, np_type)
    inputs = (inputs + inputs.transpose(0, 2, 1)) / 2
    values, Q = _run("sym_eig", n, dt, inputs, 2)
    values = np.diagonal(values, axis1=1, axis2=2)
    scale = 1 + np.abs(inputs).max()
    expected = np.linalg.eigvalsh(inputs.astype(np.float64))  # ascending
    expected = expected[:, ::-1] if n == 2 else expected  # Taichi: 2x2 descending
    np.testing.assert_allclose(values, expected, atol=tol * 20 * scale)
    eye = np.broadcast_to(np.eye(n), Q.shape)
    np.testing.assert_allclose(Q.transpose(0, 2, 1) @ Q, eye, atol=tol * 20)
    np.testing.assert_allclose(inputs @ Q, Q * values[:, None, :], atol=tol * 20 * scale)


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
def test_eig_of_real_and_complex_2x2(dt, np_type, tol):
    real, rotation, spiral, other = (
        [[2, 1], [1, 3]],
        [[0, -1], [1, 0]],
        [[1, 2], [-3, 1]],
        [[4, 1], [2, 3]],
    )
    inputs = np.array([real, rotation, spiral, other, [[1, 1], [0, 1]]], np_type)
    values, vectors = _run("eig", 2, dt, inputs, 2)
    # values: rows [re, im]; vectors: columns [re0, im0, re1, im1] (Taichi's layout)
    lam = values[:, :2, 0] + 1j * values[:, :2, 1]
    vec = vectors[:, 0::2, :] + 1j * vectors[:, 1::2, :]
    for k, a in enumerate(inputs.astype(np.float64)):
        expected = np.linalg.eigvals(a)
        found = np.sort_complex(lam[k])
        np.testing.assert_allclose(found, np.sort_complex(expected), atol=tol * 20)
        for j in range(2):
            assert np.linalg.norm(vec[k][:, j]) == pytest.approx(1, abs=tol * 20)
            np.testing.assert_allclose(a @ vec[k][:, j], lam[k][j] * vec[k][:, j], atol=tol * 50)


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_solve_with_pivoting(dt, np_type, tol, n):
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (n, n)).astype(np_type)
    a[0, 0] = 0  # the first pivot must come from another row
    b = rng.uniform(-1, 1, n).astype(np_type)
    A = ti.Matrix.field(n, n, dt, shape=())
    B = ti.Vector.field(n, dt, shape=())
    x = ti.Vector.field(n, dt, shape=())

    @ti.kernel
    def run():
        x[None] = ti.solve(A[None], B[None])

    A.from_numpy(a)
    B.from_numpy(b)
    run()
    np.testing.assert_allclose(x.to_numpy(), np.linalg.solve(a, b), rtol=tol * 50, atol=tol * 50)


def test_the_working_type_follows_the_input_or_dt():
    out = ti.field(ti.f64, shape=4)

    @ti.kernel
    def run(x: ti.f64):
        a = ti.Matrix([[x, 1.0], [2.0, 3.0]], ti.f64)
        U, S, V = ti.svd(a)
        err = (U @ S @ V.transpose() - a).norm()
        out[0] = err
        values, Q = ti.sym_eig(ti.Matrix([[2, 1], [1, 2]]))  # an int matrix: default_fp
        out[1] = values[0]
        R, P = ti.polar_decompose(ti.Matrix([[x, 1.0], [2.0, 3.0]]), dt=ti.f64)
        out[2] = (R @ P)[0, 0]
        out[3] = ti.solve(ti.Matrix([[3, 0], [0, 4]]), ti.Vector([1, 1]))[0]

    run(1 / 3)
    got = out.to_numpy()
    assert got[0] < 1e-14  # f64 precision: an f32 computation would leave ~1e-7
    assert got[1] == 3.0
    assert abs(got[2] - 1 / 3) < 1e-14
    assert got[3] == pytest.approx(1 / 3, rel=1e-6)


def test_mpm_style_use_in_a_parallel_loop():
    F = ti.Matrix.field(2, 2, ti.f32, shape=64)
    out = ti.field(ti.f32, shape=64)

    @ti.kernel
    def run():
        for p in F:
            U, sig, V = ti.svd(F[p])
            for d in ti.static(range(2)):
                sig[d, d] = ti.max(sig[d, d], 1e-6)
            F[p] = U @ sig @ V.transpose()
            out[p] = sig[0, 0] * sig[1, 1]

    rng = np.random.default_rng(3)
    f = (np.eye(2) + 0.1 * rng.uniform(-1, 1, (64, 2, 2))).astype(np.float32)
    F.from_numpy(f)
    run()
    np.testing.assert_allclose(F.to_numpy(), f, atol=2e-6)
    np.testing.assert_allclose(out.to_numpy(), np.abs(np.linalg.det(f)), rtol=2e-5)


# -- misuse ---------------------------------------------------------------------------------------
def test_unsupported_sizes_are_refused_at_the_call():
    @ti.kernel
    def svd4() -> ti.f32:
        U, S, V = ti.svd(ti.Matrix.identity(ti.f32, 4))
        return S[0, 0]

    @ti.kernel
    def eig3() -> ti.f32:
        values, vectors = ti.eig(ti.Matrix.identity(ti.f32, 3))
        return values[0, 0]

    assert "4x4" in str(raises_at(TiNotImplementedError, svd4, "ti.svd("))
    assert "supports 2x2 matrices" in str(raises_at(TiNotImplementedError, eig3, "ti.eig("))


def test_non_square_and_non_matrix_arguments_are_refused():
    @ti.kernel
    def rectangular() -> ti.f32:
        R, P = ti.polar_decompose(ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        return R[0, 0]

    @ti.kernel
    def of_a_vector() -> ti.f32:
        values, Q = ti.sym_eig(ti.Vector([1.0, 2.0]))
        return values[0]

    @ti.kernel
    def integer_dt() -> ti.f32:
        U, S, V = ti.svd(ti.Matrix.identity(ti.f32, 2), ti.i32)
        return S[0, 0]

    @ti.kernel
    def wrong_b() -> ti.f32:
        return ti.solve(ti.Matrix.identity(ti.f32, 2), ti.Vector([1.0, 2.0, 3.0]))[0]

    assert "shape (2, 3)" in str(raises_at(TiTypeError, rectangular, "ti.polar_decompose("))
    assert "square matrix" in str(raises_at(TiTypeError, of_a_vector, "ti.sym_eig("))
    assert "float type" in str(raises_at(TiTypeError, integer_dt, "ti.svd("))
    assert "(2,)" in str(raises_at(TiTypeError, wrong_b, "ti.solve("))


def test_a_kernel_calling_the_library_is_offline_cached(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    F = ti.Matrix.field(3, 3, ti.f32, shape=2)

    @ti.kernel
    def run():
        for p in F:
            U, S, V = ti.svd(F[p])
            F[p] = U @ S @ V.transpose()

    before = ti.cache.info()
    run()
    after = ti.cache.info()
    # the library's own ti.funcs are the compiler's code: nothing makes the kernel uncacheable
    assert after["uncacheable"] == before["uncacheable"]
    assert after["misses"] == before["misses"] + 1


@pytest.mark.cpu_only(
    "exact reciprocals are the CPU backend's: under fast math the CUDA backend uses the GPU's "
    "approximate sqrt and division, as Taichi's CUDA code and nvcc's -use_fast_math do"
)
def test_svd_of_identity_and_tiny_shear_is_exact_as_taichis():
    """MPM decomposes F = I + (tiny): U @ V.T must be exactly I there, or the stress the
    stiffness multiplies is made of rounding (mpm99's C was 500x Taichi's)."""
    inputs = np.array([np.eye(2), [[1, 1e-7], [0, 1]], [[1.0001, 0], [0, 0.9999]]], np.float32)
    M = ti.Matrix.field(2, 2, ti.f32, shape=3)
    UVt = ti.Matrix.field(2, 2, ti.f32, shape=3)
    S = ti.Matrix.field(2, 2, ti.f32, shape=3)
    M.from_numpy(inputs)

    @ti.kernel
    def decompose():
        for p in M:
            u, s, v = ti.svd(M[p])
            UVt[p] = u @ v.transpose()
            S[p] = s

    decompose()
    # Taichi 1.7.4's values for these inputs
    assert UVt.to_numpy()[0].tolist() == [[1, 0], [0, 1]]
    assert UVt.to_numpy()[2].tolist() == [[1, 0], [0, 1]]
    assert S.to_numpy()[0].tolist() == [[1, 0], [0, 1]]
    assert S.to_numpy()[1].tolist() == [[1, 0], [0, 1]]
    np.testing.assert_allclose(np.diag(S.to_numpy()[2]), [1.0001, 0.9999], rtol=1e-7)


@pytest.mark.cpu_only(
    "exact reciprocals are the CPU backend's: under fast math the CUDA backend uses the GPU's "
    "approximate sqrt and division, as Taichi's CUDA code and nvcc's -use_fast_math do"
)
def test_reciprocal_square_root_is_exact_in_vectorised_loops():
    """x86 would turn 1 / sqrt(x) into an estimate plus a Newton step (0.49999997 for
    x = 4); the CPU backend turns estimates off, as Taichi's code divides exactly."""
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def invert():
        for i in x:
            x[i] = 1.0 / ti.sqrt(x[i])

    x.fill(4.0)
    invert()
    assert (x.to_numpy() == 0.5).all()
