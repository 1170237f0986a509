"""Whole programs under ti.ad.Tape against central finite differences (f64): nested and
serial loops with carried locals, funcs, vectors and matrices, structs, ndarrays,
atomics, several kernels on one tape."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import assert_close, numeric_gradient

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _f64():
    ti.init(arch=ti.cpu, default_fp=ti.f64)


def _check(kernels, x, loss, values, args=(), rtol=1e-6):
    """Tape gradient of ``loss`` after ``kernels`` with respect to field ``x``."""

    def run():
        for kernel in kernels:
            kernel(*args)

    def loss_of(v):
        x.from_numpy(v)
        loss[None] = 0.0
        run()
        return loss[None]

    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        run()
    got = x.grad.to_numpy()
    assert_close(got, numeric_gradient(loss_of, values), rtol=rtol, atol=1e-6)
    assert np.any(got != 0)
    return got


def test_serial_loop_with_a_carried_local_matches_finite_differences():
    """p = p * 0.9 + 0.1 carried through a serial loop (where Taichi 1.7.4 is off by
    1.2e-3 relative), and a nonlinear step carried too."""
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def affine(steps: ti.i32):
        for i in x:
            p = x[i]
            for _ in range(steps):
                p = p * 0.9 + 0.1
            loss[None] += p * p

    @ti.kernel
    def nonlinear(steps: ti.i32):
        for i in x:
            p = x[i]
            q = 1.0
            for k in range(steps):
                p = 0.5 * ti.sin(p) + 0.3 * p * q
                q = q * 0.95 + 0.01 * k
            loss[None] += p + q * x[i]

    values = np.array([0.1, 0.5, -0.3, 1.2])
    for steps in (0, 1, 7, 30):
        got = _check([affine], x, loss, values, (steps,))
        exact = 2 * (values * 0.9**steps + 1 - 0.9**steps) * 0.9**steps
        assert_close(got, exact, rtol=1e-12, atol=1e-12)
        _check([nonlinear], x, loss, values, (steps,))


def test_nested_serial_loops_and_ndrange():
    x = ti.field(ti.f64, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def nested():
        for i in x:
            p = x[i]
            for a in range(3):
                s = p
                for b in range(2):
                    s = s * 0.8 + ti.cos(s) * 0.1 * (b + 1)
                p = p + s * 0.5 - 0.1 * a
            for a, b in ti.ndrange(2, 3):
                p = p * (1.0 + 0.01 * a - 0.02 * b)
            loss[None] += p**2

    _check([nested], x, loss, np.array([0.3, -0.7, 1.1]))


def test_stack_overflow_is_an_error_at_the_loop_and_the_process_goes_on():
    ti.init(arch=ti.cpu, default_fp=ti.f64, ad_stack_size=8)
    x = ti.field(ti.f64, shape=2, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def carried(steps: ti.i32):
        for i in x:
            p = x[i]
            for _ in range(steps):
                p = p * 0.9
            loss[None] += p

    with pytest.raises(RuntimeError) as caught, ti.ad.Tape(loss=loss):
        carried(9)
    error = caught.value
    assert "autodiff stack of 'p' is full (8 entries" in error.message
    assert error.kernel_name == "carried_grad"
    assert "for _ in range(steps):" in error.text
    with ti.ad.Tape(loss=loss):
        carried(8)
    assert_close(x.grad.to_numpy(), [0.9**8] * 2)


def test_funcs_vectors_and_matrices():
    x = ti.Vector.field(3, ti.f64, shape=4, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.func
    def energy(v):
        m = ti.Matrix([[v[0], v[1], 0.5], [v[2], 2.0, v[0] * v[1]], [0.3, v[1], v[2] + 3.0]])
        return m.determinant() + m.inverse()[0, 1] + v.norm() + v.normalized().dot(v) ** 2

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += energy(x[i]) + x[i].cross(ti.Vector([1.0, 0.5, -0.2])).norm_sqr()

    values = np.random.default_rng(3).uniform(0.5, 1.5, (4, 3))
    _check([compute], x, loss, values, rtol=1e-5)


def test_matrix_field_and_outer_products():
    F = ti.Matrix.field(2, 2, ti.f64, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def neo_hookean():
        for i in F:
            J = F[i].determinant()
            C = F[i].transpose() @ F[i]
            loss[None] += 0.5 * (C.trace() - 2.0) - ti.log(J) + 0.25 * ti.log(J) ** 2

    values = np.eye(2)[None] + np.random.default_rng(5).uniform(-0.2, 0.2, (3, 2, 2))
    _check([neo_hookean], F, loss, values)


def test_struct_fields():
    p = ti.Struct.field({"pos": ti.math.vec2, "mass": ti.f64}, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def potential():
        for i in p:
            loss[None] += p[i].mass * p[i].pos.norm_sqr()

    p.mass.from_numpy(np.array([1.0, 2.0, 3.0]))
    got = _check([potential], p.pos, loss, np.arange(6.0).reshape(3, 2))
    assert_close(got, 2 * np.array([1.0, 2.0, 3.0])[:, None] * np.arange(6.0).reshape(3, 2))
    assert_close(p.grad.mass.to_numpy(), (np.arange(6.0).reshape(3, 2) ** 2).sum(1))


def test_stores_atomics_and_several_kernels_on_one_tape():
    n = 6
    x = ti.field(ti.f64, shape=n, needs_grad=True)
    y = ti.field(ti.f64, shape=n, needs_grad=True)
    z = ti.field(ti.f64, shape=n, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def first():
        for i in x:
            y[i] = ti.sin(x[i]) * x[(i + 1) % n]

    @ti.kernel
    def second():
        for i in range(n):
            z[i] = 0.0
        for i in range(n):
            ti.atomic_add(z[(i * 2) % n], y[i] ** 2)
            z[(i + 3) % n] -= 0.5 * y[i]

    @ti.kernel
    def third():
        for i in z:
            loss[None] += ti.exp(0.3 * z[i])

    _check([first, second, third], x, loss, np.linspace(-1.0, 1.2, n))


def test_ndarray_arguments_and_their_gradients():
    a = ti.ndarray(ti.f64, 5, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute(arr: ti.types.ndarray()):
        for i in arr:
            loss[None] += arr[i] ** 3 + ti.sin(arr[i])

    values = np.linspace(-1.0, 1.0, 5)
    a.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        compute(a)
    assert_close(a.grad.to_numpy(), 3 * values**2 + np.cos(values))
    loss.grad[None] = 2.0
    a.grad.fill(0)
    compute.grad(a)  # the kernel's grad by hand, the ndarray's gradient with it
    assert_close(a.grad.to_numpy(), 2 * (3 * values**2 + np.cos(values)))
    compute.grad(values)  # a NumPy array has no gradient: nothing to add into, no error


def test_kernel_arguments_and_static_loops():
    x = ti.field(ti.f64, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute(scale: ti.f64, k: ti.template()):
        for i in x:
            acc = 0.0
            for j in ti.static(range(k)):
                acc += x[i] ** (j + 1) * scale
            loss[None] += acc

    got = _check([compute], x, loss, np.array([0.5, 1.0, 2.0]), (1.5, 3))
    v = np.array([0.5, 1.0, 2.0])
    assert_close(got, 1.5 * (1 + 2 * v + 3 * v**2))


def test_grad_replaced_and_no_grad():
    x = ti.field(ti.f64, shape=(), needs_grad=True)
    y = ti.field(ti.f64, shape=(), needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    calls = []

    @ti.kernel
    def square():
        y[None] = x[None] ** 2

    @ti.kernel
    def to_loss():
        loss[None] = y[None] * 3.0

    @ti.ad.grad_replaced
    def forward():
        square()

    @ti.ad.grad_for(forward)
    def backward():
        calls.append("backward")
        x.grad[None] += 100.0 * y.grad[None]  # a custom (wrong on purpose) rule

    @ti.ad.no_grad
    def untracked():
        square()

    x[None] = 2.0
    with ti.ad.Tape(loss=loss):
        forward()
        untracked()
        to_loss()
    assert calls == ["backward"]
    assert x.grad[None] == 300.0 and y.grad[None] == 3.0


def test_clear_gradients_false_accumulates():
    x = ti.field(ti.f64, shape=(), needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        loss[None] += x[None] * 4.0

    for _ in range(2):
        with ti.ad.Tape(loss=loss, clear_gradients=False):
            compute()
    assert x.grad[None] == 8.0


def test_serial_code_after_a_parallel_loop():
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    total = ti.field(ti.f64, shape=(), needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def norm():
        for i in x:
            total[None] += x[i] ** 2
        loss[None] = ti.sqrt(total[None]) * 3.0

    values = np.array([1.0, 2.0, 3.0, 4.0])
    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        norm()
    assert_close(x.grad.to_numpy(), 3 * values / np.sqrt(30.0))


def test_data_oriented_kernels_and_their_bound_grad():
    @ti.data_oriented
    class Springs:
        def __init__(self):
            self.y = ti.field(ti.f64, shape=3, needs_grad=True)
            self.energy = ti.field(ti.f64, shape=(), needs_grad=True)

        @ti.kernel
        def compute(self):
            for i in self.y:
                self.energy[None] += self.y[i] ** 3

    springs = Springs()
    springs.y.fill(2.0)
    with ti.ad.Tape(loss=springs.energy):
        springs.compute()
    assert springs.y.grad.to_numpy().tolist() == [12.0] * 3
    springs.compute.grad()  # bound to the instance; adds again
    assert springs.y.grad.to_numpy().tolist() == [24.0] * 3


def test_tape_with_an_ndarray_loss():
    a = ti.ndarray(ti.f64, 3, needs_grad=True)
    loss = ti.ndarray(ti.f64, (), needs_grad=True)

    @ti.kernel
    def compute(a: ti.types.ndarray(), loss: ti.types.ndarray()):
        for i in a:
            loss[None] += a[i] ** 2

    a.from_numpy(np.array([1.0, 2.0, 3.0]))
    with ti.ad.Tape(loss=loss):
        compute(a, loss)
    assert a.grad.to_numpy().tolist() == [2.0, 4.0, 6.0]
