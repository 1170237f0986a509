"""ti.linalg.SparseMatrix arithmetic against NumPy: + - * @ transpose, [i, j], @ with
a field / ndarray / NumPy vector (each returns what Taichi returns), build_from_ndarray,
mmwrite, printing, and the errors that name the operation."""

import numpy as np
import pytest
import scipy.io

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiTypeError, TiValueError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def random_sparse(rng, n, m, dtype, density=0.3):
    dense = rng.standard_normal((n, m)) * (rng.random((n, m)) < density)
    t = ti.Vector.ndarray(3, ti.f64, shape=n * m)
    rows, cols = np.indices((n, m))
    t.from_numpy(np.stack([rows.ravel(), cols.ravel(), dense.ravel()], axis=1))
    A = ti.linalg.SparseMatrix(n, m, dtype=dtype)
    A.build_from_ndarray(t)
    return A, dense.astype(dtype.np_dtype)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_arithmetic_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    A, a = random_sparse(rng, 7, 5, dtype)
    B, b = random_sparse(rng, 7, 5, dtype)
    C, c = random_sparse(rng, 5, 6, dtype)
    tol = 1e-5 if dtype is ti.f32 else 1e-12
    for got, want in [
        (A + B, a + b),
        (A - B, a - b),
        (A * 2.5, a * 2.5),
        (3 * A, 3 * a),
        (A * B, a * b),
        (A @ C, a @ c),
        (A.transpose(), a.T),
        (-A, -a),
    ]:
        assert isinstance(got, ti.linalg.SparseMatrix) and got.dtype is dtype
        np.testing.assert_allclose(got.to_numpy(), want, rtol=tol, atol=tol)
    D = ti.linalg.SparseMatrix(sm=A)
    D += B
    D -= A
    np.testing.assert_allclose(D.to_numpy(), b, atol=tol)
    assert A.shape == (7, 5) and (A.n, A.m) == (7, 5)
    assert A[2, 3] == pytest.approx(float(a[2, 3]))


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_matvec_with_field_ndarray_and_numpy(dtype):
    rng = np.random.default_rng(2)
    A, a = random_sparse(rng, 6, 4, dtype)
    v = rng.standard_normal(4).astype(dtype.np_dtype)
    want = a @ v
    f = ti.field(dtype, shape=4)
    f.from_numpy(v)
    nd = ti.ndarray(dtype, shape=4)
    nd.from_numpy(v)
    from_numpy, from_field, from_nd = A @ v, A @ f, A @ nd
    assert isinstance(from_numpy, np.ndarray) and from_numpy.dtype == dtype.np_dtype
    assert isinstance(from_field, np.ndarray)
    assert isinstance(from_nd, ti.Ndarray) and from_nd.shape == (6,) and from_nd.dtype is dtype
    for got in (from_numpy, from_field, from_nd.to_numpy()):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_mixed_precision_promotes_to_f64():
    A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f32)
    B = ti.linalg.SparseMatrix(2, 2, ti.f64)  # a dtype given third, as the short form
    assert (A + B).dtype is ti.f64 and B.dtype is ti.f64


def test_setitem_str_and_mmwrite(tmp_path):
    A = ti.linalg.SparseMatrix(2, 3)
    A[0, 1] = 1.5
    A[1, 2] = -2
    assert str(A) == "[0, 1.5, 0]\n[0, 0, -2]"
    path = tmp_path / "a.mtx"
    A.mmwrite(str(path))
    np.testing.assert_array_equal(scipy.io.mmread(str(path)).toarray(), A.to_numpy())


def test_errors_name_the_operation():
    A = ti.linalg.SparseMatrix(2, 3)
    B = ti.linalg.SparseMatrix(3, 3)
    with pytest.raises(
        TiValueError, match=r"SparseMatrix \+: dimension mismatch .*\(2, 3\).*\(3, 3\)"
    ):
        A + B
    with pytest.raises(TiValueError, match="SparseMatrix -"):
        A - B
    with pytest.raises(TiValueError, match="SparseMatrix \\*"):
        A * B
    with pytest.raises(TiValueError, match="SparseMatrix @"):
        A @ A
    with pytest.raises(TiValueError, match="SparseMatrix @: dimension mismatch"):
        A @ np.ones(2)
    with pytest.raises(TiTypeError, match="SparseMatrix @: does not take a list"):
        A @ [1, 2, 3]
    with pytest.raises(TiTypeError, match="SparseMatrix \\*: cannot multiply by a str"):
        A * "x"
    with pytest.raises(TiIndexError, match=r"\[5, 0\] is outside shape"):
        A[5, 0]
    nd = ti.ndarray(ti.f32, shape=4)
    with pytest.raises(TiValueError, match="build_from_ndarray: .* not a multiple of 3"):
        A.build_from_ndarray(nd)
    with pytest.raises(TiTypeError, match="build_from_ndarray"):
        A.build_from_ndarray(np.zeros(3))
