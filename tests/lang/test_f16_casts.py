"""f16 values meet f64 and integers: arguments (passed as f64), casts both ways. An
integer goes through f32; f64 <-> f16 is direct (libgcc's helpers on a CPU without
AVX512-FP16: ``tests/lang/test_pow.py`` checks the single rounding)."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_an_f16_argument_and_casts_to_and_from_f16():
    x = ti.field(ti.f16, shape=4)
    wide = ti.field(ti.f64, shape=4)
    whole = ti.field(ti.i64, shape=4)

    @ti.kernel
    def mix(v: ti.f16, n: ti.i64, d: ti.f64):
        for i in x:
            x[i] = x[i] + v + ti.cast(n, ti.f16) + ti.cast(d, ti.f16) + ti.cast(i, ti.f16)
            wide[i] = ti.cast(x[i], ti.f64)
            whole[i] = ti.cast(x[i], ti.i64)

    mix(1.5, 2, 0.25)
    expected = np.float16(1.5) + 2 + np.float16(0.25) + np.arange(4, dtype=np.float16)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    np.testing.assert_array_equal(wide.to_numpy(), expected.astype(np.float64))
    np.testing.assert_array_equal(whole.to_numpy(), expected.astype(np.int64))
