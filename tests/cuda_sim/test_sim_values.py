"""Values and arguments on the GPU: vectors and matrices (fields and locals), ndarray
arguments read and written back, template arguments, ``ti.func``\\ s and ``ti.static``
- each against the CPU backend and NumPy."""

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti


def test_vector_field_arithmetic_and_norms(gpu):
    points = np.random.default_rng(1).integers(-9, 9, size=(200, 3)).astype(np.float32)

    def build():
        v = ti.Vector.field(3, ti.f32, shape=200)
        lengths = ti.field(ti.f32, shape=200)
        crossed = ti.Vector.field(3, ti.f32, shape=200)
        dots = ti.field(ti.f32, shape=200)
        v.from_numpy(points)

        @ti.kernel
        def compute():
            axis = ti.Vector([0.0, 0.0, 1.0])
            for i in v:
                p = v[i]
                lengths[i] = p.norm()
                crossed[i] = p.cross(axis) * 2.0 - p
                dots[i] = p.dot(v[(i + 1) % 200])

        compute()
        return lengths.to_numpy(), crossed.to_numpy(), dots.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-6)
    lengths, crossed, dots = actual
    assert_same(np.linalg.norm(points, axis=1), lengths, rtol=1e-6)
    assert_same(np.cross(points, [0, 0, 1]) * 2 - points, crossed)
    assert_same((points * np.roll(points, -1, axis=0)).sum(axis=1), dots)


def test_matrix_fields_products_and_transposes(gpu):
    mats = np.random.default_rng(2).integers(-4, 5, size=(64, 3, 3)).astype(np.float64)

    def build():
        m = ti.Matrix.field(3, 3, ti.f64, shape=64)
        traces = ti.field(ti.f64, shape=64)
        m.from_numpy(mats)

        @ti.kernel
        def compute():
            identity = ti.Matrix.identity(ti.f64, 3)
            for i in m:
                a = m[i]
                traces[i] = (a @ a).trace()
                m[i] = a @ a.transpose() + identity * 2.0

        compute()
        return m.to_numpy(), traces.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert_same(mats @ mats.transpose(0, 2, 1) + 2 * np.eye(3), actual[0])
    assert_same(np.trace(mats @ mats, axis1=1, axis2=2), actual[1])


def test_vector_atomics_and_local_vectors_in_loops(gpu):
    def build():
        total = ti.Vector.field(2, ti.i32, shape=())
        out = ti.Vector.field(4, ti.f32, shape=100)
        corner = ti.field(ti.f32, shape=100)

        @ti.kernel
        def compute():
            for i in range(100):
                total[None] += ti.Vector([i, 2 * i])
                acc = ti.Vector([0.0, 0.0, 0.0, 0.0])
                for k in ti.static(range(4)):
                    acc[k] = i * (k + 1)
                out[i] = acc
                corner[i] = acc.outer_product(ti.Vector([1.0, 0.5]))[3, 1]

        compute()
        return total[None].to_numpy(), out.to_numpy(), corner.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert actual[0].tolist() == [4950, 9900]
    assert_same(np.outer(np.arange(100), [1, 2, 3, 4]).astype(np.float32), actual[1])
    assert_same(np.arange(100, dtype=np.float32) * 4 * 0.5, actual[2])


@pytest.mark.parametrize("np_dtype", [np.float32, np.int32, np.float64, np.int64])
def test_ndarray_arguments_are_read_and_written_back(gpu, np_dtype):
    src = (np.arange(300) - 40).astype(np_dtype)

    def build():
        @ti.kernel
        def twice_plus_index(arr: ti.types.ndarray()):
            for i in range(arr.shape[0]):
                arr[i] = arr[i] * 2 + i

        arr = src.copy()
        twice_plus_index(arr)
        return arr

    expected, actual = gpu.against_cpu(build)
    assert actual.dtype == np_dtype
    assert_same(expected, actual)
    assert_same(src * 2 + np.arange(300).astype(np_dtype), actual)


def test_two_dimensional_ndarrays_and_ti_ndarray(gpu):
    matrix = (np.arange(7 * 9, dtype=np.float32).reshape(7, 9) - 5) * 0.5

    def build():
        @ti.kernel
        def row_sums(a: ti.types.ndarray(dtype=ti.f32, ndim=2), out: ti.types.ndarray(ndim=1)):
            for i in range(a.shape[0]):
                s = 0.0
                for j in range(a.shape[1]):
                    s += a[i, j]
                out[i] = s

        @ti.kernel
        def write_index(arr: ti.types.ndarray()):
            for i, j in arr:
                arr[i, j] = i * 10 - j

        sums = np.zeros(7, np.float32)
        row_sums(matrix, sums)
        held = ti.ndarray(ti.i32, shape=(5, 6))
        write_index(held)
        return sums, held.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert_same(matrix.sum(axis=1), actual[0])
    i, j = np.indices((5, 6))
    assert_same(i * 10 - j, actual[1])


def test_template_arguments_specialise_per_field_and_value(gpu):
    def build():
        a = ti.field(ti.f32, shape=50)
        b = ti.field(ti.i32, shape=(5, 10))

        @ti.kernel
        def scale(x: ti.template(), factor: ti.template()):
            for I in ti.grouped(x):  # noqa: E741
                x[I] = x[I] * factor + 1

        scale(a, 3)
        scale(a, 2.5)
        scale(b, 4)
        return a.to_numpy(), b.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert (actual[0] == 3.5).all() and (actual[1] == 1).all()


def test_funcs_inline_with_values_returns_and_static_branches(gpu):
    @ti.func
    def clamp(v, low, high):
        return ti.max(low, ti.min(v, high))

    @ti.func
    def smooth(x: ti.template(), i: ti.i32, wide: ti.template()) -> ti.f32:
        result = 0.0
        if ti.static(wide):
            result = (x[i - 2] + x[i - 1] + x[i] + x[i + 1] + x[i + 2]) / 5
        else:
            result = (x[i - 1] + x[i] + x[i + 1]) / 3
        return result

    data = np.random.default_rng(4).integers(0, 30, size=400).astype(np.float32)

    def build():
        x = ti.field(ti.f32, shape=400)
        narrow = ti.field(ti.f32, shape=400)
        wide = ti.field(ti.f32, shape=400)
        x.from_numpy(data)

        @ti.kernel
        def run():
            for i in range(2, 398):
                narrow[i] = clamp(smooth(x, i, False), 5.0, 20.0)
                wide[i] = smooth(x, i, True)

        run()
        return narrow.to_numpy(), wide.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-6)
    three = np.convolve(data, np.ones(3), mode="same") / 3
    want = np.zeros(400, np.float32)
    want[2:398] = np.clip(three[2:398], 5, 20)
    assert_same(want, actual[0], rtol=1e-6)


def test_casts_between_types(gpu):
    def build():
        @ti.kernel
        def convert(x: ti.f32) -> ti.i64:
            a = ti.cast(x, ti.i32)
            b = ti.cast(x * 1000, ti.u8)
            c = ti.cast(ti.cast(x, ti.f64) * 1e12, ti.i64)
            return a + b * 1000 + c * 1000000

        return [convert(v) for v in (1.5, -2.75, 0.2, 300.0)]

    expected, actual = gpu.against_cpu(build)
    assert actual == expected
