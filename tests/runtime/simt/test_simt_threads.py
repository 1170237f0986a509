"""Thread-level semantics of the SIMT emulator: warp operations as PTX defines them,
index registers, early exits, printf, libdevice math, the reused thread pool."""

import os
import threading

import numpy as np
import pytest
import simt_nvptx
import simt_warp_kernels as kernels

from ti_notebook.runtime.simt import SimtModule

pytestmark = pytest.mark.cpu


def _warp_ops_expected(block: int, grid: int) -> np.ndarray:
    rows = []
    for gtid in range(block * grid):
        tid = gtid % block
        lane, warp_base = tid % 32, tid - tid % 32
        ballot = sum(1 << lane_ for lane_ in range(32) if (warp_base + lane_) % 3 == 0)
        warp_tids = range(warp_base, warp_base + 32)
        rows.append(
            [
                tid - 1 if lane >= 1 else tid,  # shfl.up 1
                warp_base + 3,  # shfl.idx 3
                tid + 5 if lane + 5 <= 31 else tid,  # shfl.down 5
                tid + 2 if lane % 8 + 2 <= 7 else tid,  # shfl.down 2 in 8-lane segments
                ballot,
                int(5 in warp_tids),  # vote.any
                int(all(t < 40 for t in warp_tids)),  # vote.all
                (1 << lane) - 1,  # lanemask.lt
                block // 2,  # barrier0.popc of odd threads
                -1,  # activemask
                int(lane >= 2),  # shfl.up 2's predicate
                lane * 100 + 32,  # laneid, warpsize
            ]
        )
    return np.array(rows, dtype=np.int64).astype(np.int32)


def test_warp_operations_follow_ptx(nvptx_form):
    module = SimtModule(nvptx_form(kernels.WARP_OPS))
    out = np.zeros(2 * 64 * 12, np.int32)
    module.launch("warp_ops", grid=2, block=64, params=[out])
    np.testing.assert_array_equal(out.reshape(-1, 12), _warp_ops_expected(64, 2))


def test_index_registers_in_3d():
    module = SimtModule(kernels.INDICES)
    grid, block = (2, 3, 2), (4, 2, 3)
    threads = int(np.prod(grid) * np.prod(block))
    out = np.full(threads * 12, -1, np.int32)
    module.launch("indices", grid=grid, block=block, params=[out])
    rows = out.reshape(-1, 12)
    expected = [
        [tx, ty, tz, bx, by, bz, *block, *grid]
        for bz in range(grid[2])
        for by in range(grid[1])
        for bx in range(grid[0])
        for tz in range(block[2])
        for ty in range(block[1])
        for tx in range(block[0])
    ]
    np.testing.assert_array_equal(rows, expected)


@pytest.mark.parametrize("active", [1, 37, 64])
def test_threads_that_return_early_do_not_block_barriers(active):
    module = SimtModule(kernels.EARLY_EXIT)
    out = np.full(64, -1, np.int32)
    module.launch("early_exit", grid=3, block=64, params=[out, active])
    expected = np.full(64, -1)
    expected[:active] = (np.arange(active) + 1) % active
    np.testing.assert_array_equal(out, expected)


def test_printf_lines_reach_stdout(capsys):
    SimtModule(kernels.PRINTF).launch("hello", grid=1, block=3)
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == [
        "thread 0 of 3: 0.00 [   ok] fa%",
        "thread 1 of 3: 0.50 [   ok] fb%",
        "thread 2 of 3: 1.00 [   ok] fc%",
    ]


def _math_expected(x):
    x64 = x.astype(np.float64)
    return np.stack(
        [np.sin(x), np.exp(x), np.log(x), np.sqrt(x), np.tanh(x), x**1.5, 1 / np.sqrt(x)]
        + [np.sin(x64)],
        axis=1,
    )


def _run_math(module):
    x = np.linspace(0.1, 3.0, 32, dtype=np.float32)
    out = np.zeros(32 * 8, np.float32)
    module.launch("math", grid=1, block=32, params=[x, out])
    np.testing.assert_allclose(out.reshape(32, 8), _math_expected(x), rtol=2e-6)
    big = np.array([0.5, 1e5, 3e7, 1e15, -1.2345e18, 6.0e22], np.float64)
    out64 = np.zeros_like(big)
    module.launch("sin_f64", grid=1, block=big.size, params=[big, out64])
    np.testing.assert_allclose(out64, np.sin(big), rtol=1e-12)


def test_declared_libdevice_functions_use_the_c_library():
    _run_math(SimtModule(kernels.MATH))


@pytest.mark.parametrize("optimised", [True, False])
def test_linked_libdevice_runs(link_libdevice, optimised):
    """libdevice linked in (its own inline PTX asm included), after NVPTX O3 or not."""
    ir = link_libdevice(kernels.MATH, ("math", "sin_f64"))
    if optimised:
        ir = simt_nvptx.optimize_o3(ir)
        assert "asm" in ir  # the test covers libdevice's inline PTX
    _run_math(SimtModule(ir))


def _threads_of_this_process() -> int:
    return len(os.listdir("/proc/self/task"))


def test_thread_pool_is_reused_across_launches():
    module = SimtModule(kernels.EARLY_EXIT)
    out = np.zeros(128, np.int32)
    module.launch("early_exit", grid=1, block=128, params=[out, 128])
    before = _threads_of_this_process()
    for _ in range(3):
        module.launch("early_exit", grid=4, block=128, params=[out, 128])
    assert _threads_of_this_process() == before


def test_launches_from_several_python_threads_are_serialised():
    module = SimtModule(kernels.EARLY_EXIT)
    outs = [np.zeros(64, np.int32) for _ in range(4)]
    errors = []

    def run(out, active):
        try:
            module.launch("early_exit", grid=2, block=64, params=[out, active])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(out, 30 + i)) for i, out in enumerate(outs)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    for i, out in enumerate(outs):
        active = 30 + i
        np.testing.assert_array_equal(out[:active], (np.arange(active) + 1) % active)


def test_a_forked_child_makes_its_own_workers():
    module = SimtModule(kernels.EARLY_EXIT)
    out = np.zeros(64, np.int32)
    module.launch("early_exit", grid=1, block=64, params=[out, 64])
    pid = os.fork()
    if pid == 0:  # the child has none of the parent's worker threads
        out[:] = -1
        module.launch("early_exit", grid=2, block=64, params=[out, 10])
        os._exit(0 if out[:10].tolist() == [*range(1, 10), 0] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
