"""demote_atomics: atomics on elements each iteration owns become plain updates."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

N = 1 << 16


def test_own_element_updates_are_demoted_and_correct():
    x = ti.field(ti.f32, shape=(256, 256))
    y = ti.field(ti.i32, shape=N)

    @ti.kernel
    def bump():
        for i, j in ti.ndrange(256, 256):
            x[i, j] += 1.5
        for i in range(N):
            y[i] += i
        for i, j in x:
            x[i, j] *= 2.0  # not an atomic at all: stays a plain store

    bump()
    bump()
    np.testing.assert_allclose(x.to_numpy(), np.full((256, 256), 9.0))
    np.testing.assert_array_equal(y.to_numpy(), 2 * np.arange(N))
    assert bump.stages()["report"]["demoted_atomics"] == ["x", "y"]
    text = bump.stages()["ir_optimized"]
    assert "atomic_add" not in text.split("offloaded range_for")[1].split("offloaded")[0]


def test_shared_elements_keep_their_atomics():
    counts = ti.field(ti.i32, shape=N // 64)
    z = ti.field(ti.i32, shape=N + 1)

    @ti.kernel
    def histogram():
        for i in range(N):
            counts[i // 64] += 1  # 64 iterations share each element
        for i in range(N):
            z[i] += 1
            z[i + 1] += 1  # another iteration's element: z stays atomic

    histogram()
    np.testing.assert_array_equal(counts.to_numpy(), np.full(N // 64, 64))
    expect = np.full(N + 1, 2)
    expect[0] = expect[N] = 1
    np.testing.assert_array_equal(z.to_numpy(), expect)
    assert histogram.stages()["report"]["demoted_atomics"] == []


def test_old_value_of_a_demoted_atomic_is_still_returned():
    x = ti.field(ti.i32, shape=64)
    old = ti.field(ti.i32, shape=64)

    @ti.kernel
    def step():
        for i in x:
            old[i] = ti.atomic_add(x[i], i)

    step()
    step()
    np.testing.assert_array_equal(old.to_numpy(), np.arange(64))
    np.testing.assert_array_equal(x.to_numpy(), 2 * np.arange(64))
    assert "x" in step.stages()["report"]["demoted_atomics"]


def test_struct_for_over_a_sparse_field_demotes_and_activates():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 16).dense(ti.i, 8).place(x)
    x[9] = 1.0

    @ti.kernel
    def grow():
        for i in x:
            x[i] += 2.0

    grow()
    expect = np.zeros(128, np.float32)
    expect[8:16] = 2.0
    expect[9] = 3.0
    np.testing.assert_array_equal(x.to_numpy(), expect)
    assert grow.stages()["report"]["demoted_atomics"] == ["x"]
