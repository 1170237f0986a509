"""Scalar types: field round-trips, wrap-around, default_fp/default_ip, literal typing,
implicit promotion and casts (the typing of locals: test_local_types.py).

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``).
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

INT_TYPES = [
    ("i8", np.int8),
    ("i16", np.int16),
    ("i32", np.int32),
    ("i64", np.int64),
    ("u8", np.uint8),
    ("u16", np.uint16),
    ("u32", np.uint32),
    ("u64", np.uint64),
]
FLOAT_TYPES = [("f32", np.float32), ("f64", np.float64)]


def _wrap(value: int, bits: int, signed: bool) -> int:
    """Two's-complement wrap of a Python int to ``bits`` bits."""
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _sample_values(np_dtype) -> np.ndarray:
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        if info.min < 0:
            vals = [info.min, info.min + 1, -1, 0, 1, 7, info.max - 1, info.max]
        else:
            vals = [0, 1, 2, 7, 100, info.max // 2, info.max - 1, info.max]
    else:
        info = np.finfo(np_dtype)
        vals = [info.min, -1.5, -0.0, 0.0, info.tiny, 0.1, 3.25, info.max]
    return np.array(vals, dtype=np_dtype)


# --------------------------------------------------------------------------------------
# Round-trips
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,np_dtype", INT_TYPES + FLOAT_TYPES)
def test_field_round_trip(name, np_dtype):
    dt = getattr(ti, name)
    vals = _sample_values(np_dtype)
    n = len(vals)
    x = ti.field(dt, shape=n)
    y = ti.field(dt, shape=n)
    assert x.dtype == dt

    @ti.kernel
    def copy():
        for i in x:
            y[i] = x[i]

    @ti.kernel
    def put(i: ti.i32, v: dt):
        x[i] = v

    @ti.kernel
    def get(i: ti.i32) -> dt:
        return y[i]

    # numpy -> field -> kernel copy -> numpy
    x.from_numpy(vals)
    copy()
    out = y.to_numpy()
    assert out.dtype == np_dtype
    np.testing.assert_array_equal(out, vals)

    # Python scalars through kernel arguments, return values and __getitem__/__setitem__
    x.fill(0)
    for i, v in enumerate(vals.tolist()):
        put(i, v)
    copy()
    for i, v in enumerate(vals.tolist()):
        assert get(i) == v
        assert y[i] == v
        assert type(get(i)) is type(v)
        x[i] = v
    np.testing.assert_array_equal(x.to_numpy(), vals)


@pytest.mark.parametrize("name,np_dtype", [t for t in INT_TYPES if t[0][1:] != "64"])
def test_python_scope_store_wraps(name, np_dtype):
    # Taichi wraps out-of-range Python ints written with __setitem__ (no error) for types
    # narrower than 64 bits. (For 64-bit fields Taichi raises TypeError; not tested.)
    dt = getattr(ti, name)
    bits = np.iinfo(np_dtype).bits
    signed = np.iinfo(np_dtype).min < 0
    x = ti.field(dt, shape=())
    for v in [(1 << (bits - 1)) + 72, -1, -(1 << (bits - 1)) - 1, (1 << bits) + 5]:
        x[None] = v
        assert x[None] == _wrap(v, bits, signed)


# --------------------------------------------------------------------------------------
# Wrap-around of narrow integer arithmetic
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,bits,signed", [("i8", 8, True), ("u8", 8, False)])
def test_narrow_int_arithmetic_wraps(name, bits, signed):
    dt = getattr(ti, name)
    out = ti.field(dt, shape=3)
    wide = ti.field(ti.i32, shape=3)

    @ti.kernel
    def arith(a: dt, b: dt):
        out[0] = a + b
        out[1] = a - b
        out[2] = a * b
        # i8 op i8 is computed in i8 (no C-style promotion to int), then widened
        wide[0] = a + b
        wide[1] = a - b
        wide[2] = a * b

    cases = [(100, 100), (127, 1), (-128, -1), (-100, 50), (3, 4)] if signed else None
    if not signed:
        cases = [(200, 100), (255, 1), (0, 1), (1, 2), (16, 16), (3, 4)]
    for a, b in cases:
        arith(a, b)
        expect = [_wrap(v, bits, signed) for v in (a + b, a - b, a * b)]
        assert out.to_numpy().tolist() == expect, (a, b)
        assert wide.to_numpy().tolist() == expect, (a, b)


def test_field_augmented_assign_wraps():
    x8 = ti.field(ti.i8, shape=2)
    u8 = ti.field(ti.u8, shape=2)

    @ti.kernel
    def bump():
        x8[0] += 1
        x8[1] -= 1
        u8[0] += 1
        u8[1] -= 1

    x8[0], x8[1] = 127, -128
    u8[0], u8[1] = 255, 0
    bump()
    assert x8.to_numpy().tolist() == [-128, 127]
    assert u8.to_numpy().tolist() == [0, 255]


def test_store_i32_into_narrow_field_truncates():
    x8 = ti.field(ti.i8, shape=())
    u8 = ti.field(ti.u8, shape=())

    @ti.kernel
    def store(a: ti.i32):
        x8[None] = a
        u8[None] = a

    for a in [0, 1, -1, 127, 128, 255, 256, 300, -129, -300, 2**31 - 1]:
        store(a)
        assert x8[None] == _wrap(a, 8, True)
        assert u8[None] == _wrap(a, 8, False)


def test_argument_outside_its_type_is_an_overflow_error_naming_it():
    # Wrapping 2**31 + 5 silently into an i32 argument gave a wrong answer without a word
    # (NumPy 2 refuses np.int32(2**31 + 5) too); values in range pass unchanged.
    @ti.kernel
    def ident(a: ti.i32) -> ti.i64:
        return a

    for v in [2**31, -(2**31) - 1, 2**32 + 3, 2**70]:
        with pytest.raises(ti.errors.TiOverflowError, match="argument 'a'"):
            ident(v)
    for v in [2**31 - 1, -(2**31), 0, np.int64(-5)]:
        assert ident(v) == v


# --------------------------------------------------------------------------------------
# default_fp / default_ip and literal typing
# --------------------------------------------------------------------------------------


def test_default_fp_is_f32():
    f = ti.field(ti.f64, shape=2)

    @ti.kernel
    def third(a: float):
        f[0] = 1 / 3
        f[1] = a / 3

    third(1.0)
    f32_third = float(np.float32(1 / 3))
    assert f[0] == f32_third
    assert f[1] == f32_third
    assert f[0] != 1 / 3
    assert ti.field(float, shape=()).dtype == ti.f32


def test_default_fp_f64():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    f = ti.field(ti.f64, shape=2)

    @ti.kernel
    def third(a: float):
        f[0] = 1 / 3
        f[1] = a / 3

    @ti.kernel
    def ident(a: float) -> float:
        return a

    @ti.kernel
    def lit() -> ti.f64:
        x = 0.1
        return x

    third(1.0)
    assert f[0] == 1 / 3
    assert f[1] == 1 / 3
    for v in [0.1, -1e-300, 1e300, 1 / 3]:
        assert ident(v) == v
    assert lit() == 0.1
    assert ti.field(float, shape=()).dtype == ti.f64


def test_default_ip_is_i32():
    assert ti.field(int, shape=()).dtype == ti.i32

    @ti.kernel
    def inc(a: int) -> ti.i64:
        x = 2147483647
        x += a
        return x

    # x is an i32 local: 2**31 - 1 + 1 wraps
    assert inc(1) == -(2**31)
    assert inc(0) == 2**31 - 1
    assert inc(-5) == 2**31 - 6


def test_default_ip_i64():
    ti.init(arch=ti.cpu, default_ip=ti.i64)
    assert ti.field(int, shape=()).dtype == ti.i64

    @ti.kernel
    def inc(a: int) -> ti.i64:
        x = 2147483647
        x += a
        return x

    @ti.kernel
    def shifted(k: int) -> int:
        one = 1
        return one << k

    @ti.kernel
    def big_literal() -> int:
        return 3000000000 * 2

    assert inc(1) == 2**31
    assert inc(2**40) == 2**40 + 2**31 - 1
    assert shifted(40) == 2**40
    assert shifted(62) == 2**62
    assert big_literal() == 6000000000


def test_int_literal_out_of_default_ip_range_is_type_error():
    @ti.kernel
    def big_literal() -> ti.i64:
        return 3000000000

    with pytest.raises(TypeError):
        big_literal()


def test_literal_typing():
    @ti.kernel
    def int_div() -> ti.f64:
        x = 7
        return x / 2

    @ti.kernel
    def float_lit() -> ti.f64:
        x = 0.1
        return x

    @ti.kernel
    def int_lit_floor() -> ti.f64:
        x = 7
        return x // 2

    assert int_div() == 3.5
    assert float_lit() == float(np.float32(0.1))
    assert int_lit_floor() == 3.0


# --------------------------------------------------------------------------------------
# Implicit promotion
# --------------------------------------------------------------------------------------

# (lhs, rhs, ret, a, b, expected a+b as observed on Taichi 1.7.4)
PROMOTION_CASES = [
    # i32 + f32 -> f32: 16777217 is not representable in f32
    ("i32", "f32", "f64", 16777217, 0.0, 16777216.0),
    # i32 + f64 -> f64
    ("i32", "f64", "f64", 16777217, 0.0, 16777217.0),
    ("i32", "f64", "f64", 1, 1e-10, 1.0000000001),
    # i64 + f32 -> f32
    ("i64", "f32", "f64", 2**40 + 1, 0.0, float(2**40)),
    # f32 + f64 -> f64 (the f32 value widened exactly)
    ("f32", "f64", "f64", 0.1, 0.0, float(np.float32(0.1))),
    # i32 + i64 -> i64
    ("i32", "i64", "i64", 2**31 - 1, 1, 2**31),
    ("i32", "i64", "i64", -(2**31), -1, -(2**31) - 1),
    # u32 + i32 -> u32
    ("u32", "i32", "i64", 0, -1, 2**32 - 1),
    ("u32", "i32", "i64", 5, -2, 3),
    # u8 + i16 -> i16, u16 + i32 -> i32, u32 + i64 -> i64 (wider signed wins)
    ("u8", "i16", "i64", 0, -1, -1),
    ("u16", "i32", "i64", 0, -1, -1),
    ("u32", "i64", "i64", 0, -1, -1),
    # same narrow type stays narrow
    ("i8", "i8", "i32", 100, 100, -56),
    ("u8", "u8", "i32", 200, 100, 44),
    ("i16", "i16", "i32", 30000, 30000, _wrap(60000, 16, True)),
]


def _make_add(lhs, rhs, ret):
    lt, rt, ret_t = getattr(ti, lhs), getattr(ti, rhs), getattr(ti, ret)

    @ti.kernel
    def add(a: lt, b: rt) -> ret_t:
        return a + b

    return add


def test_promotion_add():
    kernels = {}
    for lhs, rhs, ret, a, b, expected in PROMOTION_CASES:
        key = (lhs, rhs, ret)
        if key not in kernels:
            kernels[key] = _make_add(lhs, rhs, ret)
        assert kernels[key](a, b) == expected, (lhs, rhs, a, b)


def test_promotion_with_literals_and_comparison():
    @ti.kernel
    def i8_plus_lit(a: ti.i8) -> ti.i32:
        return a + 200  # literal is i32, so i8 + i32 -> i32 (no wrap)

    @ti.kernel
    def u32_times_lit(a: ti.u32) -> ti.i64:
        return a * 2  # u32 * i32 -> u32 (wraps at 2**32)

    @ti.kernel
    def u32_sum_positive(a: ti.u32, b: ti.i32) -> ti.i32:
        r = 0
        if a + b > 0:
            r = 1
        return r

    @ti.kernel
    def int_truediv(a: ti.i32, b: ti.i32) -> ti.f64:
        return a / b  # int / int -> default_fp (f32)

    @ti.kernel
    def i64_truediv(a: ti.i64, b: ti.i64) -> ti.f64:
        return a / b  # still f32, not f64

    assert i8_plus_lit(100) == 300
    assert i8_plus_lit(-100) == 100
    assert u32_times_lit(3000000000) == (6000000000 % 2**32)
    assert u32_times_lit(7) == 14
    assert u32_sum_positive(0, -1) == 1  # 0u + (-1) is 4294967295u
    assert u32_sum_positive(0, 0) == 0
    for a, b in [(1, 3), (-7, 2), (7, -2), (2, 4)]:
        assert int_truediv(a, b) == float(np.float32(a / b))
        assert i64_truediv(a, b) == float(np.float32(a / b))


# --------------------------------------------------------------------------------------
# Casts
# --------------------------------------------------------------------------------------


def test_cast_int_to_narrow_wraps():
    @ti.kernel
    def to_i8(a: ti.i32) -> ti.i32:
        return ti.cast(a, ti.i8)

    @ti.kernel
    def to_u8(a: ti.i32) -> ti.i32:
        return ti.cast(a, ti.u8)

    @ti.kernel
    def to_i16(a: ti.i64) -> ti.i64:
        return ti.cast(a, ti.i16)

    for v in [0, 1, -1, 127, 128, 255, 256, -128, -129, 300, -300, 2**31 - 1, -(2**31)]:
        assert to_i8(v) == int(np.array(v, dtype=np.int64).astype(np.int8))
        assert to_u8(v) == int(np.array(v, dtype=np.int64).astype(np.uint8))
        assert to_i16(v * 1000) == _wrap(v * 1000, 16, True)


def test_float_to_int_truncates_toward_zero():
    @ti.kernel
    def via_cast(a: ti.f32) -> ti.i32:
        return ti.cast(a, ti.i32)

    @ti.kernel
    def via_int(a: ti.f32) -> ti.i32:
        return int(a)

    @ti.kernel
    def via_type_call(a: ti.f64) -> ti.i64:
        return ti.i64(a)

    @ti.kernel
    def via_return(a: ti.f32) -> ti.i32:
        return a  # returning f32 from an i32 kernel converts too

    ifield = ti.field(ti.i32, shape=())

    @ti.kernel
    def via_store(a: ti.f32):
        ifield[None] = a

    for v in [0.0, 1.7, -1.7, 2.5, -2.5, 0.9999, -0.5, 1e6 + 0.5, -123.999]:
        expect = int(np.trunc(np.float32(v)))
        assert via_cast(v) == expect, v
        assert via_int(v) == expect, v
        assert via_type_call(v) == int(np.trunc(v)), v
        assert via_return(v) == expect, v
        via_store(v)
        assert ifield[None] == expect, v


def test_int_to_float_cast():
    @ti.kernel
    def to_f32(a: ti.i32) -> ti.f64:
        return ti.cast(a, ti.f32)

    @ti.kernel
    def to_float(a: ti.i32) -> ti.f64:
        return float(a) / 2

    for v in [0, 3, -3, 16777217, -(2**31)]:
        assert to_f32(v) == float(np.float32(v))
        assert to_float(v) == float(np.float32(v)) / 2
