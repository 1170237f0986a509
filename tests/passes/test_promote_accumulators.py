"""promote_accumulators: a loop-invariant global element lives in a local across a serial
loop (issue 18). Each case runs with the passes on and off and compares the results."""

import numpy as np
import pytest

import ti_notebook as ti
from tests.passes.on_off import both

pytestmark = pytest.mark.cpu

N = 48


def _report(kernel) -> dict:
    return kernel.stages()["report"]


def _data(*shape) -> np.ndarray:
    return np.random.default_rng(7).random(shape, dtype=np.float32)


def test_matvec_keeps_y_i_in_a_register():
    A, x = _data(N, N), _data(N)

    def run(ti):
        a, v, y = ti.field(ti.f32, (N, N)), ti.field(ti.f32, N), ti.field(ti.f32, N)
        a.from_numpy(A)
        v.from_numpy(x)

        @ti.kernel
        def matvec():
            for i in range(N):
                for j in range(N):
                    y[i] += a[i, j] * v[j]

        matvec()
        return y.to_numpy(), _report(matvec)["promoted"], matvec.stages()["ir_optimized"]

    (on, promoted, text), (off, promoted_off, _) = both(run)
    np.testing.assert_allclose(on, A @ x, rtol=1e-5)
    np.testing.assert_allclose(off, A @ x, rtol=1e-5)
    assert promoted == ["y"] and promoted_off == []
    inner = text.split("range_for $")[-1]
    assert "globalstore" not in inner.split("localload")[0]  # no store in the inner loop


def test_conditional_update_of_an_owned_vector_is_promoted():
    P = _data(N, 2)

    def run(ti):
        pos, force = ti.Vector.field(2, ti.f32, N), ti.Vector.field(2, ti.f32, N)
        pos.from_numpy(P)

        @ti.kernel
        def forces():
            for i in range(N):
                for j in range(N):
                    if i != j:
                        d = pos[j] - pos[i]
                        force[i] += d / (d.norm_sqr() + 0.1)

        forces()
        return force.to_numpy(), _report(forces)["promoted"]

    (on, promoted), (off, _) = both(run)
    d = P[None, :, :] - P[:, None, :]
    expect = (d / ((d**2).sum(-1) + 0.1)[..., None]).sum(1)
    np.testing.assert_allclose(on, expect, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(off, on, rtol=1e-5, atol=1e-6)
    assert promoted == ["force[0]", "force[1]"]


def test_an_accumulator_another_iteration_reads_is_not_promoted():
    def run(ti):
        y = ti.field(ti.i32, N)

        @ti.kernel
        def chain():
            for i in range(N):
                for _j in range(4):
                    y[i] += 1
                    y[(i + 1) % N] += 1  # another iteration's element, same field

        chain()
        return y.to_numpy(), _report(chain)["promoted"], _report(chain)["demoted_atomics"]

    (on, promoted, demoted), (off, _, _) = both(run)
    np.testing.assert_array_equal(on, np.full(N, 8))
    np.testing.assert_array_equal(off, on)
    assert promoted == [] and demoted == []


def test_aliasing_through_the_same_field_is_not_promoted():
    def run(ti):
        y = ti.field(ti.i32, N)

        @ti.kernel
        def init():
            for i in range(N):
                y[i] = i

        @ti.kernel
        def grow():
            ti.loop_config(serialize=True)
            for i in range(N):
                for j in range(N):
                    if j == i:
                        y[i] = y[i] + y[j]  # y[j] is y[i] once: a local copy would miss it

        init()
        grow()
        return y.to_numpy(), _report(grow)["promoted"]

    (on, promoted), (off, _) = both(run)
    np.testing.assert_array_equal(on, 2 * np.arange(N))
    np.testing.assert_array_equal(off, on)
    assert promoted == []


def test_a_global_shared_by_all_iterations_is_left_to_the_atomics():
    def run(ti):
        total = ti.field(ti.i32, ())

        @ti.kernel
        def count():
            for i in range(N):
                for _j in range(i):
                    total[None] += 1

        count()
        return total[None], _report(count)["promoted"]

    (on, promoted), (off, _) = both(run)
    assert on == off == N * (N - 1) // 2
    assert promoted == []


def test_a_loop_that_may_not_run_reads_nothing_before_it():
    """``y[i + 8]`` is out of range for the last iterations; the loop over ``m`` elements
    runs zero times there, so the original program never touches it."""

    def run(ti):
        y = ti.field(ti.i32, N)

        @ti.kernel
        def shifted(m: ti.i32):
            for i in range(N):
                for j in range(m if i + 8 < N else 0):
                    y[i + 8] += j

        shifted(4)
        return y.to_numpy(), _report(shifted)["promoted"]

    (on, promoted), (off, _) = both(run)
    expect = np.zeros(N, np.int32)
    expect[8:] = 6
    np.testing.assert_array_equal(on, expect)
    np.testing.assert_array_equal(off, on)
    assert promoted == ["y"]


def test_a_load_only_invariant_is_hoisted_out_of_a_loop_with_break():
    def run(ti):
        limit, out = ti.field(ti.i32, N), ti.field(ti.i32, N)
        limit.from_numpy(np.arange(N, dtype=np.int32) % 7)

        @ti.kernel
        def walk():
            for i in range(N):
                k = 0
                while True:
                    if k >= limit[i]:
                        break
                    k += 1
                out[i] = k

        walk()
        return out.to_numpy(), _report(walk)["promoted"]

    (on, promoted), (off, _) = both(run)
    np.testing.assert_array_equal(on, np.arange(N) % 7)
    np.testing.assert_array_equal(off, on)
    assert promoted == ["limit"]


def test_ndarray_accumulator_is_promoted_only_without_same_typed_neighbours():
    A, x = _data(N, N), _data(N)

    def run(ti):
        @ti.kernel
        def matvec(
            a: ti.types.ndarray(ti.f32, ndim=2),
            v: ti.types.ndarray(ti.f32, ndim=1),
            y: ti.types.ndarray(ti.f32, ndim=1),
        ):
            for i in range(N):
                for j in range(N):
                    y[i] += a[i, j] * v[j]

        @ti.kernel
        def rowsum(a: ti.types.ndarray(ti.f32, ndim=2), y: ti.types.ndarray(ti.f32, ndim=1)):
            for i in range(N):
                for j in range(N):
                    y[i] += a[i, j]

        y1, y2 = np.zeros(N, np.float32), np.zeros(N, np.float32)
        matvec(A, x, y1)
        rowsum(A, y2)
        return y1, y2, _report(matvec)["promoted"], _report(rowsum)["promoted"]

    (y1, y2, mv, rs), (y1_off, y2_off, _, _) = both(run)
    np.testing.assert_allclose(y1, A @ x, rtol=1e-5)
    np.testing.assert_allclose(y2, A.sum(1), rtol=1e-5)
    np.testing.assert_allclose(y1_off, y1, rtol=1e-5)
    np.testing.assert_allclose(y2_off, y2, rtol=1e-5)
    assert mv == []  # v may be the same array as y: v[j] would be y[i] once
    assert rs == ["arg1"]


def test_out_of_range_accumulator_still_raises_where_the_loop_runs():
    y = ti.field(ti.i32, N)

    @ti.kernel
    def past(m: ti.i32):
        for i in range(N):
            for _j in range(m):
                y[i + 1] += 1

    past(0)  # the loop never runs: nothing is read or written
    with pytest.raises(IndexError):
        past(1)
