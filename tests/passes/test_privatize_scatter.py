"""privatize_scatter: a parallel loop that only adds into small dense fields adds into
a private copy per chunk and adds the copies back; results match the atomic version."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

N = 200_000
BINS = 64


def _histogram(make_thread_local: bool):
    ti.init(arch=ti.cpu, make_thread_local=make_thread_local)
    keys = ti.field(ti.i32, N)
    weights = ti.field(ti.f32, N)
    counts = ti.field(ti.i32, BINS)
    sums = ti.Vector.field(2, ti.f32, BINS)
    rng = np.random.default_rng(7)
    keys_np = rng.integers(0, BINS, N).astype(np.int32)
    weights_np = rng.integers(1, 5, N).astype(np.float32)  # whole numbers: exact sums
    keys.from_numpy(keys_np)
    weights.from_numpy(weights_np)

    @ti.kernel
    def scatter():
        for p in keys:
            k = keys[p]
            counts[k] += 1
            sums[k] += ti.Vector([weights[p], 1.0])
            ti.atomic_sub(counts[(k + 1) % BINS], 0)

    scatter()
    scatter()
    stages = scatter.stages()
    report = dict(stages["report"], ir=stages["ir_optimized"])
    return counts.to_numpy(), sums.to_numpy(), report, keys_np, weights_np


def test_histogram_matches_atomics_and_numpy():
    counts, sums, report, keys, weights = _histogram(True)
    expect_counts = 2 * np.bincount(keys, minlength=BINS)
    expect_sums = 2 * np.bincount(keys, weights, minlength=BINS)
    np.testing.assert_array_equal(counts, expect_counts)
    np.testing.assert_array_equal(sums[:, 0], expect_sums.astype(np.float32))
    np.testing.assert_array_equal(sums[:, 1], expect_counts.astype(np.float32))
    (entry,) = report["privatized"]
    assert len(entry["fields"]) == 3 and "counts" in entry["fields"]
    off_counts, off_sums, off_report, _, _ = _histogram(False)
    assert off_report["privatized"] == []
    np.testing.assert_array_equal(counts, off_counts)
    np.testing.assert_array_equal(sums, off_sums)


def test_ir_shows_the_private_copy():
    report = _histogram(True)[2]
    assert report["privatized"][0]["bytes"] >= BINS * 12
    assert "scratch_alloc" in report["ir"] and "scratchfree" in report["ir"]
    assert "atomic_add" in report["ir"]  # only in the epilogue's add-back


def test_not_privatized_when_the_field_is_also_read():
    ti.init(arch=ti.cpu)
    src = ti.field(ti.i32, N)
    bins = ti.field(ti.i32, BINS)

    @ti.kernel
    def scatter_and_peek() -> ti.i32:
        seen = 0
        for p in src:
            bins[p % BINS] += 1
            seen += bins[0] * 0  # a plain read of the destination
        return seen

    scatter_and_peek()
    assert scatter_and_peek.stages()["report"]["privatized"] == []
    assert bins.to_numpy().sum() == N


def test_not_privatized_for_few_iterations_or_a_used_old_value():
    ti.init(arch=ti.cpu)
    big = ti.field(ti.f32, 1 << 20)
    small = ti.field(ti.i32, 16)
    slots = ti.field(ti.i32, 1000)

    @ti.kernel
    def few():
        for i in range(1000):  # 1,000 adds into a 1M-element field: not worth a copy
            big[i * 997 % (1 << 20)] += 1.0

    @ti.kernel
    def tickets():
        for i in range(1000):
            slots[i] = ti.atomic_add(small[i % 16], 1)  # the old value is used

    few()
    tickets()
    assert few.stages()["report"]["privatized"] == []
    assert tickets.stages()["report"]["privatized"] == []
    assert big.to_numpy().sum() == 1000.0
    np.testing.assert_array_equal(np.sort(slots.to_numpy()[::16]), np.arange(63))


def test_sparse_destinations_are_left_alone():
    ti.init(arch=ti.cpu)
    src = ti.field(ti.i32, N)
    grid = ti.field(ti.i32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 8).place(grid)

    @ti.kernel
    def scatter():
        for p in src:
            grid[p % 32] += 1

    scatter()
    assert scatter.stages()["report"]["privatized"] == []
    expect = np.zeros(64, np.int32)
    expect[:32] = N // 32
    np.testing.assert_array_equal(grid.to_numpy(), expect)
