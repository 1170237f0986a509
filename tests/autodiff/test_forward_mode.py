"""ti.ad.FwdMode: duals against the reverse mode's gradients and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import assert_close

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _f64():
    ti.init(arch=ti.cpu, default_fp=ti.f64)


def test_forward_mode_equals_reverse_mode_per_direction():
    n = 4
    x = ti.field(ti.f64, shape=n, needs_grad=True, needs_dual=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True, needs_dual=True)

    @ti.kernel
    def compute(steps: ti.i32):
        for i in x:
            p = x[i]
            for _ in range(steps):
                p = ti.sin(p) * 0.7 + p * p * 0.1
            loss[None] += ti.exp(0.2 * p) * x[(i + 1) % n] + ti.atan2(p, 2.0)

    values = np.array([0.2, -0.4, 0.9, 1.3])
    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        compute(3)
    reverse = x.grad.to_numpy()
    for k in range(n):
        seed = [0.0] * n
        seed[k] = 1.0
        loss[None] = 0.0
        with ti.ad.FwdMode(loss=loss, param=x, seed=seed):
            compute(3)
        assert_close(loss.dual[None], reverse[k], rtol=1e-12, atol=1e-12)
    # the seed is cleared on exit; the kernel itself ran too (loss holds its value)
    assert np.all(x.dual.to_numpy() == 0) and loss[None] != 0.0


def test_forward_mode_through_stores_locals_and_atomics():
    x = ti.field(ti.f64, shape=(), needs_dual=True)
    y = ti.field(ti.f64, shape=3, needs_dual=True)
    loss = ti.field(ti.f64, shape=(), needs_dual=True)

    @ti.kernel
    def spread():
        for i in y:
            t = x[None] * (i + 1)
            t *= t
            y[i] = t

    @ti.kernel
    def total():
        for i in y:
            loss[None] += ti.sqrt(y[i])

    x[None] = 1.5
    with ti.ad.FwdMode(loss=loss, param=x):
        spread()
        total()
    # loss = sum (i+1) x  ->  d/dx = 1 + 2 + 3
    assert_close(loss.dual[None], 6.0)
    assert_close(y.dual.to_numpy(), 2 * 1.5 * np.array([1.0, 4.0, 9.0]))


def test_fwdmode_needs_a_seed_for_several_elements():
    x = ti.field(ti.f64, shape=3, needs_dual=True)
    loss = ti.field(ti.f64, shape=(), needs_dual=True)
    with pytest.raises(ValueError, match="seed"), ti.ad.FwdMode(loss=loss, param=x):
        pass
