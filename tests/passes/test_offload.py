"""The offload pass: tasks, values crossing from serial code into parallel tasks."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_tasks_follow_the_top_level_structure():
    x = ti.field(ti.f32, shape=32)

    @ti.kernel
    def k(n: ti.i32) -> ti.f32:
        scale = n * 0.5  # a serial value used inside the next parallel task
        for i in range(n):
            x[i] = i * scale
        if n > 0:
            for i in range(n):  # not outermost: stays serial inside the if
                x[i] += 1
        acc = 0.0
        for i in range(n):
            acc += x[i]
        return acc

    n = 32
    expected = float(np.sum(np.arange(n, dtype=np.float32) * (n * 0.5) + 1))
    assert k(n) == pytest.approx(expected)
    kinds = [t["kind"] for t in k.stages()["report"]["tasks"]]
    assert kinds == ["serial", "range_for", "serial", "range_for", "serial"]


def test_serial_values_spilled_into_tasks_are_correct():
    x = ti.field(ti.i32, shape=(8, 8))

    @ti.kernel
    def k(a: ti.i32, b: ti.i32):
        lo = a * 2 - 1  # computed values, not constants: spilled to temporaries
        hi = b + lo
        for i, j in ti.ndrange((lo, hi), (0, 8)):
            x[i, j] = i * 100 + j + lo

    k(1, 6)
    got = x.to_numpy()
    expected = np.zeros((8, 8), np.int32)
    for i in range(1, 7):
        for j in range(8):
            expected[i, j] = i * 100 + j + 1
    np.testing.assert_array_equal(got, expected)


def test_kernel_scope_local_written_in_parallel_loop_is_shared():
    @ti.kernel
    def count(n: ti.i32) -> ti.i32:
        c = 0
        for i in range(n):
            if i % 3 == 0:
                c += 1
        return c

    for n in [0, 1, 10, 100_000]:
        assert count(n) == len(range(0, n, 3))


def test_continue_in_a_parallel_loop():
    x = ti.field(ti.i32, shape=100)

    @ti.kernel
    def odd_only():
        for i in x:
            if i % 2 == 0:
                continue
            x[i] = i

    odd_only()
    got = x.to_numpy()
    assert got[1::2].tolist() == list(range(1, 100, 2)) and not got[::2].any()
