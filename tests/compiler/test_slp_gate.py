"""LLVM's SLP vectoriser is left out only for modules with a basic block over
``SLP_MAX_BLOCK`` instructions (unrolled straight-line code, where its search costs most
of O3 and its code ran no faster); kernels of everyday size keep it."""

import pytest

import ti_notebook as ti
from ti_notebook.runtime import jit as jit_module

pytestmark = pytest.mark.cpu


def _decisions(monkeypatch, make_kernel) -> list[bool]:
    seen = []
    real = jit_module.slp_pays

    def recorded(module):
        seen.append(real(module))
        return seen[-1]

    monkeypatch.setattr(jit_module, "slp_pays", recorded)
    make_kernel()
    return seen


def test_a_huge_unrolled_block_goes_without_slp_and_a_small_kernel_keeps_it(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=2000)
    v = ti.Vector.field(3, ti.f32, shape=64)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def long_sum():
        acc = 0.0
        for t in ti.static(range(2000)):
            acc += x[t] * (t + 1)
        total[None] = acc

    @ti.kernel
    def step(dt: ti.f32):
        for i in v:
            v[i] = v[i] * dt + ti.Vector([1.0, 2.0, 3.0])

    assert _decisions(monkeypatch, long_sum) == [False]
    assert _decisions(monkeypatch, lambda: step(0.5)) == [True]
    x.fill(1.0)
    long_sum()
    assert total[None] == pytest.approx(2000 * 2001 / 2)  # still right without SLP
