"""The emulator's barriers are real: block-local storage compiled without its
``__syncthreads`` (``barrier`` in ``codegen/nvptx/shared_memory.py`` patched to emit
nothing) gives wrong results, while the real code is right every time.

The emulator runs each CUDA thread as an OS thread on two cores, so without the barrier
after the fill a thread reads buffer cells its neighbours have not written yet (they
still hold the previous block's values), and without the one after the cells a block
writes its buffer back before every thread has added into it. Each block's values
differ, so a stale read shows. Several launches each: one wrong launch is enough for
the broken code (it was wrong in every launch when this was written), none is allowed
for the real one.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.codegen.nvptx import shared_memory

pytestmark = pytest.mark.cuda_sim
LAUNCHES = 6
N = 64  # 8x8 blocks of 8x8 cells: 64 threads a block


def _no_barriers(monkeypatch) -> None:
    monkeypatch.setattr(shared_memory, "barrier", lambda e: None)


def _picture() -> np.ndarray:
    return np.random.default_rng(0).integers(1, 1000, size=(N, N)).astype(np.float32)


def _gather_stencil():
    """(kernel, result field, expected): b = the sum of a's 4 neighbours, a cached."""
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, N // 8).dense(ti.ij, 8).place(a)
    ti.root.pointer(ti.ij, N // 8).dense(ti.ij, 8).place(b)

    @ti.kernel
    def load(src: ti.types.ndarray()):
        for i, j in ti.ndrange(N, N):
            a[i, j] = src[i, j]
            b[i, j] = 0

    @ti.kernel
    def gather():
        ti.block_local(a)
        for i, j in b:
            if 0 < i < N - 1 and 0 < j < N - 1:
                b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]

    p = _picture()
    load(p)
    expect = np.zeros((N, N), np.float32)
    expect[1:-1, 1:-1] = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
    return gather, b, expect


def _scatter_stencil():
    """(kernel, result field, expected): every cell of a adds into 4 neighbours of b,
    b cached and accumulated in shared memory."""
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, N // 8).dense(ti.ij, 8).place(a)
    ti.root.dense(ti.ij, N // 8).dense(ti.ij, 8).place(b)

    @ti.kernel
    def load(src: ti.types.ndarray()):
        for i, j in ti.ndrange(N, N):
            a[i, j] = src[i, j]

    @ti.kernel
    def scatter():
        ti.block_local(b)
        for i, j in a:
            if 0 < i < N - 1 and 0 < j < N - 1:
                b[i - 1, j] += a[i, j]
                b[i + 1, j] += a[i, j]
                b[i, j - 1] += a[i, j]
                b[i, j + 1] += a[i, j]

    p = _picture()
    load(p)
    inner = np.zeros((N, N), np.float32)
    inner[1:-1, 1:-1] = p[1:-1, 1:-1]
    expect = np.zeros((N, N), np.float32)
    expect[:-1] += inner[1:]
    expect[1:] += inner[:-1]
    expect[:, :-1] += inner[:, 1:]
    expect[:, 1:] += inner[:, :-1]

    def run():
        b.fill(0)
        scatter()

    run.stages = scatter.stages
    return run, b, expect


def _wrong_launches(make) -> tuple[int, str]:
    """How many of LAUNCHES launches gave a wrong result, and the kernel's LLVM IR."""
    kernel, result, expect = make()
    wrong = 0
    for _ in range(LAUNCHES):
        kernel()
        wrong += not np.array_equal(result.to_numpy(), expect)
    return wrong, kernel.stages()["llvm"]


@pytest.mark.parametrize("make", [_gather_stencil, _scatter_stencil], ids=["gather", "scatter"])
def test_block_local_storage_needs_its_barriers(sim, monkeypatch, make):
    sim.init(offline_cache=False)
    wrong, llvm = _wrong_launches(make)
    assert wrong == 0 and llvm.count("llvm.nvvm.barrier0") >= 3

    _no_barriers(monkeypatch)
    sim.init(offline_cache=False)  # a new session: the kernels compile again
    wrong, llvm = _wrong_launches(make)
    assert "llvm.nvvm.barrier0" not in llvm
    assert wrong >= 1, f"no barriers, yet all {LAUNCHES} launches were right"


@pytest.mark.cpu
def test_the_cpu_is_right_without_any_barrier(monkeypatch):
    """The CPU runs a block's cells in one thread: the patch must change nothing there
    (what goes wrong above is the GPU's parallelism, not the test's arithmetic)."""
    _no_barriers(monkeypatch)
    ti.init(arch=ti.cpu, offline_cache=False)
    for make in (_gather_stencil, _scatter_stencil):
        wrong, _ = _wrong_launches(make)
        assert wrong == 0
