"""make_thread_local on one element of a field or an ndarray (constant indices): what
grad kernels write when the loss reads a parameter (``loss += p[0] * x[i]`` makes
``p.grad[0]`` gather every iteration), and where it must stay away (a computed index,
another ndarray of the same type, a sparse field)."""

import numpy as np
import pytest
from tls_helpers import N, assert_fired, both, floats, ints, tls

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_constant_elements_of_a_field():
    def build():
        x = ti.field(ti.i32, shape=N)
        p = ti.field(ti.i32, shape=(2, 3))
        x.from_numpy(ints())

        @ti.kernel
        def k():
            for i in x:
                p[0, 1] += x[i]
                p[1, 2] -= 2 * x[i]

        k()
        return p.to_numpy(), tls(k)

    results = both(build)
    assert_fired(results, [("p[0, 1]", "add"), ("p[1, 2]", "add")])
    expected = np.zeros((2, 3), np.int32)
    expected[0, 1], expected[1, 2] = ints().sum(), -2 * ints().sum()
    for values, _ in results.values():
        np.testing.assert_array_equal(values, expected)


def test_an_element_read_elsewhere_at_a_constant_index_stays_separate():
    def build():
        x = ti.field(ti.i32, shape=N)
        p = ti.field(ti.i32, shape=2)
        x.from_numpy(ints())
        p[1] = 3

        @ti.kernel
        def k():
            for i in x:
                p[0] += x[i] * p[1]

        k()
        return p[0], tls(k)

    results = both(build)
    assert_fired(results, [("p[0]", "add")])
    assert results[True][0] == results[False][0] == 3 * int(ints().sum())


def test_a_computed_index_into_the_same_field_keeps_the_atomics():
    def build():
        x = ti.field(ti.i32, shape=N)
        p = ti.field(ti.i32, shape=4)
        x.from_numpy(ints())

        @ti.kernel
        def k():
            for i in x:
                p[0] += x[i]
                p[i % 4] += 1  # p[0] too, every fourth i

        k()
        return p.to_numpy(), tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    np.testing.assert_array_equal(results[True][0], results[False][0])


def test_an_ndarray_element_alone_and_beside_another_ndarray():
    def build():
        x = floats().astype(np.float64)
        total = np.zeros((1, 2))  # 2-D: the only ndarray of its rank in ``alone``

        @ti.kernel
        def alone(x: ti.types.ndarray(), t: ti.types.ndarray()):
            for i in x:
                t[0, 1] += x[i]

        @ti.kernel
        def beside(a: ti.types.ndarray(), b: ti.types.ndarray(), t: ti.types.ndarray()):
            for i in range(a.shape[0]):
                t[0] += a[i]
                b[i] = 1.0  # b may be t: t[0] is not known to be alone

        alone(x, total)
        fired = [r["destination"] for r in tls(alone, x, total)]
        same = np.zeros(4)
        beside(np.ones(4), same, same)  # t is b: the adds and the stores meet
        return (total[0, 1], same.tolist(), tls(beside, x, x, np.zeros(2))), fired

    results = both(build)
    (on_total, on_same, on_beside), on_fired = results[True]
    assert on_fired == ["arg1[0, 1]"] and on_beside == []
    assert on_total == pytest.approx(floats().astype(np.float64).sum())
    assert on_same == results[False][0][1]


def test_a_sparse_field_element_keeps_its_atomic():
    def build():
        x = ti.field(ti.f32, shape=N)
        p = ti.field(ti.f32)
        ti.root.pointer(ti.i, 2).dense(ti.i, 4).place(p)
        x.fill(1.0)

        @ti.kernel
        def k():
            for i in x:
                if i < 0:  # never: the cell must stay inactive
                    p[5] += x[i]

        @ti.kernel
        def active() -> ti.i32:
            count = 0
            for _ in p:  # visits the active cells only
                count += 1
            return count

        k()
        return active(), tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    assert results[True][0] == results[False][0] == 0


def test_grad_kernel_gathers_a_parameter_element_per_thread():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    n = 10_007
    x = ti.field(ti.f64, shape=n, needs_grad=True)
    p = ti.field(ti.f64, shape=2, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    data = np.random.default_rng(1).standard_normal(n)
    x.from_numpy(data)
    p.from_numpy(np.array([0.5, -0.25]))

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += (x[i] * p[0] + p[1]) ** 2

    compute()
    loss.grad[None] = 1.0
    compute.grad()
    residual = data * 0.5 - 0.25
    np.testing.assert_allclose(p.grad.to_numpy(), [2 * (residual * data).sum(), 2 * residual.sum()])
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * residual * 0.5)
    gathered = {r.destination for r in compute.grad.report.thread_local}
    assert gathered == {"p.grad[0]", "p.grad[1]"}
