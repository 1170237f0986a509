"""Operators and built-in functions: arithmetic, comparisons, boolean and bit operators,
ti.* math functions and ti.random (atomics: ``test_atomics.py``).

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``).
"""

import math

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

INT_PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (6, 3), (-6, 3), (1, -5), (-1, 7)]


# --------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------


def test_int_arithmetic_python_semantics():
    out = ti.field(ti.i32, shape=6)
    fout = ti.field(ti.f32, shape=())

    @ti.kernel
    def arith(a: ti.i32, b: ti.i32):
        out[0] = a + b
        out[1] = a - b
        out[2] = a * b
        out[3] = a // b  # floors, like Python
        out[4] = a % b  # takes the sign of b, like Python
        out[5] = a**2
        fout[None] = a / b  # true division of ints gives a float

    for a, b in INT_PAIRS:
        arith(a, b)
        assert out.to_numpy().tolist() == [a + b, a - b, a * b, a // b, a % b, a**2], (a, b)
        assert fout[None] == float(np.float32(a / b)), (a, b)


def test_int64_arithmetic():
    @ti.kernel
    def floordiv(a: ti.i64, b: ti.i64) -> ti.i64:
        return a // b

    @ti.kernel
    def mod(a: ti.i64, b: ti.i64) -> ti.i64:
        return a % b

    for a, b in [(2**40 + 3, 7), (-(2**40) - 3, 7), (2**40, -9), (-5, 2**33)]:
        assert floordiv(a, b) == a // b
        assert mod(a, b) == a % b


def test_int_wraps_on_overflow():
    @ti.kernel
    def add(a: ti.i32, b: ti.i32) -> ti.i32:
        return a + b

    @ti.kernel
    def mul(a: ti.i32, b: ti.i32) -> ti.i32:
        return a * b

    assert add(2**31 - 1, 1) == -(2**31)
    assert add(-(2**31), -1) == 2**31 - 1
    assert mul(65536, 65536) == 0
    assert mul(2**30, 3) == (2**30 * 3 + 2**31) % 2**32 - 2**31


@pytest.mark.parametrize("dt,np_dtype", [("f32", np.float32), ("f64", np.float64)])
def test_float_arithmetic(dt, np_dtype):
    t = getattr(ti, dt)
    out = ti.field(t, shape=6)

    @ti.kernel
    def arith(a: t, b: t):
        out[0] = a + b
        out[1] = a - b
        out[2] = a * b
        out[3] = a / b
        out[4] = a // b  # floor(a / b)
        out[5] = a % b  # sign of b, like Python

    cases = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (5.25, 0.5), (0.0, 3.0)]
    cases += [(1.0, 3.0), (-1e-3, 7.0)]
    for a, b in cases:
        arith(a, b)
        x, y = np_dtype(a), np_dtype(b)
        expect = [x + y, x - y, x * y, x / y, np.floor(x / y), x - y * np.floor(x / y)]
        np.testing.assert_allclose(out.to_numpy(), np.array(expect, dtype=np_dtype), rtol=1e-6)
        # the exactly representable cases agree with Python bit for bit
        if a in (7.5, -7.5, 5.25, 0.0):
            assert out[4] == a // b and out[5] == a % b, (a, b)


def test_power():
    @ti.kernel
    def ipow(a: ti.i32, b: ti.i32) -> ti.i32:
        return a**b

    @ti.kernel
    def fpow(a: ti.f32, b: ti.f32) -> ti.f32:
        return a**b

    @ti.kernel
    def mixed(a: ti.i32, b: ti.f32) -> ti.f32:
        return a**b

    @ti.kernel
    def tipow(a: ti.f32, b: ti.f32) -> ti.f32:
        return ti.pow(a, b)

    for a, b in [(2, 10), (-3, 3), (5, 0), (0, 0), (-1, 7), (7, 1), (3, 19)]:
        assert ipow(a, b) == a**b
    for a, b in [(2.0, 0.5), (2.0, -1.0), (-2.0, 3.0), (9.0, 0.5), (1.5, 2.0), (10.0, -2.0)]:
        expect = float(np.float32(a) ** np.float32(b))
        assert fpow(a, b) == pytest.approx(expect, rel=1e-6)
        assert tipow(a, b) == pytest.approx(expect, rel=1e-6)
    assert mixed(4, 0.5) == 2.0
    assert mixed(-2, 2.0) == 4.0


# --------------------------------------------------------------------------------------
# Comparisons, boolean and bit operators
# --------------------------------------------------------------------------------------


def test_comparisons():
    out = ti.field(ti.i32, shape=6)

    @ti.kernel
    def cmp(a: ti.f32, b: ti.i32):
        out[0] = a < b
        out[1] = a <= b
        out[2] = a > b
        out[3] = a >= b
        out[4] = a == b
        out[5] = a != b

    for a, b in [(1.0, 2), (2.0, 2), (2.5, 2), (-3.0, -2), (-2.0, -2)]:
        cmp(a, b)
        expect = [a < b, a <= b, a > b, a >= b, a == b, a != b]
        # comparisons give i32 1 / 0
        assert out.to_numpy().tolist() == [int(e) for e in expect], (a, b)


def test_chained_comparison():
    @ti.kernel
    def chain(a: ti.i32, b: ti.i32, c: ti.i32) -> ti.i32:
        return a < b < c

    @ti.kernel
    def chain3(a: ti.i32, b: ti.i32, c: ti.i32) -> ti.i32:
        return a <= b != c > a

    for a, b, c in [(1, 2, 3), (1, 3, 2), (3, 2, 1), (1, 1, 2), (-5, 0, 5), (0, 0, 0)]:
        assert chain(a, b, c) == int(a < b < c)
        assert chain3(a, b, c) == int(a <= b != c > a)


def test_and_or_not():
    out = ti.field(ti.i32, shape=3)

    @ti.kernel
    def logic(a: ti.i32, b: ti.i32):
        out[0] = a and b  # Python semantics: the deciding operand's value
        out[1] = a or b
        out[2] = not a

    for a, b in [(0, 0), (0, 3), (2, 0), (2, 3), (-1, 5)]:
        logic(a, b)
        assert out.to_numpy().tolist() == [a and b, a or b, int(not a)], (a, b)

    @ti.kernel
    def in_range(a: ti.i32) -> ti.i32:
        r = 0
        if a > 0 and a < 10 or a == -1:
            r = 1
        return r

    for a in [-2, -1, 0, 1, 9, 10]:
        assert in_range(a) == int(0 < a < 10 or a == -1)


def test_bit_ops_i32():
    out = ti.field(ti.i32, shape=6)

    @ti.kernel
    def bits(a: ti.i32, b: ti.i32):
        out[0] = a & b
        out[1] = a | b
        out[2] = a ^ b
        out[3] = ~a
        out[4] = a << 3
        out[5] = a >> 1  # arithmetic shift for signed types

    for a, b in [(12, 10), (-12, 10), (-1, 5), (0, 0), (2**31 - 1, 1), (-(2**31), -1)]:
        bits(a, b)
        expect = [a & b, a | b, a ^ b, ~a, int(np.int32(np.int64(a) << 3 & 0xFFFFFFFF)), a >> 1]
        assert out.to_numpy().tolist() == expect, (a, b)


def test_bit_ops_unsigned_and_variable_shift():
    @ti.kernel
    def ushr(a: ti.u32, k: ti.i32) -> ti.u32:
        return a >> k  # logical shift for unsigned types

    @ti.kernel
    def shl(a: ti.i32, k: ti.i32) -> ti.i32:
        return a << k

    @ti.kernel
    def u8_not(a: ti.u8) -> ti.u8:
        return ~a

    for a, k in [(0xFFFFFFFF, 1), (0x80000000, 31), (12345, 0), (0xF0F0F0F0, 4)]:
        assert ushr(a, k) == a >> k
    for a, k in [(1, 0), (1, 30), (-1, 4), (3, 5)]:
        assert shl(a, k) == int(np.int32(np.int64(a) << k & 0xFFFFFFFF))
    for a in [0, 1, 0xF0, 255]:
        assert u8_not(a) == (~a) & 0xFF


# --------------------------------------------------------------------------------------
# Math functions
# --------------------------------------------------------------------------------------

MATH_INPUTS = [(2.5, -1.5), (-2.5, 2.0), (0.5, 0.5), (-0.5, 3.0), (1.5, -0.25), (3.7, 1.0)]


def test_math_functions_f32():
    out = ti.field(ti.f32, shape=15)

    @ti.kernel
    def m(a: ti.f32, b: ti.f32):
        out[0] = ti.sqrt(ti.abs(a))
        out[1] = ti.sin(a)
        out[2] = ti.cos(a)
        out[3] = ti.tan(a)
        out[4] = ti.exp(a)
        out[5] = ti.log(ti.abs(a))
        out[6] = ti.pow(ti.abs(a), b)
        out[7] = ti.abs(a)
        out[8] = ti.min(a, b)
        out[9] = ti.max(a, b)
        out[10] = ti.floor(a)
        out[11] = ti.ceil(a)
        out[12] = ti.select(a > b, a, b)
        out[13] = ti.atan2(a, b)
        out[14] = ti.max(a, b, 0.0)

    for a, b in MATH_INPUTS:
        m(a, b)
        x, y = np.float32(a), np.float32(b)
        expect = [
            np.sqrt(abs(x)),
            np.sin(x),
            np.cos(x),
            np.tan(x),
            np.exp(x),
            np.log(abs(x)),
            abs(x) ** y,
            abs(x),
            min(x, y),
            max(x, y),
            np.floor(x),
            np.ceil(x),
            x if x > y else y,
            np.arctan2(x, y),
            max(x, y, np.float32(0)),
        ]
        got = out.to_numpy()
        np.testing.assert_allclose(got, np.array(expect, dtype=np.float32), rtol=2e-6, atol=1e-7)
        # exact ones
        for k in (7, 8, 9, 10, 11, 12, 14):
            assert got[k] == expect[k], (k, a, b)


def test_math_functions_f64():
    out = ti.field(ti.f64, shape=6)

    @ti.kernel
    def m(a: ti.f64):
        out[0] = ti.sqrt(a)
        out[1] = ti.sin(a)
        out[2] = ti.exp(a)
        out[3] = ti.log(a)
        out[4] = ti.atan2(a, -1.0)
        out[5] = ti.tan(a)

    for a in [0.1, 2.0, 10.5, 1e-8]:
        m(a)
        expect = [
            math.sqrt(a),
            math.sin(a),
            math.exp(a),
            math.log(a),
            math.atan2(a, -1.0),
            math.tan(a),
        ]
        np.testing.assert_allclose(out.to_numpy(), expect, rtol=1e-13)


def test_round_half_away_from_zero():
    @ti.kernel
    def rnd(a: ti.f32) -> ti.f32:
        return ti.round(a)

    # ti.round rounds halves away from zero (not to even like numpy/Python round)
    for v, expect in [
        (0.5, 1.0),
        (1.5, 2.0),
        (2.5, 3.0),
        (-0.5, -1.0),
        (-1.5, -2.0),
        (-2.5, -3.0),
        (2.4, 2.0),
        (-2.6, -3.0),
        (0.0, 0.0),
        (7.0, 7.0),
    ]:
        assert rnd(v) == expect, v


def test_int_min_max_abs_and_sqrt_of_int():
    out = ti.field(ti.i32, shape=3)

    @ti.kernel
    def f(a: ti.i32, b: ti.i32):
        out[0] = ti.min(a, b)
        out[1] = ti.max(a, b)
        out[2] = ti.abs(a)

    @ti.kernel
    def isqrt(a: ti.i32) -> ti.f64:
        return ti.sqrt(a)  # an int argument gives a default_fp (f32) result

    @ti.kernel
    def max_int_float(a: ti.i32, b: ti.f32) -> ti.f32:
        return ti.max(a, b)

    for a, b in [(-3, 2), (5, 5), (0, -7), (-(2**31) + 1, 2**31 - 1)]:
        f(a, b)
        assert out.to_numpy().tolist() == [min(a, b), max(a, b), abs(a)]
    for a in [0, 2, 9, 1000]:
        assert isqrt(a) == float(np.sqrt(np.float32(a)))
    assert max_int_float(3, 2.5) == 3.0
    assert max_int_float(-3, 2.5) == 2.5


def test_select():
    @ti.kernel
    def sel(c: ti.i32, a: ti.f32, b: ti.f32) -> ti.f32:
        return ti.select(c, a, b)

    @ti.kernel
    def sel_cmp(a: ti.i32, b: ti.i32) -> ti.i32:
        return ti.select(a < b, a * 10, b * 100)

    for c in [0, 1, -3, 100]:
        assert sel(c, 1.5, 2.5) == (1.5 if c else 2.5)
    for a, b in [(1, 2), (2, 1), (-5, -5)]:
        assert sel_cmp(a, b) == (a * 10 if a < b else b * 100)


# --------------------------------------------------------------------------------------
# ti.random
# --------------------------------------------------------------------------------------


def test_random_uniform():
    n = 100_000
    r = ti.field(ti.f64, shape=n)

    @ti.kernel
    def gen():
        for i in r:
            r[i] = ti.random()

    gen()
    a = r.to_numpy()
    assert a.min() >= 0.0
    assert a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.01
    assert abs(a.std() - math.sqrt(1 / 12)) < 0.01
    assert len(np.unique(a)) > n // 2
    # ti.random() returns default_fp (f32): every sample is exactly an f32 value
    assert np.all(a.astype(np.float32).astype(np.float64) == a)
    hist, _ = np.histogram(a, bins=10, range=(0.0, 1.0))
    assert hist.min() > n / 10 * 0.9


def test_random_default_fp_f64_and_int():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    n = 2000
    r = ti.field(ti.f64, shape=n)
    ri = ti.field(ti.i32, shape=n)

    @ti.kernel
    def gen():
        for i in r:
            r[i] = ti.random()
            ri[i] = ti.random(ti.i32)

    gen()
    a = r.to_numpy()
    assert a.min() >= 0.0 and a.max() < 1.0
    # with default_fp=f64, ti.random() is f64: samples are not all f32 values
    assert not np.all(a.astype(np.float32).astype(np.float64) == a)
    b = ri.to_numpy()
    assert (b < 0).any() and (b > 0).any()  # full i32 range
    assert len(np.unique(b)) > n * 0.9
