"""Every differentiable statement's adjoint against central finite differences (f64)."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import check_elementwise_gradient

pytestmark = pytest.mark.cpu

N = 5


@ti.func
def f_add(a, b):
    return a + b


@ti.func
def f_sub(a, b):
    return a - 2.5 * b


@ti.func
def f_mul(a, b):
    return a * b * a


@ti.func
def f_div(a, b):
    return a / (b + 3.0)


@ti.func
def f_pow(a, b):
    return ti.pow(a + 2.0, b)


@ti.func
def f_pow_int(a, b):
    return (a + b) ** 3


@ti.func
def f_sqrt(a, b):
    return ti.sqrt(a * a + b * b + 1.0)


@ti.func
def f_trig(a, b):
    return ti.sin(a) * ti.cos(b) + ti.tan(0.3 * a)


@ti.func
def f_exp_log(a, b):
    return ti.exp(0.5 * a) + ti.log(b * b + 1.0)


@ti.func
def f_inverse_trig(a, b):
    return ti.asin(0.3 * a) + ti.acos(0.2 * b) + ti.atan2(a, b + 3.0)


@ti.func
def f_tanh_abs(a, b):
    return ti.tanh(a) * ti.abs(b) - abs(a)


@ti.func
def f_min_max(a, b):
    return ti.min(a, b) * 2.0 + ti.max(a, 0.5 * b)


@ti.func
def f_select(a, b):
    return ti.select(a > b, a * a, b * 3.0)


@ti.func
def f_ternary(a, b):
    return a * b if a > 0.0 else a - b


@ti.func
def f_neg_mod(a, b):
    return -a + ti.floor(b) * a + ti.math.fract(b)


@ti.func
def f_cast(a, b):
    low = ti.cast(a * b, ti.f32)
    return ti.cast(low, ti.f64) * 2.0 + ti.cast(ti.cast(a, ti.i32), ti.f64)


@ti.func
def f_branch(a, b):
    out = 0.0
    if a > 0.2:  # noqa: SIM108 - an if statement is what this case differentiates
        out = a * a
    else:
        out = ti.sin(b)
    return out


@ti.func
def f_locals(a, b):
    t = a
    t = t * b
    t += a
    t *= 2.0
    return t


CASES = [
    f_add,
    f_sub,
    f_mul,
    f_div,
    f_pow,
    f_pow_int,
    f_sqrt,
    f_trig,
    f_exp_log,
    f_inverse_trig,
    f_tanh_abs,
    f_min_max,
    f_select,
    f_ternary,
    f_neg_mod,
    f_cast,
    f_branch,
    f_locals,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.name)
def test_adjoint_matches_finite_differences(f):
    # f_cast's f32 round trip quantises its loss (1e-7 relative): a wider step and bound
    got = check_elementwise_gradient(f, N, seed=7, span=1.5, rounded=f is f_cast)
    assert np.any(got[0] != 0)


def test_grad_kernel_is_compiled_through_the_pipeline():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=N, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += x[i] ** 2

    compute()
    stages = compute.grad.stages()
    assert "make_adjoint" in stages["report"].passes
    assert "make_adjoint" not in compute.report.passes
    assert stages["ir"] != compute.stages()["ir"]
    assert compute.grad.name == "compute_grad"
    # the adjoint's += on the loss gradient is read, never written: no atomic on it
    assert stages["report"].tasks[0].kind == "struct_for"
