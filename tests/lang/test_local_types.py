"""A local keeps the type of its first assignment: later values are cast to it, and a cast
that loses digits warns (``TiPrecisionWarning``), as Taichi does.

Checked against real Taichi 1.7.4 (``import taichi as ti``).
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_local_keeps_type_of_first_assignment():
    # Taichi warns "Assign may lose precision: i32 <- f32" and casts (truncation).
    @ti.kernel
    def int_then_float(v: ti.f32) -> ti.f32:
        x = 0
        x = v
        return x

    @ti.kernel
    def int_then_literal() -> ti.f32:
        x = 0
        x = 1.7
        return x

    @ti.kernel
    def float_then_int(v: ti.i32) -> ti.f32:
        x = 0.0
        x = v
        return x / 2

    @ti.kernel
    def int_aug_float(v: ti.f32) -> ti.f32:
        x = 1
        x += v
        return x

    with pytest.warns(ti.errors.TiPrecisionWarning, match="local 'x' may lose precision"):
        assert int_then_literal() == 1.0  # compiled here: the warning names the line
    with pytest.warns(ti.errors.TiPrecisionWarning):
        assert int_then_float(1.7) == 1.0
    for v in [1.7, -1.7, 2.5, -0.5, 0.0, 100.99]:
        assert int_then_float(v) == float(int(np.float32(v)))
        # `x += v` on an i32 local casts v to i32 first, then adds: 1 + (-0.5) gives 1
        assert int_aug_float(v) == float(1 + int(np.float32(v)))
    for v in [3, -3, 0, 7]:
        assert float_then_int(v) == v / 2
