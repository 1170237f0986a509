"""Grad kernels on the CUDA backend's code (SIMT emulator) where many threads add into
one gradient element: the adjoint of a gather is an atomic scatter into ``x.grad``, a
parameter read by every thread gathers through a warp reduction, and both give the
CPU's gradients and NumPy's closed form."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import assert_close

pytestmark = pytest.mark.cuda_sim

THREADS = 1024  # 8 blocks of the default 128: contention across warps and blocks
CELLS = 37  # gathered cells: ~28 threads each, unevenly
rng = np.random.default_rng(5)
INDEX = rng.integers(0, CELLS, THREADS).astype(np.int32)
XS = rng.uniform(-1.0, 1.0, CELLS)
DATA = rng.uniform(-1.0, 1.0, THREADS)
W, P = 0.75, np.array([0.5, -1.5, 2.0, 0.25])


def _gradients(**init):
    ti.init(default_fp=ti.f64, offline_cache=False, **init)
    x = ti.field(ti.f64, shape=CELLS, needs_grad=True)
    w = ti.field(ti.f64, shape=(), needs_grad=True)
    p = ti.field(ti.f64, shape=4, needs_grad=True)
    q = ti.field(ti.f64, shape=2, needs_grad=True)  # q[1]: one element, every thread
    index = ti.field(ti.i32, shape=THREADS)
    data = ti.field(ti.f64, shape=THREADS)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    x.from_numpy(XS)
    index.from_numpy(INDEX)
    data.from_numpy(DATA)
    p.from_numpy(P)
    w[None] = W

    @ti.kernel
    def gathered():
        for i in data:
            v = x[index[i]]
            loss[None] += v * v * w[None] + p[i % 4] * data[i] * v + q[1] * data[i]

    with ti.ad.Tape(loss=loss):
        gathered()
    stages = gathered.grad.stages()
    code = stages.get("ptx") or stages["asm"]
    grads = x.grad.to_numpy(), w.grad[None], p.grad.to_numpy(), q.grad.to_numpy()
    return grads, code, stages["report"]


def _closed_form():
    v = XS[INDEX]
    lanes = np.arange(THREADS) % 4
    dx = np.bincount(INDEX, 2 * v * W + P[lanes] * DATA, minlength=CELLS)
    dp = np.bincount(lanes, DATA * v, minlength=4)
    return dx, float((v * v).sum()), dp, np.array([0.0, DATA.sum()])


@pytest.mark.parametrize("check_bounds", [True, False], ids=["checked", "unchecked"])
def test_atomic_adjoint_accumulation_on_the_cuda_backend(check_bounds):
    gpu, ptx, report = _gradients(arch=ti.cuda, cuda_sim=True, check_bounds=check_bounds)
    cpu, _, _ = _gradients(arch=ti.cpu)
    for got, on_cpu, exact in zip(gpu, cpu, _closed_form(), strict=True):
        assert_close(got, exact, rtol=1e-10, atol=1e-12)
        assert_close(got, on_cpu, rtol=1e-10, atol=1e-12)
    # x.grad[index[i]] and p.grad[i % 4] from many threads: atomic adds on the device
    assert "atom.global.add.f64" in ptx or "red.global.add.f64" in ptx
    # w.grad[None] and q.grad[1] gather in a per-thread local, then one atomic per thread; without
    # bounds checks (a failing check may end a thread early) through warp shuffles
    assert sorted(r.destination for r in report.thread_local) == ["q.grad[1]", "w.grad[None]"]
    assert ("shfl.sync.down" in ptx) is not check_bounds
