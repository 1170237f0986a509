"""``name := value`` inside kernels (Taichi's algorithm/poisson_disk_sampling writes
``samples[0] = (p0 := iMouse[None])``): assigns as ``name = value`` and is the value."""

from __future__ import annotations

import numpy as np

import ti_notebook as ti


def test_named_expression_assigns_and_is_the_value():
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=4)
    mouse = ti.Vector.field(2, ti.f32, shape=())
    samples = ti.Vector.field(2, ti.f32, shape=3)

    @ti.kernel
    def run() -> ti.f32:
        total = 0.0
        for i in range(4):
            x[i] = (y := i * 2.0) + 1
            total += y
        samples[0] = (p0 := mouse[None])
        samples[1] = p0 * 2
        return total

    mouse[None] = (1.5, 2.5)
    assert run() == 12.0
    np.testing.assert_array_equal(x.to_numpy(), [1, 3, 5, 7])
    np.testing.assert_array_equal(samples.to_numpy()[:2], [[1.5, 2.5], [3.0, 5.0]])


def test_named_expression_rebinds_an_existing_local():
    ti.init(arch=ti.cpu)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        k = 0
        while (k := k + 1) < n:
            pass
        return k

    assert run(5) == 5
