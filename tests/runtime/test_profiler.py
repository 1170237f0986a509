"""ti.init(kernel_profiler=True) and Taichi's ti.profiler functions."""

import io

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _kernels():
    x = ti.field(ti.f32, shape=1 << 16)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

    @ti.kernel
    def nothing():
        pass

    return fill, nothing


def test_profiler_counts_and_times_every_launch():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    fill, nothing = _kernels()
    for k in range(5):
        fill(float(k))
    nothing()
    info = ti.profiler.query_kernel_profiler_info("fill")
    assert info.counter == 5
    assert 0 < info.min <= info.avg <= info.max
    assert ti.profiler.query_kernel_profiler_info("nothing").counter == 1
    assert ti.profiler.query_kernel_profiler_info("absent").counter == 0
    assert ti.profiler.get_kernel_profiler_total_time() > 0
    out = io.StringIO()
    ti.profiler.print_kernel_profiler_info(file=out)
    table = out.getvalue()
    assert "fill" in table and "nothing" in table and "6 launches" in table
    out = io.StringIO()
    ti.profiler.print_kernel_profiler_info("trace", file=out)
    assert out.getvalue().count("fill") == 5
    ti.profiler.clear_kernel_profiler_info()
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 0


def test_profiler_off_records_nothing():
    ti.init(arch=ti.cpu)
    fill, _ = _kernels()
    fill(1.0)
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 0
    out = io.StringIO()
    ti.profiler.print_kernel_profiler_info(file=out)
    assert "kernel_profiler=True" in out.getvalue()
