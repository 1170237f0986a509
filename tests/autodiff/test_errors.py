"""Autodiff's refusals: a clear error at the line, and the process keeps working."""

from __future__ import annotations

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


@pytest.fixture
def fields():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    return x, loss


def _still_works(x, loss):
    @ti.kernel
    def plain():
        for i in x:
            loss[None] += x[i] * 2.0

    x.fill(1.0)
    with ti.ad.Tape(loss=loss):
        plain()
    assert x.grad.to_numpy().tolist() == [2.0] * 4


def test_break_in_a_differentiated_loop(fields):
    x, loss = fields

    @ti.kernel
    def stops():
        for i in x:
            p = x[i]
            for _ in range(5):
                if p > 3.0:
                    break
                p = p * 2.0
            loss[None] += p

    stops()  # the kernel itself is fine
    with pytest.raises(SyntaxError) as caught, ti.ad.Tape(loss=loss):
        stops()
    assert "'break' in a kernel that is differentiated" in caught.value.message
    assert caught.value.text.strip() == "break"
    _still_works(x, loss)


def test_random_numbers_in_a_differentiated_kernel(fields):
    x, loss = fields

    @ti.kernel
    def noisy():
        for i in x:
            loss[None] += x[i] * ti.random()

    with pytest.raises(SyntaxError, match="ti.random") as caught, ti.ad.Tape(loss=loss):
        noisy()
    assert "ti.random()" in caught.value.text
    _still_works(x, loss)


def test_while_loop(fields):
    x, loss = fields

    @ti.kernel
    def loops():
        for i in x:
            p = x[i]
            while p < 10.0 and p > 0.0:
                p = p * 2.0
            loss[None] += p

    with pytest.raises(SyntaxError, match="while loop"), ti.ad.Tape(loss=loss):
        loops()
    _still_works(x, loss)


def test_validation_names_the_field_and_the_line(fields):
    x, loss = fields

    @ti.kernel
    def in_place():
        for i in x:
            x[i] = x[i] * x[i]
        for i in x:
            loss[None] += x[i]

    with pytest.raises(RuntimeError) as caught, ti.ad.Tape(loss=loss, validation=True):
        in_place()
    error = caught.value
    assert "reads field 'x' and writes it too" in error.message
    assert "global data access rule" in error.message
    assert error.text.strip() == "x[i] = x[i] * x[i]"
    # without validation the Tape runs (and the gradient is what the rule warns of)
    with ti.ad.Tape(loss=loss):
        in_place()
    _still_works(x, loss)


def test_atomic_max_into_a_dual_field_in_forward_mode():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=4, needs_dual=True)
    peak = ti.field(ti.f64, shape=(), needs_dual=True)

    @ti.kernel
    def highest():
        for i in x:
            ti.atomic_max(peak[None], x[i])

    seed = [1.0, 0.0, 0.0, 0.0]
    with (
        pytest.raises(NotImplementedError, match="atomic max") as caught,
        ti.ad.FwdMode(loss=peak, param=x, seed=seed),
    ):
        highest()
    assert "ti.ad.Tape" in str(caught.value)
    x.fill(0.5)
    highest()  # the kernel itself still runs
    assert peak[None] == 0.5


def test_tape_loss_must_have_a_gradient():
    loss = ti.field(ti.f32, shape=())
    with pytest.raises(RuntimeError, match="loss.grad") as caught, ti.ad.Tape(loss=loss):
        pass
    assert "needs_grad=True" in caught.value.hint


def test_grad_kernel_has_no_grad(fields):
    x, loss = fields

    @ti.kernel
    def k():
        for i in x:
            loss[None] += x[i]

    with pytest.raises(TypeError, match="no second derivatives"):
        _ = k.grad.grad


def test_using_the_old_value_of_an_atomic(fields):
    x, loss = fields

    @ti.kernel
    def counts():
        for i in x:
            old = ti.atomic_add(loss[None], x[i])
            x[i] = old * 2.0

    expected = pytest.raises(NotImplementedError, match="old value an atomic returns")
    with expected as caught, ti.ad.Tape(loss=loss):
        counts()
    assert "old = ti.atomic_add(loss[None], x[i])" in caught.value.text
    _still_works(x, loss)
