"""Typing rules the operator matrix (tests/differential) checks, pinned one case each: a
float literal whose type is f64 keeps its double value, ``x ** n`` with an integer ``n``
has the base's type (wrapping, folded or not, and keeping the sign of an odd ``n`` too
large for the float type), f16 and f32 ``%`` round each step as Taichi does, and
floor/ceil/round, ``and``/``or``/``not`` refuse the operand types Taichi refuses."""

import math

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def test_f64_literals_are_typed_as_in_taichi() -> None:
    out = ti.field(ti.f64, shape=8)

    @ti.kernel
    def fill(x: ti.f64):
        out[0] = ti.f64(0.1)
        out[1] = ti.f64(1.7976931348623157e308)
        out[2] = x + 0.1
        out[3] = ti.cast(0.1, ti.f64)
        out[4] = 0.1
        out[5] = ti.f64(1e300)
        v = ti.Vector([0.1, 1e300], ti.f64)
        out[6] = v[0]
        out[7] = v[1]

    fill(0.0)
    # Taichi 1.7.4 gives exactly these: ti.f64(literal) keeps the double; elsewhere a
    # literal first takes default_fp (f32), as Taichi documents literal typing
    f32_tenth = 0.10000000149011612
    assert out.to_numpy().tolist()[:5] == [0.1, 1.7976931348623157e308] + [f32_tenth] * 3
    assert out.to_numpy().tolist()[5:] == [1e300, f32_tenth, float("inf")]


def test_default_fp_f64_literal() -> None:
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def tenth() -> ti.f64:
        return 0.1

    assert tenth() == 0.1


def test_f32_literal_still_rounds_once() -> None:
    @ti.kernel
    def tenth() -> ti.f64:
        return ti.f64(ti.f32(0.1))

    assert tenth() == 0.10000000149011612


def test_int_power_has_the_base_type() -> None:
    @ti.kernel
    def power(a: ti.i8, b: ti.i16) -> ti.i64:
        return a**b

    @ti.kernel
    def wide(a: ti.i32, b: ti.i64) -> ti.i64:
        return a**b

    @ti.kernel
    def folded() -> ti.i64:
        return ti.i8(3) ** ti.i16(77) + 1000 * ti.i8(-7) ** ti.u64(7)

    assert power(3, 77) == -45  # 3**77 wraps to -45 in i8
    assert wide(3, 77) == -220914989  # in i32, as Taichi computes it
    assert folded() == -45 + 1000 * 9  # (-7)**7 wraps to 9 in i8


def test_float_power_keeps_an_odd_exponent() -> None:
    out = ti.field(ti.f64, shape=4)

    @ti.kernel
    def power(x: ti.f32, n: ti.i64, h: ti.f16, m: ti.i32):
        out[0] = x**n
        out[1] = h**m
        out[2] = ti.f16(-3.75) ** ti.u64(2**64 - 1)
        out[3] = ti.f16(-3.75) ** ti.u64(2**63)

    power(-1.0, 2**63 - 1, -1.0, 32767)
    assert out.to_numpy().tolist() == [-1.0, -1.0, -math.inf, math.inf]


def test_nan_to_the_zero_is_one() -> None:
    @ti.kernel
    def power(x: ti.f32, n: ti.i32) -> ti.f32:
        return x**n

    assert power(math.nan, 0) == 1.0


def test_mod_rounds_each_step_to_the_operand_type() -> None:
    out = ti.field(ti.f64, shape=3)

    @ti.kernel
    def mod(a: ti.i16, b: ti.f16, c: ti.i32, d: ti.f32, u: ti.u32):
        out[0] = a % b
        out[1] = c % d
        out[2] = u % d

    # -32768 // 300.25 is -110 in f16; 300.25 * -110 is -33024 in f16, not -33027.5
    mod(-32768, 300.25, -(2**31), 300.25, 2**32 - 1)
    assert out.to_numpy().tolist() == [256.0, 256.0, 0.0]


@ti.func
def _refused(a: ti.i32, x: ti.f32, which: ti.template()) -> ti.f32:
    r = 0.0
    if ti.static(which == "round"):
        r = ti.round(a)
    if ti.static(which == "floor"):
        r = ti.floor(a)
    if ti.static(which == "ceil"):
        r = ti.ceil(ti.Vector([a, a]))[0]
    if ti.static(which == "and"):
        r = x and a
    if ti.static(which == "or"):
        r = a or x
    if ti.static(which == "not"):
        r = not x
    return r


@ti.kernel
def refused(a: ti.i32, x: ti.f32, which: ti.template()) -> ti.f32:
    return _refused(a, x, which)


@pytest.mark.parametrize(
    "which, message, hint",
    [
        ("round", "ti.round takes real inputs only, got i32", "ti.cast(x, ti.f32)"),
        ("floor", "ti.floor takes real inputs only", "ti.cast(x, ti.f32)"),
        ("ceil", "ti.ceil takes real inputs only", "ti.cast"),
        ("and", "'and' takes integers only, got f32", "x != 0.0"),
        ("or", "'or' takes integers only, got f32", "x != 0.0"),
        ("not", "'not' takes integers only, got f32", "x != 0.0"),
    ],
)
def test_taichi_refuses_these_operand_types(which: str, message: str, hint: str) -> None:
    with pytest.raises(TiTypeError) as caught:
        refused(1, 1.5, which)
    assert message in str(caught.value) and hint in str(caught.value)
