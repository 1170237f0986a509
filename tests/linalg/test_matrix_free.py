"""MatrixFreeCG and MatrixFreeBICGSTAB (kernels for every vector operation) against a
dense NumPy solve of the same operator, 1-D and 2-D, f32 and f64; their errors."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiRuntimeError, TiTypeError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def dense_of(matvec, shape, dtype):
    """The operator's matrix, column by column through the kernel itself."""
    n = int(np.prod(shape))
    x, y = ti.field(dtype, shape=shape), ti.field(dtype, shape=shape)
    columns = []
    for k in range(n):
        e = np.zeros(n)
        e[k] = 1
        x.from_numpy(e.reshape(shape).astype(dtype.np_dtype))
        matvec(x, y)
        columns.append(y.to_numpy().reshape(-1).astype(np.float64))
    return np.stack(columns, axis=1)


@ti.kernel
def laplacian_2d(v: ti.template(), out: ti.template()):
    for i, j in v:
        out[i, j] = 4.2 * v[i, j]
        for di, dj in ti.static(((1, 0), (-1, 0), (0, 1), (0, -1))):
            if 0 <= i + di < v.shape[0] and 0 <= j + dj < v.shape[1]:
                out[i, j] -= v[i + di, j + dj]


@ti.kernel
def advection_1d(v: ti.template(), out: ti.template()):
    for i in v:  # non-symmetric: upwind difference plus a diagonal
        out[i] = 3.0 * v[i]
        if i > 0:
            out[i] -= 1.5 * v[i - 1]
        if i < v.shape[0] - 1:
            out[i] += 0.5 * v[i + 1]


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
@pytest.mark.parametrize(
    "solver, matvec, shape",
    [
        (ti.linalg.MatrixFreeCG, laplacian_2d, (6, 5)),
        (ti.linalg.MatrixFreeBICGSTAB, laplacian_2d, (6, 5)),
        (ti.linalg.MatrixFreeBICGSTAB, advection_1d, (20,)),
    ],
)
def test_matches_dense_solve(solver, matvec, shape, dtype):
    rng = np.random.default_rng(0)
    rhs = rng.standard_normal(shape)
    b, x = ti.field(dtype, shape=shape), ti.field(dtype, shape=shape)
    b.from_numpy(rhs.astype(dtype.np_dtype))
    tol = 1e-5 if dtype is ti.f32 else 1e-10
    assert solver(ti.linalg.LinearOperator(matvec), b, x, tol=tol, maxiter=500) is True
    want = np.linalg.solve(dense_of(matvec, shape, dtype), rhs.reshape(-1)).reshape(shape)
    np.testing.assert_allclose(
        x.to_numpy(), want, rtol=1e-3 if dtype is ti.f32 else 1e-8, atol=1e-4
    )


def test_not_converging_returns_false_and_prints_when_asked(capsys):
    b, x = ti.field(ti.f64, shape=(6, 5)), ti.field(ti.f64, shape=(6, 5))
    b.fill(1.0)
    A = ti.linalg.LinearOperator(laplacian_2d)
    assert ti.linalg.MatrixFreeCG(A, b, x, tol=1e-12, maxiter=2, quiet=False) is False
    assert "failed to converge in 2 iterations" in capsys.readouterr().out


def test_errors():
    A = ti.linalg.LinearOperator(advection_1d)
    b32, x64 = ti.field(ti.f32, shape=4), ti.field(ti.f64, shape=4)
    with pytest.raises(TiTypeError, match=r"MatrixFreeCG: dtype mismatch b.dtype\(f32\)"):
        ti.linalg.MatrixFreeCG(A, b32, x64)
    with pytest.raises(TiRuntimeError, match="MatrixFreeBICGSTAB: dimension mismatch"):
        ti.linalg.MatrixFreeBICGSTAB(A, b32, ti.field(ti.f32, shape=5))
    with pytest.raises(TiTypeError, match="must be f32 or f64"):
        ti.linalg.MatrixFreeCG(A, ti.field(ti.i32, shape=4), ti.field(ti.i32, shape=4))
    with pytest.raises(TiRuntimeError, match="LinearOperator.matvec: dimension mismatch"):
        A.matvec(b32, ti.field(ti.f32, shape=5))
