"""Runtime indices into kernel vectors and matrices, slices, and their range checks.

Taichi 1.7.4 indexes a local vector or matrix with any integer kernel value (a loop
variable of a non-static loop included; checked with real Taichi: ``v[i]`` with ``i``
counted in a loop reads the right component). An index out of range raises like a field
access here (bounds checks are on by default): TiIndexError at the line, with the index
and the extent.
"""

import numpy as np
import pytest
from kernel_errors import raises_at

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiTypeError

pytestmark = pytest.mark.cpu


@pytest.mark.parametrize("dt, np_type", [(ti.f32, np.float32), (ti.f64, np.float64)])
def test_reads_and_writes_with_loop_variables(dt, np_type):
    a = np.arange(12, dtype=np_type).reshape(3, 4) / 4
    m = ti.Matrix.field(3, 4, dt, shape=())
    out = ti.Matrix.field(3, 4, dt, shape=())
    sums = ti.field(dt, shape=4)

    @ti.kernel
    def run():
        src = m[None]
        dst = ti.Matrix.zero(dt, 3, 4)
        for i in range(3):
            for j in range(4):
                dst[i, j] = src[i, j] * 2
        acc = ti.Vector.zero(dt, 4)
        for j in range(4):
            for i in range(3):
                acc[j] += src[i, j]
        for j in range(4):
            sums[j] = acc[j]
        out[None] = dst

    m.from_numpy(a)
    run()
    np.testing.assert_array_equal(out.to_numpy(), a * 2)
    np.testing.assert_array_equal(sums.to_numpy(), a.sum(axis=0))


def test_rows_mixed_axes_and_any_kernel_value_as_index():
    out = ti.field(ti.i32, shape=9)

    @ti.kernel
    def run(k: ti.i32):
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        row = m[k]  # a runtime row: a vector
        out[0] = row[0] * 100 + row[1] * 10 + row[2]
        out[1] = m[k, 2]  # one runtime axis, one constant
        out[2] = m[1 - k, k + 1]
        m[k] = ti.Vector([7, 8, 9])  # a runtime row written
        out[3] = m.sum()
        v = ti.Vector([10, 20, 30])
        j = v[k] // 10  # an index computed from a value
        out[4] = v[j]
        v[j] = -1
        out[5] = v[0] + v[1] + v[2]
        u = ti.Vector([1.5, 2.5])[k]
        out[6] = ti.cast(u * 2, ti.i32)
        idx = ti.cast(k, ti.u8)  # any integer type
        out[7] = v[idx]
        out[8] = ti.Matrix([[1, 2], [3, 4]])[k][k]

    run(1)
    np.testing.assert_array_equal(out.to_numpy(), [456, 6, 3, 30, 30, 29, 5, 20, 4])


def test_vector_field_components_and_ndarray_components():
    x = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def fill(arr: ti.types.ndarray(dtype=ti.types.vector(3, ti.f32), ndim=1)):
        for p in x:
            for d in range(3):
                x[p][d] = p * 10 + d
                arr[p][d] = x[p][d] * 2
            x[p][(p + 1) % 3] += 0.5

    arr = np.zeros((4, 3), np.float32)
    fill(arr)
    base = np.arange(4)[:, None] * 10 + np.arange(3)[None, :]
    bumped = base.astype(np.float32).copy()
    bumped[np.arange(4), (np.arange(4) + 1) % 3] += 0.5
    np.testing.assert_array_equal(x.to_numpy(), bumped)
    np.testing.assert_array_equal(arr, base * 2)


def test_atomic_updates_through_a_runtime_index():
    counts = ti.Vector.field(4, ti.i32, shape=())

    @ti.kernel
    def histogram():
        for i in range(100):
            counts[None][i % 4] += 1

    histogram()
    np.testing.assert_array_equal(counts.to_numpy(), [25, 25, 25, 25])


def test_slices_with_compile_time_bounds():
    out = ti.field(ti.f32, shape=12)

    @ti.kernel
    def run():
        m = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
        v = ti.Vector([1.0, 2.0, 3.0, 4.0])
        col = m[:, 1]
        row = m[2, :]
        tail = v[1:]
        even = v[::2]
        corner = m[1:, 1:]
        out[0], out[1], out[2] = col[0], col[1], col[2]
        out[3] = row.sum()
        out[4] = tail.sum()
        out[5] = even[1]
        out[6] = corner.determinant()
        out[7] = len(tail)
        m[:, 0] = ti.Vector([0.0, 0.0, 0.0])
        out[8] = m.sum()

    run()
    m = np.arange(1.0, 10.0).reshape(3, 3)
    v = np.arange(1.0, 5.0)
    corner = np.linalg.det(m[1:, 1:])
    want = [*m[:, 1], m[2, :].sum(), v[1:].sum(), v[::2][1], corner, 3, m[:, 1:].sum()]
    np.testing.assert_allclose(out.to_numpy()[:9], want, rtol=1e-6)


# -- out of range ---------------------------------------------------------------------------------
def test_a_runtime_index_out_of_range_raises_at_its_line():
    @ti.kernel
    def read(i: ti.i32) -> ti.f32:
        v = ti.Vector([1.0, 2.0, 3.0])
        return v[i]

    @ti.kernel
    def write(i: ti.i32, j: ti.i32) -> ti.f32:
        m = ti.Matrix.zero(ti.f32, 2, 2)
        m[i, j] = 1.0
        return m.sum()

    @ti.kernel
    def loop_past_the_end() -> ti.f32:
        v = ti.Vector([1.0, 2.0, 3.0])
        total = 0.0
        for k in range(4):
            total += v[k]
        return total

    assert read(2) == 3.0
    err = raises_at(TiIndexError, read, "return v[i]", 3)
    assert "index (3,) is outside shape (3,)" in str(err)
    err = raises_at(TiIndexError, write, "m[i, j] = 1.0", 0, -1)
    assert "(-1,)" in str(err) and "axis 1" in str(err)
    raises_at(TiIndexError, loop_past_the_end, "total += v[k]")
    assert write(1, 1) == 1.0  # the process keeps working


def test_without_bounds_checks_an_out_of_range_index_is_quiet():
    ti.init(arch=ti.cpu, check_bounds=False)

    @ti.kernel
    def read(i: ti.i32) -> ti.f32:
        v = ti.Vector([1.0, 2.0, 3.0])
        v[i] = 9.0  # writes nothing
        return v[i] + v.sum()  # the first component for an index out of range

    assert read(1) == 9.0 + 13.0
    assert read(5) == 1.0 + 6.0


def test_debug_mode_checks_too():
    ti.init(arch=ti.cpu, debug=True)

    @ti.kernel
    def read(i: ti.i32) -> ti.i32:
        return ti.Vector([1, 2])[i]

    raises_at(TiIndexError, read, "ti.Vector([1, 2])[i]", 2)


def test_float_indices_and_constant_indices_out_of_range_are_refused():
    @ti.kernel
    def float_index(x: ti.f32) -> ti.f32:
        return ti.Vector([1.0, 2.0])[x]

    @ti.kernel
    def constant_out_of_range() -> ti.f32:
        return ti.Vector([1.0, 2.0])[2]

    @ti.kernel
    def too_many() -> ti.f32:
        return ti.Vector([1.0, 2.0])[0, 1]

    assert "integer" in str(raises_at(TiTypeError, float_index, "[x]", 1.0))
    raises_at(TiIndexError, constant_out_of_range, "[2]")
    assert "takes 1 index" in str(raises_at(TiIndexError, too_many, "[0, 1]"))
