"""``ti.random`` on the GPU: a draw is Philox-4x32-10 of (seed, kernel, launch,
iteration, call site, count), never of a thread (README, ``runtime/random_streams.py``),
so a grid of CUDA threads draws exactly the CPU's numbers. The one documented
exception: inside block-local loops each cell of a shared block starts its own
counters (``codegen/nvptx/shared_memory.py``), so there only the statistics are the CPU's.
"""

import math

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti

N = 1 << 15


@pytest.mark.parametrize("dtype_name", ["f32", "f64", "i32", "u8"])
def test_uniform_draws_are_the_cpus(gpu, dtype_name):
    dtype = getattr(ti, dtype_name)

    def build():
        r = ti.field(dtype, shape=N)

        @ti.kernel
        def draw():
            for i in r:
                r[i] = ti.random(dtype)

        draw()
        first = r.to_numpy()
        draw()  # the next launch: other numbers
        return first, r.to_numpy()

    expected, actual = gpu.against_cpu(build, random_seed=7)
    assert_same(expected, actual)
    first, second = actual
    assert (first != second).mean() > 0.9
    if dtype_name.startswith("f"):
        assert first.min() >= 0.0 and first.max() < 1.0
        assert abs(first.mean() - 0.5) < 5 * 0.2887 / math.sqrt(N)


def test_normal_draws_match_the_cpu_and_the_distribution(gpu):
    def build():
        r = ti.field(ti.f32, shape=N)

        @ti.kernel
        def draw():
            for i in r:
                r[i] = ti.randn()

        draw()
        return r.to_numpy()

    expected, actual = gpu.against_cpu(build, random_seed=3)
    # Box-Muller's log and cos: the GPU's fast-math approximations may differ in the last bits
    assert_same(expected, actual, rtol=1e-5, atol=1e-5)
    assert abs(actual.mean()) < 5 / math.sqrt(N)
    assert abs(actual.std() - 1.0) < 5 * 0.7071 / math.sqrt(N)


def test_draws_in_inner_loops_and_serial_code_are_the_cpus(gpu):
    def build():
        grid = ti.field(ti.f32, shape=(64, 8))
        serial = ti.field(ti.f32, shape=4)

        @ti.kernel
        def draw():
            for i in range(64):
                for k in range(8):  # a site inside a nested loop keeps a counter
                    grid[i, k] = ti.random()
            for k in ti.static(range(4)):
                serial[k] = ti.random()

        @ti.kernel
        def one() -> ti.f64:
            return ti.random(ti.f64)

        draw()
        return grid.to_numpy(), serial.to_numpy(), one()

    expected, actual = gpu.against_cpu(build, random_seed=11)
    assert_same(expected, actual)
    assert len(np.unique(actual[0])) == 64 * 8


def test_seeds_change_the_numbers_on_both_backends(gpu):
    def build():
        r = ti.field(ti.i32, shape=256)

        @ti.kernel
        def draw():
            for i in r:
                r[i] = ti.random(ti.i32)

        draw()
        return r.to_numpy()

    seeded_1 = gpu.against_cpu(build, random_seed=1)
    seeded_2 = gpu.against_cpu(build, random_seed=2)
    assert_same(*seeded_1)
    assert_same(*seeded_2)
    assert (seeded_1[1] != seeded_2[1]).mean() > 0.99


def test_block_local_loops_draw_distinct_numbers(gpu):
    def build():
        a, b = ti.field(ti.f64), ti.field(ti.f64)  # f64: no birthday collisions in 4096
        ti.root.pointer(ti.ij, 8).dense(ti.ij, 8).place(a, b)

        @ti.kernel
        def load():
            for i, j in ti.ndrange(64, 64):
                a[i, j] = 1.0

        @ti.kernel
        def jitter():
            ti.block_local(a)
            for i, j in b:
                b[i, j] = a[i, j] * ti.random(ti.f64)

        load()
        jitter()
        return b.to_numpy()

    values = gpu.run(build, random_seed=5)
    assert len(np.unique(values)) == values.size  # no two cells drew the same number
    assert values.min() >= 0.0 and values.max() < 1.0
    assert abs(values.mean() - 0.5) < 5 * 0.2887 / 64
