"""The call fast path of kernels with ndarray arguments (issue 18): same results as the
first (specialising) call, a new dtype or rank specialises again, and every check still
runs once the path is warm."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang.fast_calls import NdarrayDispatch

pytestmark = pytest.mark.cpu


def _saxpy():
    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(ndim=1), y: ti.types.ndarray(ndim=1)):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    return saxpy


def test_warm_calls_take_the_dispatch_and_match_numpy():
    saxpy = _saxpy()
    x, y = np.arange(16, dtype=np.float32), np.ones(16, np.float32)
    saxpy(0.5, x, y)
    assert isinstance(saxpy._fast, NdarrayDispatch)
    for _ in range(3):
        saxpy(2.0, x, y)
    np.testing.assert_allclose(y, 1 + 0.5 * x + 6.0 * x)


def test_new_dtype_or_rank_specialises_again():
    saxpy = _saxpy()
    x32, y32 = np.ones(4, np.float32), np.zeros(4, np.float32)
    x64, y64 = np.ones(4, np.float64), np.zeros(4, np.float64)
    saxpy(1.0, x32, y32)
    saxpy(1.0, x64, y64)  # f64: a second specialisation
    saxpy(1.0, x32, y32)  # back to the first
    saxpy(3, x64, y64)  # an int for the f32 scalar: the checked path converts it
    assert y32.tolist() == [2.0] * 4 and y64.tolist() == [4.0] * 4
    assert len(saxpy._fast.launchers) == 2


def test_checks_still_run_when_warm():
    saxpy = _saxpy()
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    saxpy(1.0, x, y)
    with pytest.raises(TiValueError, match="not C-contiguous"):
        saxpy(1.0, x, np.zeros(16, np.float32)[::2])
    frozen = np.zeros(8, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TiValueError, match="read-only"):
        saxpy(1.0, x, frozen)
    with pytest.raises(TiTypeError, match="NumPy array"):
        saxpy(1.0, x, [0.0] * 8)
    with pytest.raises(TiTypeError, match="argument"):
        saxpy(1.0, x)
    with pytest.raises(TiTypeError, match="must be a number"):
        saxpy("a", x, y)
    saxpy(1.0, x, y)  # and it still works afterwards
    assert y.tolist() == [2.0] * 8


def test_fixed_dtype_annotation_refuses_another_dtype_when_warm():
    @ti.kernel
    def bump(a: ti.types.ndarray(ti.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 1

    a = np.zeros(3, np.int32)
    bump(a)
    bump(a)
    with pytest.raises(TiValueError, match="must have dtype i32"):
        bump(np.zeros(3, np.float32))
    assert a.tolist() == [2, 2, 2]


@pytest.mark.parametrize("shape", [(1,), (5,), (2, 3, 4)])
def test_any_rank(shape):
    @ti.kernel
    def total(a: ti.types.ndarray()) -> ti.f64:
        s = 0.0
        for idx in ti.grouped(a):
            s += a[idx]
        return s

    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 1
    assert total(a) == pytest.approx(a.sum())
    assert total(a * 2) == pytest.approx(2 * a.sum())


def test_ti_ndarray_and_vector_ndarrays_take_the_long_way():
    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = ti.Vector([i, 2 * i, 3 * i])

    v = np.zeros((4, 3), np.float32)
    fill(v)
    fill(v)
    assert v[3].tolist() == [3.0, 6.0, 9.0]
    saxpy = _saxpy()
    x = ti.ndarray(ti.f32, 4)
    y = ti.ndarray(ti.f32, 4)
    x.fill(1.0)
    saxpy(2.0, x, y)
    saxpy(2.0, x, y)
    assert y.to_numpy().tolist() == [4.0] * 4
