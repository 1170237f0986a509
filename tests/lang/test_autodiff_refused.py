"""Autodiff is refused at its first use with TiNotImplementedError, never accepted silently."""

import re

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiNotImplementedError

pytestmark = pytest.mark.cpu

MESSAGE = re.escape("autodiff (gradients) is not supported by ti_notebook yet")


def test_field_grad_and_dual_refused_at_python_scope():
    x = ti.field(ti.f32, shape=4)
    v = ti.Vector.field(2, ti.f32, shape=4)
    for attribute in ("grad", "dual"):
        with pytest.raises(TiNotImplementedError, match=f"x.{attribute}: " + MESSAGE):
            getattr(x, attribute)
        with pytest.raises(TiNotImplementedError, match=f"v.{attribute}: "):
            getattr(v, attribute)


def test_needs_grad_refused_at_declaration():
    with pytest.raises(TiNotImplementedError, match="needs_grad=True"):
        ti.field(ti.f32, shape=4, needs_grad=True)
    with pytest.raises(TiNotImplementedError, match="needs_grad=True"):
        ti.Vector.field(3, ti.f32, shape=4, needs_grad=True)


def test_grad_in_kernel_points_at_the_attribute():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def seed():
        for i in x:
            x.grad[i] = 1.0

    with pytest.raises(TiNotImplementedError) as caught:
        seed()
    error = caught.value
    assert "is not supported by ti_notebook yet" in error.message and error.kernel_name == "seed"
    assert error.text.strip().startswith("x.grad[i] = 1.0")
    assert error.hint  # says what to do instead

    # the process keeps working: an ordinary kernel still runs
    @ti.kernel
    def fill():
        for i in x:
            x[i] = 2.0

    fill()
    assert x.to_numpy().tolist() == [2.0] * 4


def test_kernel_grad_and_tape_refused():
    x = ti.field(ti.f32, shape=())

    @ti.kernel
    def compute():
        x[None] = 1.0

    with pytest.raises(TiNotImplementedError, match="compute.grad: " + MESSAGE):
        compute.grad()
    with pytest.raises(TiNotImplementedError, match="ti.ad.Tape: "), ti.ad.Tape(loss=x):
        compute()
    with pytest.raises(TiNotImplementedError, match="ti.Tape: "):
        ti.Tape(x)
    for name in ("FwdMode", "clear_all_gradients", "grad_replaced", "grad_for", "no_grad"):
        with pytest.raises(TiNotImplementedError, match=f"ti.ad.{name}: "):
            getattr(ti.ad, name)(compute)
