"""if_convert: a branch of an innermost loop becomes straight-line code when every
statement in it may run unconditionally (issue 18, n-body). Each case runs with the
passes on and off and compares the results; the cases it must refuse check the IR."""

import numpy as np
import pytest

import ti_notebook as ti
from tests.passes.on_off import both

pytestmark = pytest.mark.cpu

N = 40


def _data(*shape, seed=3) -> np.ndarray:
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def _fired(kernel) -> bool:
    return "if_convert" in kernel.report.passes


def test_n_body_branch_is_flattened_and_the_loop_vectorises():
    P = _data(N, 2)

    def run(ti):
        pos, force = ti.Vector.field(2, ti.f32, N), ti.Vector.field(2, ti.f32, N)
        pos.from_numpy(P)

        @ti.kernel
        def forces():
            for i in range(N):
                force[i] = ti.Vector([0.0, 0.0])
                for j in range(N):
                    if i != j:
                        d = pos[j] - pos[i]
                        r2 = d.dot(d) + 0.01
                        force[i] += d / (r2 * ti.sqrt(r2))

        forces()
        asm = forces.stages()["asm"] if _fired(forces) else ""
        return force.to_numpy(), _fired(forces), asm

    (on, fired, asm), (off, fired_off, _) = both(run)
    d = P[None, :, :] - P[:, None, :]
    r2 = (d * d).sum(-1) + 0.01
    np.fill_diagonal(r2, np.inf)  # i == j contributes nothing
    want = (d / (r2 * np.sqrt(r2))[..., None]).sum(1)
    np.testing.assert_allclose(on, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(off, want, rtol=1e-4, atol=1e-4)
    assert fired and not fired_off
    assert "sqrtps" in asm  # a packed square root: the inner loop vectorised (scalar: sqrtss)


def test_both_sides_and_locals_declared_outside_keep_their_values():
    A = _data(N) - 0.5

    def run(ti):
        a, out = ti.field(ti.f32, N), ti.field(ti.f32, (N, 4))
        a.from_numpy(A)

        @ti.kernel
        def split():
            for i in range(N):
                pos_sum, neg_sum, count, last = -0.0, 0.0, 0, -1.0
                for j in range(N):
                    v = a[j]
                    if v > a[i]:
                        pos_sum += v
                        count += 1
                    else:
                        neg_sum -= v * 2.0
                        last = v
                out[i, 0] = pos_sum
                out[i, 1] = neg_sum
                out[i, 2] = count
                out[i, 3] = last

        split()
        return out.to_numpy(), _fired(split)

    (on, fired), (off, _) = both(run)
    assert fired
    np.testing.assert_allclose(on, off, rtol=1e-6)
    above = A[None, :] > A[:, None]
    np.testing.assert_allclose(on[:, 0], np.where(above, A, 0).sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(on[:, 2], above.sum(1))


def test_a_0d_field_read_under_a_branch_is_flattened():
    A = _data(N)

    def run(ti):
        a, scale, out = ti.field(ti.f32, N), ti.field(ti.f32, ()), ti.field(ti.f32, N)
        a.from_numpy(A)
        scale[None] = 3.0

        @ti.kernel
        def scaled():
            for i in range(N):
                total = 0.0
                for j in range(N):
                    if a[j] > 0.5:
                        total += a[j] * scale[None]
                out[i] = total

        scaled()
        return out.to_numpy(), _fired(scaled)

    (on, fired), (off, fired_off) = both(run)
    assert fired and not fired_off
    np.testing.assert_allclose(on, np.full(N, 3 * A[A > 0.5].sum()), rtol=1e-5)
    np.testing.assert_allclose(on, off, rtol=1e-6)


def test_an_untaken_update_keeps_negative_zero():
    def run(ti):
        out = ti.field(ti.f32, 2)

        @ti.kernel
        def never():
            for i in range(2):
                acc = -0.0
                for j in range(8):
                    if j > 100:
                        acc += 1.0
                out[i] = acc

        never()
        return out.to_numpy(), _fired(never)

    (on, fired), (off, _) = both(run)
    assert fired
    assert np.signbit(on).all() and np.signbit(off).all() and (on == 0).all()


def test_nested_branches_flatten_from_the_inside():
    A = _data(N)

    def run(ti):
        a, out = ti.field(ti.f32, N), ti.field(ti.f32, N)
        a.from_numpy(A)

        @ti.kernel
        def bands():
            for i in range(N):
                total = 0.0
                for j in range(N):
                    if a[j] > 0.25:
                        if a[j] < 0.75:
                            total += a[j]
                        else:
                            total += 2.0 * a[j]
                out[i] = total

        bands()
        return out.to_numpy(), bands.stages()["ir_optimized"]

    (on, text), (off, _) = both(run)
    middle = np.where((A > 0.25) & (A < 0.75), A, 0) + np.where(A >= 0.75, 2 * A, 0)
    np.testing.assert_allclose(on, np.full(N, middle.sum()), rtol=1e-5)
    np.testing.assert_allclose(on, off, rtol=1e-6)
    inner = text.split("range_for")[-1]
    assert " if " not in inner and "= if" not in inner


def _branch_stays(build) -> None:
    """``build(ti)`` returns a kernel that ran; if_convert must not have fired."""
    ti.init(arch=ti.cpu)
    kernel = build(ti)
    assert not _fired(kernel)


def test_a_load_proven_only_by_the_condition_stays_in_the_branch():
    def build(ti):
        a, out = ti.field(ti.f32, N), ti.field(ti.f32, N)

        @ti.kernel
        def guarded(m: ti.i32):
            for i in range(N):
                total = 0.0
                for j in range(m):
                    if j < N:  # a[j] is only in bounds because of the test
                        total += a[j]
                out[i] = total

        guarded(N + 5)
        return guarded

    _branch_stays(build)


@pytest.mark.parametrize("case", ["field_store", "int_division", "sparse", "outer_loop"])
def test_branches_it_must_leave_alone(case):
    def build(ti):
        a, out = ti.field(ti.f32, N), ti.field(ti.f32, N)
        counts = ti.field(ti.i32, N)
        sparse = ti.field(ti.f32)
        ti.root.pointer(ti.i, N // 8).dense(ti.i, 8).place(sparse)

        @ti.kernel
        def field_store():
            for _i in range(N):
                for j in range(N):
                    if a[j] > 0.5:
                        out[j] = 1.0  # a store to a field must not happen when false

        @ti.kernel
        def int_division(k: ti.i32):
            for i in range(N):
                total = 0
                for j in range(N):
                    if k != 0:
                        total += j // k  # would trap on k == 0
                counts[i] = total

        @ti.kernel
        def sparse_read():
            for i in range(N):
                total = 0.0
                for j in range(N):
                    if j != i:
                        total += sparse[j]
                out[i] = total

        @ti.kernel
        def outer_loop():
            for i in range(N):
                t = 0.0
                if i > 3:  # in the parallel loop's body, which holds a loop: not inner
                    t = a[i]
                for _j in range(2):
                    t += 1.0
                out[i] = t

        runs = {
            "field_store": (field_store, ()),
            "int_division": (int_division, (0,)),
            "sparse": (sparse_read, ()),
            "outer_loop": (outer_loop, ()),
        }
        kernel, args = runs[case]
        kernel(*args)
        return kernel

    _branch_stays(build)


def test_off_without_advanced_optimization():
    ti.init(arch=ti.cpu, advanced_optimization=False)
    a, out = ti.field(ti.f32, N), ti.field(ti.f32, N)

    @ti.kernel
    def skip_self():
        for i in range(N):
            total = 0.0
            for j in range(N):
                if i != j:
                    total += a[j]
            out[i] = total

    skip_self()
    assert not _fired(skip_self)
