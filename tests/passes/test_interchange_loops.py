"""interchange_loops: a parallel loop whose inner loop strides memory runs in strips with
the loops swapped (issue 18). Results are compared with the passes off."""

import numpy as np
import pytest

from tests.passes.on_off import both

pytestmark = pytest.mark.cpu


def _fired(kernel) -> bool:
    return "interchange_loops" in kernel.stages()["report"]["passes"]


@pytest.mark.parametrize("n", [4096, 1000])  # 1000: the last strip is partial
def test_column_major_row_update_is_swapped(n):
    def run(ti):
        a = ti.field(ti.f32)
        ti.root.dense(ti.j, n).dense(ti.i, n).place(a)

        @ti.kernel
        def rows(scale: ti.f32):
            for i in range(n):
                base = i * scale
                for j in range(n):
                    a[i, j] += base + j

        rows(2.0)
        return a.to_numpy(), _fired(rows)

    (on, fired), (off, fired_off) = both(run)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    np.testing.assert_array_equal(on, (2.0 * i + j).astype(np.float32))
    np.testing.assert_array_equal(off, on)
    assert fired and not fired_off


def test_row_major_is_left_alone():
    def run(ti):
        a = ti.field(ti.f32, shape=(1024, 1024))

        @ti.kernel
        def rows():
            for i in range(1024):
                for j in range(1024):
                    a[i, j] += 1.0

        rows()
        return a.to_numpy(), _fired(rows)

    (on, fired), _ = both(run)
    assert (on == 1).all() and not fired


def test_ndarray_read_down_its_columns_is_swapped():
    data = np.random.default_rng(1).random((600, 1024), dtype=np.float32)

    def run(ti):
        @ti.kernel
        def transpose(src: ti.types.ndarray(ti.f32, ndim=2), dst: ti.types.ndarray(ti.f32, ndim=2)):
            for i in range(1024):
                for j in range(600):
                    dst[j, i] = src[j, i] * 2.0

        out = np.zeros_like(data)
        transpose(data, out)
        return out, _fired(transpose)

    (on, fired), (off, _) = both(run)
    np.testing.assert_array_equal(on, data * 2)
    np.testing.assert_array_equal(off, on)
    assert fired


@pytest.mark.parametrize("case", ["break", "bounds_depend_on_i", "local_across_j"])
def test_shapes_it_must_not_touch(case):
    n = 1024

    def run(ti):
        a = ti.field(ti.i32)
        ti.root.dense(ti.j, n).dense(ti.i, n).place(a)

        @ti.kernel
        def with_break():
            for i in range(n):
                for j in range(n):
                    if j > i:
                        break
                    a[i, j] += 1

        @ti.kernel
        def triangle():
            for i in range(n):
                for j in range(i + 1):
                    a[i, j] += 1

        @ti.kernel
        def running():
            for i in range(n):
                s = 0
                for j in range(n):
                    s += j
                    if j <= i:
                        a[i, j] += s

        kernel = {"break": with_break, "bounds_depend_on_i": triangle, "local_across_j": running}
        kernel[case]()
        return a.to_numpy(), _fired(kernel[case])

    (on, fired), (off, _) = both(run)
    np.testing.assert_array_equal(off, on)
    assert not fired
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    mask = j <= i
    expect = np.where(mask, j * (j + 1) // 2 if case == "local_across_j" else 1, 0)
    np.testing.assert_array_equal(on, expect)


@pytest.mark.parametrize("column_major", [True, False])
def test_ndrange_axes_swap_for_a_column_major_field(column_major):
    m, n = 300, 520

    def run(ti):
        x = ti.field(ti.f32)
        if column_major:
            ti.root.dense(ti.j, n).dense(ti.i, m).place(x)
        else:
            ti.root.dense(ti.ij, (m, n)).place(x)

        @ti.kernel
        def touch():
            for i, j in ti.ndrange((2, m), (1, n - 3)):
                x[i, j] += 1.0 + i * 0.5 - j

        touch()
        return x.to_numpy(), _fired(touch)

    (on, fired), (off, fired_off) = both(run)
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    inside = (i >= 2) & (j >= 1) & (j < n - 3)
    np.testing.assert_array_equal(on, np.where(inside, 1.0 + i * 0.5 - j, 0).astype(np.float32))
    np.testing.assert_array_equal(off, on)
    assert fired == column_major and not fired_off
