"""Grad kernels through the CUDA backend, run on the SIMT emulator: per-thread stacks
live in each thread's own memory (no block barriers), gradients as on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import assert_close

pytestmark = pytest.mark.cuda_sim


def _gradient(**init):
    ti.init(default_fp=ti.f64, **init)
    x = ti.field(ti.f64, shape=40, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def carried():
        for i in x:
            p = x[i]
            for k in range(i % 5 + 2):  # trip counts differ between a warp's threads
                p = 0.5 * ti.sin(p) + 0.3 * p * p + 0.01 * k
            loss[None] += p

    x.from_numpy(np.linspace(-1.0, 1.0, 40))
    with ti.ad.Tape(loss=loss):
        carried()
    ptx = carried.grad.stages()["ptx" if init.get("cuda_sim") else "asm"]
    return x.grad.to_numpy(), ptx


def test_grad_kernel_with_stacks_on_the_cuda_backend():
    cpu, _ = _gradient(arch=ti.cpu)
    gpu, ptx = _gradient(arch=ti.cuda, cuda_sim=True)
    assert_close(gpu, cpu, rtol=1e-12, atol=1e-12)
    assert "bar.sync" not in ptx  # a thread's stack is its own: no block barrier
