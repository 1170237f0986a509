"""Everything the SIMT emulator can detect is a ti_notebook error with a hint, never a
hang or a crash, and the emulator keeps working after one."""

import numpy as np
import pytest
import simt_error_kernels as bad
import simt_kernels as kernels

from ti_notebook.errors import (
    TiNameError,
    TiOverflowError,
    TiRuntimeError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.runtime.simt import SIMT_DEVICE, SimtModule

pytestmark = pytest.mark.cpu


@pytest.fixture(scope="module")
def saxpy():
    return SimtModule(kernels.SAXPY).kernel("saxpy")


def _saxpy_still_works(kernel):
    x = np.ones(500, np.float32)
    y = np.zeros(500, np.float32)
    kernel.launch(grid=2, block=64, params=[500, 3.0, x, y])
    assert (y == 3.0).all()


@pytest.mark.parametrize(("grid", "block"), [(1, 32), (2, 64)])
def test_shuffle_in_divergent_code_is_a_deadlock_error_not_a_hang(saxpy, grid, block):
    module = SimtModule(bad.DIVERGENT_SHUFFLE)
    with pytest.raises(TiRuntimeError, match="'divergent_shuffle' deadlocked in block 0") as info:
        module.launch("divergent_shuffle", grid=grid, block=block, params=[np.zeros(1, np.int32)])
    assert "16 at a warp shuffle or vote" in str(info.value)
    assert "divergent code" in info.value.hint
    _saxpy_still_works(saxpy)


def test_shuffle_reading_an_exited_lane(saxpy):
    module = SimtModule(bad.SHUFFLE_FROM_EXITED)
    with pytest.raises(TiRuntimeError, match=r"reads lane (1[6-9]|2\d|3[01]), which has exited"):
        module.launch("shuffle_from_exited", grid=1, block=32, params=[np.zeros(32, np.int32)])
    _saxpy_still_works(saxpy)


def test_partial_warp_mask_is_reported():
    module = SimtModule(bad.HALF_MASK)
    with pytest.raises(TiRuntimeError, match="mask 0x0000ffff"):
        module.launch("half_mask", grid=1, block=32, params=[np.zeros(1, np.int32)])


def test_named_barrier_is_reported():
    with pytest.raises(TiRuntimeError, match="barrier 1 for all threads"):
        SimtModule(bad.NAMED_BARRIER).launch("named_barrier", grid=1, block=32)


def test_trap_names_block_and_thread_and_skips_the_rest(saxpy):
    module = SimtModule(bad.TRAPS)
    with pytest.raises(TiRuntimeError, match=r"block 1, threadIdx \(5, 0, 0\)"):
        module.launch("trap_in_block_1", grid=4, block=32)
    _saxpy_still_works(saxpy)


def test_failed_cuda_assert_shows_its_message():
    module = SimtModule(bad.TRAPS)
    with pytest.raises(TiRuntimeError, match="assertion 'x\\[i\\] >= 0' failed at kernel.cu:42"):
        module.launch("failed_assert", grid=2, block=32)


def test_static_shared_memory_over_48_kb():
    with pytest.raises(TiValueError, match="52000 bytes of static shared memory") as info:
        SimtModule(bad.TOO_MUCH_SHARED)
    assert "dynamic shared memory" in info.value.hint


def test_dynamic_shared_memory_over_the_opt_in_limit(saxpy):
    module = SimtModule(kernels.DYNAMIC_SHARED)
    limit = SIMT_DEVICE.shared_bytes_per_block_optin  # sm_80's: 163 KB
    with pytest.raises(TiValueError, match=f"over the limit of {limit} per block"):
        module.launch("big_dynamic", grid=1, block=32, params=[0, 10], shared_bytes=240_000)


@pytest.mark.parametrize(
    ("grid", "block", "message"),
    [
        (0, 32, "grid size 0 on axis x"),
        (1, (32, 32, 2), "a block of 2048 threads is over the limit of 1024"),
        (1, 1025, "block size 1025 on axis x"),
        (1, (1, 1, 65), "block size 65 on axis z"),
        ((1, 70_000), 1, "grid size 70000 on axis y"),
        ((1, 1, 1, 1), 1, "grid has 4 dimensions"),
        ("a", 1, "grid must be an int or a tuple"),
        (1, 2.5, "block must be an int or a tuple"),
    ],
)
def test_bad_launch_shapes(saxpy, grid, block, message):
    with pytest.raises(TiValueError, match=message):
        saxpy.launch(grid=grid, block=block, params=[1, 1.0, 0, 0])


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ([1, 1.0, 0], TiTypeError, "takes 4 arguments"),
        ([1.5, 1.0, 0, 0], TiTypeError, "argument 0 must be an integer"),
        ([1, "a", 0, 0], TiTypeError, "argument 1 must be a number"),
        ([2**40, 1.0, 0, 0], TiOverflowError, "does not fit in i32"),
    ],
)
def test_bad_parameters(saxpy, params, error, message):
    with pytest.raises(error, match=message):
        saxpy.launch(grid=1, block=32, params=params)


def test_unknown_kernel_name_lists_the_kernels():
    module = SimtModule(kernels.STENCIL)
    with pytest.raises(TiNameError, match="no kernel 'stencil'") as info:
        module.kernel("stencil")
    assert "stencil_nosync, stencil_sync" in info.value.hint


@pytest.mark.parametrize(
    ("ir", "error", "message"),
    [
        (bad.UNKNOWN_INTRINSIC, TiRuntimeError, "cannot run llvm.nvvm.match.any.sync.i32"),
        (bad.UNKNOWN_FUNCTION, TiRuntimeError, "calls helper_from_elsewhere, declared but not"),
        (bad.INLINE_ASM, TiRuntimeError, 'inline PTX assembly \\("membar.gl;"\\)'),
        ("this is not IR", TiValueError, "cannot parse"),
        ("define void @f() {\n  ret void\n}", TiValueError, "defines no kernel"),
    ],
)
def test_modules_the_emulator_cannot_run(ir, error, message):
    with pytest.raises(error, match=message) as info:
        SimtModule(ir)
    assert info.value.hint


def test_shuffle_beyond_a_partial_warp():
    module = SimtModule(kernels.REDUCTION)
    x = np.ones(100, np.int32)
    with pytest.raises(
        TiRuntimeError, match=r"reads lane (1[6-9]|2\d|3[01]), which does not exist"
    ) as info:
        module.launch("block_sum", grid=1, block=16, params=[x, x.size, np.zeros(1, np.int32)])
    assert "multiple of 32" in info.value.hint
