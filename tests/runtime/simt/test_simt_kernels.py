"""The SIMT emulator runs NVPTX-form kernels with GPU semantics: grid-stride loops,
shared memory, barriers, warp shuffles, atomics, dynamic shared memory."""

import numpy as np
import pytest
import simt_kernels as kernels

from ti_notebook.runtime.simt import SimtModule

pytestmark = pytest.mark.cpu


@pytest.fixture(scope="module")
def saxpy_module():
    return SimtModule(kernels.SAXPY)


@pytest.mark.parametrize(
    ("block", "grid"), [(32, 1), (96, 7), (128, 64), (256, 3), ((64, 1, 1), (5, 1, 1))]
)
def test_grid_stride_saxpy_covers_every_element(saxpy_module, block, grid):
    rng = np.random.default_rng(1)
    n = 10_000
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    expected = 2.5 * x + y
    saxpy_module.launch("saxpy", grid=grid, block=block, params=[n, 2.5, x, y])
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_saxpy_with_the_largest_block(saxpy_module):
    x = np.ones(3000, np.float32)
    y = np.arange(3000, dtype=np.float32)
    saxpy_module.kernel("saxpy").launch(grid=2, block=1024, params=[3000, -1.0, x, y])
    np.testing.assert_array_equal(y, np.arange(3000) - 1.0)


@pytest.mark.parametrize(("block", "grid"), [(32, 1), (128, 13), (256, 4)])
def test_block_reduction_equals_numpy(nvptx_form, block, grid):
    module = SimtModule(nvptx_form(kernels.REDUCTION))
    x = np.random.default_rng(2).integers(-1000, 1000, 100_000, dtype=np.int32)
    out = np.zeros(1, np.int32)
    module.launch("block_sum", grid=grid, block=block, params=[x, x.size, out])
    assert out[0] == x.sum()


def test_block_reduction_f32_with_butterfly_shuffles(nvptx_form):
    module = SimtModule(nvptx_form(kernels.REDUCTION))
    x = np.random.default_rng(3).random(50_000, dtype=np.float32)
    out = np.zeros(1, np.float32)
    module.launch("block_sum_f32", grid=6, block=64, params=[x, x.size, out])
    assert out[0] == pytest.approx(x.sum(dtype=np.float64), rel=1e-5)


def _stencil_expected(a):
    return a + np.r_[0, a[:-1]] + np.r_[a[1:], 0]


def test_halo_stencil_is_right_with_its_barrier(nvptx_form):
    module = SimtModule(nvptx_form(kernels.STENCIL))
    rng = np.random.default_rng(4)
    for _ in range(3):
        a = rng.random(1000, dtype=np.float32)
        out = np.zeros_like(a)
        module.launch("stencil_sync", grid=8, block=128, params=[a, out, a.size])
        np.testing.assert_allclose(out, _stencil_expected(a), rtol=1e-6)


def test_halo_stencil_is_wrong_without_its_barrier(nvptx_form):
    """The proof that barriers are real: odd threads write their tile cell late (they
    sleep first), so without the barrier even threads read old cells."""
    module = SimtModule(nvptx_form(kernels.STENCIL))
    rng = np.random.default_rng(5)
    runs, wrong = 5, 0
    for _ in range(runs):
        a = rng.random(1000, dtype=np.float32) + 1.0
        out = np.zeros_like(a)
        module.launch("stencil_nosync", grid=8, block=128, params=[a, out, a.size])
        wrong += not np.allclose(out, _stencil_expected(a), rtol=1e-6)
    assert wrong >= 1, f"the stencil without a barrier was right in all {runs} runs"


def test_atomics_under_contention():
    module = SimtModule(kernels.ATOMICS)
    counter = np.zeros(1, np.int32)
    fsum = np.zeros(1, np.float32)
    largest = np.full(1, -1, np.int32)
    per_block = np.zeros(64, np.int32)
    module.launch("contend", grid=64, block=128, params=[counter, fsum, largest, per_block])
    assert counter[0] == 64 * 128
    assert fsum[0] == 64 * 128
    assert largest[0] == 64 * 128 - 1
    assert (per_block == 128).all()


def test_dynamic_shared_memory_reverses_each_block():
    module = SimtModule(kernels.DYNAMIC_SHARED)
    data = np.arange(4 * 64, dtype=np.int32)
    module.launch("reverse_blocks", grid=4, block=64, params=[data], shared_bytes=64 * 4)
    expected = np.arange(4 * 64).reshape(4, 64)[:, ::-1].ravel()
    np.testing.assert_array_equal(data, expected)


def test_dynamic_shared_memory_above_48_kb():
    module = SimtModule(kernels.DYNAMIC_SHARED)
    words = 40_000  # 160,000 bytes: over the 48 KB of static shared memory, within sm_80's
    # opt-in maximum (the emulated device's)
    out = np.zeros(words, np.int32)
    module.launch("big_dynamic", grid=1, block=256, params=[out, words], shared_bytes=words * 4)
    np.testing.assert_array_equal(out, np.arange(words)[::-1])
