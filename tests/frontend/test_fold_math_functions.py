"""Math functions of constants fold at compile time like the machine computes them."""

import math

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_tanh_asin_acos_of_constants_fold():
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def k() -> ti.f64:
        return ti.tanh(0.7) + ti.asin(0.5) + ti.acos(0.25)

    assert k() == pytest.approx(math.tanh(0.7) + math.asin(0.5) + math.acos(0.25))


def test_constants_outside_the_domain_fold_to_nan():
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def k() -> ti.f64:
        return ti.sqrt(-1.0) + ti.asin(2.0)

    assert math.isnan(k())
