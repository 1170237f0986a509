"""Kernel arguments and return values: scalars, ti.template(), ti.types.ndarray(),
ti.ndarray, ti.func calls, and wrong calls.

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``);
where ti_notebook is stricter the test says so.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _is_taichi() -> bool:
    """True when ``ti_notebook`` is the test shim that re-exports real Taichi."""
    return ti.kernel.__module__.split(".")[0] == "taichi"


# --------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------


def test_scalar_args_int_float():
    out_i = ti.field(ti.i32, shape=())
    out_f = ti.field(ti.f32, shape=())

    @ti.kernel
    def store(a: int, b: float):
        out_i[None] = a * 3 - 1
        out_f[None] = b * 0.5

    for a, b in [(0, 0.0), (5, 2.5), (-7, -3.25), (2**31 - 1, 1e30), (-(2**31), -1e-30)]:
        store(a, b)
        assert out_i[None] == int(np.int32(np.int64(a) * 3 - 1))
        assert out_f[None] == float(np.float32(np.float32(b) * np.float32(0.5)))


def test_scalar_args_64_bit():
    @ti.kernel
    def mul_i64(a: ti.i64) -> ti.i64:
        return a * 3

    @ti.kernel
    def mul_f64(a: ti.f64) -> ti.f64:
        return a * 3

    for v in [0, 1, -1, 2**40, -(2**40), 2**61]:
        assert mul_i64(v) == v * 3
    for v in [0.1, -0.1, 1e300 / 4, 1 / 3]:
        assert mul_f64(v) == v * 3


def test_return_i32_and_f32():
    @ti.kernel
    def ret_i(a: ti.i32) -> ti.i32:
        return a - 10

    @ti.kernel
    def ret_f(a: ti.f32) -> ti.f32:
        return a / 4

    @ti.kernel
    def ret_const() -> ti.f32:
        return 1.1

    @ti.kernel
    def no_return(a: ti.i32):
        pass

    for v in [0, 10, -5, 2**31 - 1]:
        r = ret_i(v)
        assert type(r) is int
        assert r == int(np.int32(np.int64(v) - 10))
    for v in [1.0, -3.0, 0.1, 1e-3]:
        r = ret_f(v)
        assert type(r) is float
        assert r == float(np.float32(v) / np.float32(4))
    assert ret_const() == float(np.float32(1.1))  # f32 precision: 1.100000023841858
    assert no_return(1) is None


def test_return_converts_to_declared_type():
    @ti.kernel
    def int_from_float(a: ti.f32) -> ti.i32:
        return a * 2

    @ti.kernel
    def float_from_int(a: ti.i32) -> ti.f32:
        return a // 2

    for v in [1.3, -1.3, 2.75, -2.75]:
        assert int_from_float(v) == int(np.float32(v) * 2)
    for v in [7, -7, 0]:
        assert float_from_int(v) == float(v // 2)


def test_keyword_arguments_and_numpy_scalars():
    @ti.kernel
    def f(a: ti.i32, b: ti.f32) -> ti.f32:
        return a - b

    assert f(a=3, b=0.5) == 2.5
    assert f(3, b=0.5) == 2.5
    assert f(b=0.5, a=3) == 2.5
    assert f(np.int32(3), np.float32(0.5)) == 2.5
    assert f(np.int64(-3), np.float64(0.5)) == -3.5
    assert f(3, 2) == 1.0  # int passed to a float argument
    assert f(True, 0.5) == 0.5  # bool passed to an int argument


# --------------------------------------------------------------------------------------
# ti.template()
# --------------------------------------------------------------------------------------


def test_template_field_and_int_specialisation():
    a = ti.field(ti.i32, shape=5)
    b = ti.field(ti.i32, shape=8)
    a.from_numpy(np.arange(5, dtype=np.int32))
    b.from_numpy(np.arange(8, dtype=np.int32) * -2)

    @ti.kernel
    def partial_sum(x: ti.template(), n: ti.template()) -> ti.i32:
        s = 0
        for i in range(n):
            s += x[i]
        return s

    assert partial_sum(a, 5) == 10
    assert partial_sum(b, 8) == -56
    assert partial_sum(a, 3) == 3
    assert partial_sum(b, 2) == -2
    assert partial_sum(a, 5) == 10  # cached specialisation still right


def test_template_writes_into_the_given_field():
    x = ti.field(ti.f32, shape=4)
    y = ti.field(ti.f32, shape=(2, 2))

    @ti.kernel
    def scale(f: ti.template(), k: ti.f32):
        for I in ti.grouped(f):  # noqa: E741
            f[I] = f[I] * k + 1

    x.fill(2.0)
    y.fill(-1.0)
    scale(x, 3.0)
    scale(y, 0.5)
    assert x.to_numpy().tolist() == [7.0] * 4
    assert y.to_numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_template_python_values_are_compile_time_constants():
    @ti.kernel
    def unrolled(n: ti.template()) -> ti.i32:
        s = 0
        for i in ti.static(range(n)):
            s += (i + 1) * (i + 1)
        return s

    @ti.kernel
    def times(v: ti.template()) -> ti.i32:
        return v * 2

    for n in [0, 1, 4, 7]:
        assert unrolled(n) == sum((i + 1) ** 2 for i in range(n))
    assert times(3) == 6
    assert times(-4) == -8


# --------------------------------------------------------------------------------------
# ti.types.ndarray() with numpy arrays
# --------------------------------------------------------------------------------------


def test_ndarray_1d_numpy_write_back():
    @ti.kernel
    def twice_plus_index(arr: ti.types.ndarray()):
        for i in range(arr.shape[0]):
            arr[i] = arr[i] * 2 + i

    for np_dtype in [np.float32, np.int32, np.float64, np.int64]:
        for n in [1, 5, 33]:
            src = (np.arange(n) - 3).astype(np_dtype)
            arr = src.copy()
            twice_plus_index(arr)
            assert arr.dtype == np_dtype
            np.testing.assert_array_equal(arr, src * 2 + np.arange(n).astype(np_dtype))


def test_ndarray_2d_shape_and_struct_for():
    @ti.kernel
    def shape_code(arr: ti.types.ndarray()) -> ti.i32:
        return arr.shape[0] * 100 + arr.shape[1]

    @ti.kernel
    def total(arr: ti.types.ndarray()) -> ti.f32:
        s = 0.0
        for i, j in ti.ndrange(arr.shape[0], arr.shape[1]):
            s += arr[i, j]
        return s

    @ti.kernel
    def write_index(arr: ti.types.ndarray()):
        for i, j in arr:
            arr[i, j] = i * 10 - j

    for shape in [(1, 1), (3, 4), (7, 9), (2, 17)]:
        m = (np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape) - 5) * 0.5
        assert shape_code(m) == shape[0] * 100 + shape[1]
        assert total(m) == pytest.approx(float(m.sum()), rel=1e-6)
        w = np.zeros(shape, dtype=np.int32)
        write_index(w)
        ii, jj = np.indices(shape)
        np.testing.assert_array_equal(w, ii * 10 - jj)


def test_ndarray_typed_annotation():
    @ti.kernel
    def row_sums(a: ti.types.ndarray(dtype=ti.f32, ndim=2), out: ti.types.ndarray(ndim=1)):
        for i in range(a.shape[0]):
            s = 0.0
            for j in range(a.shape[1]):
                s += a[i, j]
            out[i] = s

    a = np.array([[1.0, 2.0, 3.0], [-1.0, -2.5, 0.5]], dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    row_sums(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1))


def test_ti_ndarray():
    a = ti.ndarray(ti.f32, shape=(4,))
    assert a.shape == (4,)
    assert a.dtype == ti.f32

    @ti.kernel
    def twice_plus_index(arr: ti.types.ndarray()):
        for i in range(arr.shape[0]):
            arr[i] = arr[i] * 2 + i

    @ti.kernel
    def write_index(arr: ti.types.ndarray()):
        for i, j in arr:
            arr[i, j] = i * 10 - j

    a.from_numpy(np.array([1.0, -2.0, 3.5, 0.0], dtype=np.float32))
    twice_plus_index(a)
    out = a.to_numpy()
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([2.0, -3.0, 9.0, 3.0], dtype=np.float32))

    b = ti.ndarray(ti.i32, shape=(2, 3))
    assert b.shape == (2, 3)
    write_index(b)
    np.testing.assert_array_equal(b.to_numpy(), [[0, -1, -2], [10, 9, 8]])
    b[1, 2] = 42
    assert b[1, 2] == 42
    b.fill(-1)
    np.testing.assert_array_equal(b.to_numpy(), np.full((2, 3), -1))
    with pytest.raises(ValueError):
        b.from_numpy(np.zeros((3, 2), dtype=np.int32))


# --------------------------------------------------------------------------------------
# ti.func
# --------------------------------------------------------------------------------------


def test_func_args_by_value_and_return():
    @ti.func
    def bump(a):
        a += 1  # scalars are passed by value: the caller's x is unchanged
        return a * 2

    @ti.func
    def typed(a: ti.f32, b: ti.i32) -> ti.f32:
        return a * b

    @ti.kernel
    def k(v: ti.i32) -> ti.i32:
        x = v
        y = bump(x)
        return x * 1000 + y

    @ti.kernel
    def k2(a: ti.f32, b: ti.i32) -> ti.f32:
        return typed(a, b)

    for v in [5, -5, 0]:
        assert k(v) == v * 1000 + (v + 1) * 2
    assert k2(1.5, 3) == 4.5
    assert k2(-0.25, -4) == 1.0


# --------------------------------------------------------------------------------------
# Wrong calls
# --------------------------------------------------------------------------------------


def test_wrong_argument_count():
    @ti.kernel
    def two(a: ti.i32, b: ti.f32) -> ti.f32:
        return a + b

    # ti_notebook raises TypeError (like Python); Taichi 1.7.4 raises TaichiSyntaxError,
    # a SyntaxError subclass.
    expected = (TypeError, SyntaxError) if _is_taichi() else TypeError
    for args in [(), (1,), (1, 2.0, 3)]:
        with pytest.raises(expected):
            two(*args)
    with pytest.raises(expected):
        two(1, c=2.0)
    assert two(1, 2.0) == 3.0  # still usable


def test_wrong_argument_type():
    @ti.kernel
    def one(a: ti.i32) -> ti.i32:
        return a

    # Taichi 1.7.4 raises TaichiRuntimeTypeError, a TypeError subclass
    for bad in ["abc", np.zeros(3), None, 2.5]:
        with pytest.raises(TypeError):
            one(bad)
    assert one(4) == 4


def test_wrong_ndarray_dtype_or_ndim():
    @ti.kernel
    def total(a: ti.types.ndarray(dtype=ti.f32, ndim=2)) -> ti.f32:
        s = 0.0
        for i, j in a:
            s += a[i, j]
        return s

    assert total(np.ones((2, 3), dtype=np.float32)) == 6.0
    with pytest.raises(ValueError):
        total(np.ones((2, 3), dtype=np.float64))
    with pytest.raises(ValueError):
        total(np.ones(3, dtype=np.float32))
