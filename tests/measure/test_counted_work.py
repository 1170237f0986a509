"""Bytes and FLOPs a call must move and compute, from the compiler's counts."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.measure.traffic import evaluate_bound

pytestmark = pytest.mark.cpu


def test_saxpy_over_fields():
    n = 1000
    x, y = ti.field(ti.f32, shape=n), ti.field(ti.f32, shape=n)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    work = ti.profiler.counted_work(saxpy, 2.0)
    # x read (4), y read and written (8); one multiply and one add per element
    assert (work.bytes, work.flops, work.flop_dtype) == (12 * n, 2 * n, "f32")
    assert work.exact and work.complete
    assert work.intensity == pytest.approx(2 / 12)


def test_a_five_point_stencil_counts_each_field_once_per_cell():
    n = 64
    u, v = ti.field(ti.f64, shape=(n, n)), ti.field(ti.f64, shape=(n, n))

    @ti.kernel
    def laplace():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            v[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]

    work = ti.profiler.counted_work(laplace)
    cells = (n - 2) ** 2
    assert work.bytes == 16 * cells  # u read once (8), v written (8)
    assert work.flops == 5 * cells  # 3 adds, 1 sub, 1 mul
    assert work.flop_dtype == "f64"


def test_bounds_from_arguments_shapes_and_templates():
    x = ti.field(ti.f32, shape=(4, 16))

    @ti.kernel
    def mixed(f: ti.template(), m: ti.i32, arr: ti.types.ndarray()):
        for i in range(m, arr.shape[0]):
            arr[i] = arr[i] * 2.0
        for i, j in ti.ndrange(4, (2, 10)):
            f[i, j] += 1.0

    work = ti.profiler.counted_work(mixed, x, 3, np.zeros(10, np.float32))
    assert [t.iterations for t in work.tasks] == [7, 32]
    assert work.bytes == 8 * 7 + 8 * 32


def test_serial_inner_loops_of_known_trip_count_multiply():
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def poly(a: ti.f32):
        for i in x:
            for _ in range(5):
                x[i] = x[i] * a + 1.0

    assert ti.profiler.counted_work(poly, 2.0).flops == 8 * 5 * 2


def test_a_sparse_struct_for_is_an_upper_bound():
    y = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(y)

    @ti.kernel
    def bump():
        for i, j in y:
            y[i, j] += 1.0

    work = ti.profiler.counted_work(bump)
    assert work.bytes == 8 * 256 and not work.exact


def test_integer_arithmetic_is_not_counted_as_flops():
    c = ti.field(ti.i32, shape=32)

    @ti.kernel
    def count():
        for i in c:
            c[i] = c[i] * 3 + 1

    work = ti.profiler.counted_work(count)
    assert work.flops is None or work.flops == 0
    assert work.flop_dtype is None


@pytest.mark.unit
def test_evaluate_bound_refuses_what_it_cannot_know():
    assert evaluate_bound(("arg", 0), (np.zeros(3),)) is None  # an array is no bound
    assert evaluate_bound(("floordiv", 4, ("arg", 0)), (0,)) is None
    assert evaluate_bound(("max", ("arg", 0), 2), (5,)) == 5
    assert evaluate_bound(None, ()) is None
