"""demote_atomics where a parallel iteration owns part of an index (issue 18).

``for i in range(K): for j in range(K): a[i, j] += 1`` owns row ``i``: position 0 is the
parallel loop's index in every access, so the inner loop's ``+=`` needs no atomic. Each
case also runs with ``advanced_optimization=False`` (every atomic kept) for the result.
"""

import numpy as np
import pytest

from tests.passes.on_off import both

pytestmark = pytest.mark.cpu

K = 64


def _report(kernel) -> dict:
    return kernel.stages()["report"]


@pytest.mark.parametrize("column_major", [False, True])
def test_serial_inner_loop_over_an_owned_row_is_demoted(column_major):
    def run(ti):
        a = ti.field(ti.f32)
        if column_major:
            ti.root.dense(ti.j, K).dense(ti.i, K).place(a)
        else:
            ti.root.dense(ti.ij, (K, K)).place(a)

        @ti.kernel
        def rows():
            for i in range(K):
                for j in range(K):
                    a[i, j] += 1.0 + j

        @ti.kernel
        def columns():
            for j in range(K):
                for i in range(K):
                    a[i, j] += 2.0 * i

        rows()
        columns()
        return a.to_numpy(), _report(rows)["demoted_atomics"], _report(columns)["demoted_atomics"]

    (on, rows_on, cols_on), (off, rows_off, cols_off) = both(run)
    j = np.arange(K, dtype=np.float32)
    expect = (1.0 + j)[None, :] + 2.0 * j[:, None]
    np.testing.assert_array_equal(on, expect)
    np.testing.assert_array_equal(off, expect)
    assert rows_on == ["a"] and cols_on == ["a"]
    assert rows_off == [] and cols_off == []


def test_inner_loop_reading_another_row_keeps_its_atomics():
    def run(ti):
        a = ti.field(ti.i32, shape=(K, K))

        @ti.kernel
        def smear():
            for i in range(1, K):
                for j in range(K):
                    a[i, j] += 1
                    a[i - 1, j] += 1  # row i - 1 belongs to another iteration

        smear()
        return a.to_numpy(), _report(smear)["demoted_atomics"]

    (on, demoted), (off, _) = both(run)
    expect = np.full((K, K), 2)
    expect[0] = 1
    expect[K - 1] = 1
    np.testing.assert_array_equal(on, expect)
    np.testing.assert_array_equal(off, expect)
    assert demoted == []


def test_a_2d_loop_does_not_own_a_whole_row():
    def run(ti):
        a = ti.field(ti.i32, shape=(K, K))

        @ti.kernel
        def spread():
            for i, j in ti.ndrange(K, 4):  # 4 iterations share row i
                for k in range(K):
                    a[i, k] += j

        spread()
        return a.to_numpy(), _report(spread)["demoted_atomics"]

    (on, demoted), (off, _) = both(run)
    np.testing.assert_array_equal(on, np.full((K, K), 6))
    np.testing.assert_array_equal(off, on)
    assert demoted == []


def test_constant_offsets_that_agree_still_own_the_element():
    def run(ti):
        a = ti.field(ti.i32, shape=K + 1)

        @ti.kernel
        def shifted():
            for i in range(K):
                a[i + 1] += i
                a[i + 1] += 1

        shifted()
        return a.to_numpy(), _report(shifted)["demoted_atomics"]

    (on, demoted), (off, _) = both(run)
    np.testing.assert_array_equal(on, np.concatenate([[0], np.arange(K) + 1]))
    np.testing.assert_array_equal(off, on)
    assert demoted == ["a", "a"]


def test_ndarrays_of_one_dtype_are_judged_together():
    """The same NumPy array may come in twice: y[i + 1] may be x[i + 1] of another i."""

    def run(ti):
        @ti.kernel
        def bump(x: ti.types.ndarray(ti.i32, ndim=1), y: ti.types.ndarray(ti.i32, ndim=1)):
            for i in range(K):
                x[i] += 1
                y[i + 1] += 1

        @ti.kernel
        def own(x: ti.types.ndarray(ti.i32, ndim=1), y: ti.types.ndarray(ti.i32, ndim=1)):
            for i in range(K):
                x[i] += 1
                y[i] += 1

        shared = np.zeros(K + 1, np.int32)
        bump(shared, shared)
        own(shared, shared)
        return shared, _report(bump)["demoted_atomics"], _report(own)["demoted_atomics"]

    (on, bumped, owned), (off, _, _) = both(run)
    expect = np.full(K + 1, 4)
    expect[0] = 3
    expect[K] = 1
    np.testing.assert_array_equal(on, expect)
    np.testing.assert_array_equal(off, expect)
    assert bumped == [] and owned == ["arg0", "arg1"]


def test_serial_tasks_need_no_atomics():
    def run(ti):
        total = ti.field(ti.i32, shape=())
        hist = ti.field(ti.i32, shape=4)

        @ti.kernel
        def count():
            ti.loop_config(serialize=True)
            for i in range(K):
                hist[i % 4] += 1
            total[None] += hist[0] + hist[1] + hist[2]  # the kernel's serial part

        count()
        return hist.to_numpy(), total[None], _report(count)["demoted_atomics"]

    (hist, total, demoted), (hist_off, total_off, _) = both(run)
    np.testing.assert_array_equal(hist, np.full(4, K // 4))
    np.testing.assert_array_equal(hist_off, hist)
    assert total == total_off == 3 * K // 4
    assert demoted == ["hist", "total"]
