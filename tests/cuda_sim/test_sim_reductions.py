"""Thread-local reductions on the GPU: a warp shuffle tree and one atomic per warp when
the block is whole warps, one atomic per thread otherwise (``codegen/nvptx/warp_reduce.py``).

Values are small integers, so float sums are exact in any order: the GPU's result must
equal the CPU's and NumPy's exactly, whatever the block and grid sizes.
"""

import numpy as np
import pytest
from sim_compare import assert_same, task_launches

import ti_notebook as ti

DTYPES = {"f32": (ti.f32, np.float32), "i32": (ti.i32, np.int32), "f64": (ti.f64, np.float64)}
REDUCE = {"sum": np.sum, "min": np.min, "max": np.max}


def _data(n: int, np_dtype, seed: int = 0) -> np.ndarray:
    values = np.random.default_rng(seed).integers(-50, 50, size=n)
    return values.astype(np_dtype)


def _reduction(op: str, dtype, data: np.ndarray, block_dim: int = 0):
    """Builds fields and a kernel reducing ``data`` with ``op`` (with ``block_dim``
    unless 0); returns a build()."""

    is_sum, is_min, configured = op == "sum", op == "min", block_dim > 0

    def build():
        n = len(data)
        x = ti.field(dtype, shape=n)
        out = ti.field(dtype, shape=())
        x.from_numpy(data)

        @ti.kernel
        def reduce():
            if ti.static(configured):
                ti.loop_config(block_dim=block_dim)
            for i in x:
                if ti.static(is_sum):
                    out[None] += x[i]
                elif ti.static(is_min):
                    ti.atomic_min(out[None], x[i])
                else:
                    ti.atomic_max(out[None], x[i])

        out[None] = 0 if op == "sum" else data[0]
        reduce()
        launch = task_launches(reduce)
        return out[None], launch

    return build


@pytest.mark.parametrize("op", sorted(REDUCE))
@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
def test_reduction_matches_cpu_and_numpy(gpu, op, dtype_name):
    dtype, np_dtype = DTYPES[dtype_name]
    data = _data(1000, np_dtype)  # 1000: neither a multiple of 32 nor of 128
    (expected, _), (actual, launches) = gpu.against_cpu(_reduction(op, dtype, data))
    assert actual == expected == REDUCE[op](data)
    (launch,) = launches
    assert launch["warp_reduction"] and launch["block_dim"] == 128


@pytest.mark.parametrize("block_dim", [32, 64, 128, 256, 1024])
def test_warp_shuffle_reduction_for_each_block_dim(gpu, block_dim):
    data = _data(1000, np.float32, seed=block_dim)
    build = _reduction("sum", ti.f32, data, block_dim)
    (actual, launches) = gpu.run(build)
    assert actual == data.sum()
    (launch,) = launches
    assert launch["block_dim"] == block_dim and launch["warp_reduction"]
    assert 1 <= launch["grid_dim"] <= -(-1000 // block_dim)  # no block without work


@pytest.mark.parametrize("block_dim", [48, 100, 1000])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_block_dim_not_a_multiple_of_32_uses_one_atomic_per_thread(gpu, block_dim, op):
    data = _data(999, np.int32, seed=block_dim)
    (actual, launches) = gpu.run(_reduction(op, ti.i32, data, block_dim))
    assert actual == REDUCE[op](data)
    (launch,) = launches
    assert launch["block_dim"] == block_dim and not launch["warp_reduction"]


@pytest.mark.parametrize("n", [1, 31, 33, 127, 129, 4099])
def test_lengths_around_warps_and_blocks(gpu, n):
    data = _data(n, np.int32, seed=n)
    expected, actual = gpu.against_cpu(_reduction("sum", ti.i32, data, block_dim=64))
    assert actual[0] == expected[0] == data.sum()


def test_range_for_with_runtime_bound_and_a_condition(gpu):
    data = _data(777, np.float64, seed=3)

    def build():
        x = ti.field(ti.f64, shape=len(data))
        positives = ti.field(ti.i32, shape=())
        total = ti.field(ti.f64, shape=())
        x.from_numpy(data)

        @ti.kernel
        def count(n: ti.i32):
            for i in range(n):
                if x[i] > 0:
                    positives[None] += 1
                    total[None] += x[i]

        count(500)
        return positives[None], total[None]

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == ((data[:500] > 0).sum(), data[:500][data[:500] > 0].sum())


def test_several_reductions_in_one_loop(gpu):
    data = _data(1500, np.float32, seed=5)

    def build():
        x = ti.field(ti.f32, shape=len(data))
        low, high, total = (ti.field(ti.f32, shape=()) for _ in range(3))
        x.from_numpy(data)

        @ti.kernel
        def stats():
            for i in x:
                v = x[i]
                total[None] += v * 2.0
                ti.atomic_min(low[None], v)
                ti.atomic_max(high[None], v)

        stats()
        return low[None], high[None], total[None]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert actual == (data.min(), data.max(), 2 * data.sum())


def test_reduction_into_a_kernel_local_returned(gpu):
    data = _data(640, np.int32, seed=8)

    def build():
        x = ti.field(ti.i32, shape=len(data))
        x.from_numpy(data)

        @ti.kernel
        def total() -> ti.i32:
            s = 0
            for i in x:
                s += x[i] * x[i]
            return s

        return total()

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == int((data.astype(np.int64) ** 2).sum())


def test_reduction_with_a_bounds_check_keeps_one_atomic_per_thread(gpu):
    data = _data(300, np.int32, seed=9)

    def build():
        x = ti.field(ti.i32, shape=len(data))
        out = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def total(n: ti.i32):
            for i in range(n):
                assert x[i] < 1000, "too large"
                out[None] += x[i]

        total(len(data))
        launches = task_launches(total)
        return out[None], launches

    (expected, _), (actual, launches) = gpu.against_cpu(build, debug=True)
    assert actual == expected == data.sum()
    assert launches[0]["checks_errors"] and not launches[0]["warp_reduction"]


@pytest.mark.parametrize("op", sorted(REDUCE))
def test_half_precision_reductions(gpu, op):
    """f16 values move through the shuffles widened to 32 bits; the NVPTX O3 pipeline
    once aborted the process on this min/max loop (its loop vectorizer's assertion)."""
    data = np.random.default_rng(6).integers(-8, 9, size=1000).astype(np.float16)
    (expected, _), (actual, launches) = gpu.against_cpu(_reduction(op, ti.f16, data))
    assert actual == expected == REDUCE[op](data.astype(np.float64))
    assert launches[0]["warp_reduction"]


@pytest.mark.parametrize("block_dim", [96, 160, 992])
@pytest.mark.parametrize("op", sorted(REDUCE))
@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
def test_warps_totals_meet_in_shared_memory_for_any_warp_count(gpu, block_dim, op, dtype_name):
    """Blocks of 3, 5 and 31 warps: the second shuffle round has idle lanes, which take
    0 (sum) or slot 0's total (min/max)."""
    dtype, np_dtype = DTYPES[dtype_name]
    data = _data(2 * block_dim + 7, np_dtype, seed=block_dim)
    (expected, _), (actual, launches) = gpu.against_cpu(_reduction(op, dtype, data, block_dim))
    assert_same(expected, actual)
    assert_same(REDUCE[op](data), actual)
    (launch,) = launches
    assert launch["warp_reduction"] and launch["block_dim"] == block_dim


def test_a_long_sum_unrolls_its_grid_loop_and_stays_exact(gpu):
    """More iterations than the grid has threads: each thread's loop is unrolled by
    ``loop_unroll.GRID_UNROLL`` with a remainder (``codegen/nvptx/loop_unroll.py``)."""
    data = _data(1 << 20, np.int32, seed=7)
    (expected, _), (actual, _) = gpu.against_cpu(_reduction("sum", ti.i32, data, block_dim=32))
    assert_same(expected, actual)
    assert_same(int(data.sum()), actual)
