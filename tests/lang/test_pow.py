"""Powers: a float base with an integer exponent (``**`` and ``ti.pow``, runtime and
constant exponents) against NumPy; integer powers with negative exponents (exact values,
or the debug-mode error); i64 arithmetic and f64 -> f16 casts whose machine code may
call libgcc helpers. (``tests/robustness/test_native_helpers.py`` runs the first calls
in subprocesses: a regression there killed the process.)"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiRuntimeError

pytestmark = pytest.mark.cpu

FLOATS = {"f32": (ti.f32, np.float32, 2e-6), "f64": (ti.f64, np.float64, 1e-13)}
INTS = {"i32": (ti.i32, np.int32), "i64": (ti.i64, np.int64)}
BASES = [2.0, -2.0, 0.5, -1.5, 1.0001, 3.0, 0.0, -1.0, 10.0]
EXPONENTS = [-7, -3, -2, -1, 0, 1, 2, 3, 5, 10, 17, 31]


@pytest.mark.parametrize("base_type", sorted(FLOATS))
@pytest.mark.parametrize("exponent_type", sorted(INTS))
@pytest.mark.parametrize("form", ["operator", "ti.pow"])
def test_float_base_runtime_integer_exponent_matches_numpy(base_type, exponent_type, form):
    ftype, np_float, rtol = FLOATS[base_type]
    itype, np_int = INTS[exponent_type]
    xs = np.array([b for b in BASES for _ in EXPONENTS], np_float)
    ns = np.array([n for _ in BASES for n in EXPONENTS], np_int)
    out = np.zeros_like(xs)

    if form == "operator":

        @ti.kernel
        def power(x: ti.types.ndarray(), n: ti.types.ndarray(), out: ti.types.ndarray()):
            for i in x:
                out[i] = x[i] ** n[i]

    else:

        @ti.kernel
        def power(x: ti.types.ndarray(), n: ti.types.ndarray(), out: ti.types.ndarray()):
            for i in x:
                out[i] = ti.pow(x[i], n[i])

    @ti.kernel
    def scalar(x: ftype, n: itype) -> ftype:
        return x**n

    power(xs, ns, out)
    with np.errstate(divide="ignore"):
        want = np.power(xs.astype(np.float64), ns.astype(np.float64)).astype(np_float)
    np.testing.assert_allclose(out, want, rtol=rtol)
    for x, n, w in zip(xs[::7], ns[::7], want[::7], strict=True):
        assert scalar(float(x), int(n)) == pytest.approx(float(w), rel=rtol)


@pytest.mark.parametrize("base_type", sorted(FLOATS))
def test_float_base_constant_integer_exponents_match_numpy(base_type):
    ftype, np_float, rtol = FLOATS[base_type]

    @ti.kernel
    def powers(x: ftype) -> ti.types.vector(6, ftype):
        return ti.Vector([x**0, x**1, x**3, x**-2, ti.pow(x, 10), ti.pow(x, -3)])

    for x in (2.0, -1.5, 0.75):
        got = powers(x).to_numpy()
        want = np.array([1, x, x**3, x**-2, x**10, x**-3], np.float64).astype(np_float)
        np.testing.assert_allclose(got, want, rtol=rtol)


def exact_negative_power(base: int, n: int) -> int:
    """The documented integer result of ``base ** n`` for ``n < 0``."""
    if base == 1:
        return 1
    if base == -1:
        return -1 if n % 2 else 1
    return 0


@pytest.mark.parametrize("int_type", sorted(INTS))
def test_integer_power_with_negative_exponents_is_exact_without_debug(int_type):
    itype, np_int = INTS[int_type]
    pairs = [(b, n) for b in range(-3, 4) for n in range(-4, 5)]
    bases = np.array([b for b, _ in pairs], np_int)
    exponents = np.array([n for _, n in pairs], np_int)
    out = np.zeros_like(bases)

    @ti.kernel
    def power(b: ti.types.ndarray(), n: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in b:
            out[i] = b[i] ** n[i]

    @ti.kernel
    def constant_exponents(b: itype) -> ti.types.vector(3, itype):
        return ti.Vector([b**-1, ti.pow(b, -2), b**-3])

    power(bases, exponents, out)
    want = [b**n if n >= 0 else exact_negative_power(b, n) for b, n in pairs]
    assert out.tolist() == want
    for b in (-2, -1, 0, 1, 2):
        assert constant_exponents(b).to_list() == [exact_negative_power(b, n) for n in (-1, -2, -3)]


def test_integer_power_with_a_negative_exponent_stops_in_debug_mode():
    ti.init(arch=ti.cpu, debug=True)
    x = ti.field(ti.i64, shape=4)

    @ti.kernel
    def power(b: ti.i32, n: ti.i32) -> ti.i32:
        return b**n

    @ti.kernel
    def fill(n: ti.i64):
        for i in x:
            x[i] = ti.pow(i + 1, n)

    assert power(3, 4) == 81 and power(-2, 0) == 1
    with pytest.raises(TiRuntimeError, match="negative exponent in pow") as caught:
        power(2, -1)
    message = str(caught.value)
    assert "Kernel 'power'" in message and "return b**n" in message and "^" in message
    with pytest.raises(TiRuntimeError, match="negative exponent in pow") as caught:
        fill(-2)
    assert "Kernel 'fill'" in str(caught.value) and "ti.pow(i + 1, n)" in str(caught.value)
    fill(3)  # the session goes on
    assert x.to_numpy().tolist() == [1, 8, 27, 64]


def test_i64_multiply_divide_and_modulo():
    a = np.array([2**62 + 12345, -(2**61) - 7, 9_000_000_000_000_000_123, -5, 2**63 - 1], np.int64)
    b = np.array([3_000_000_007, 1_000_003, -97, 3, -(2**31)], np.int64)
    prod, quot, rem = (np.zeros_like(a) for _ in range(3))

    @ti.kernel
    def arith(
        a: ti.types.ndarray(),
        b: ti.types.ndarray(),
        prod: ti.types.ndarray(),
        quot: ti.types.ndarray(),
        rem: ti.types.ndarray(),
    ):
        for i in a:
            prod[i] = a[i] * b[i]
            quot[i] = a[i] // b[i]
            rem[i] = a[i] % b[i]

    arith(a, b, prod, quot, rem)
    wrap = [((int(x) * int(y) + 2**63) % 2**64) - 2**63 for x, y in zip(a, b, strict=True)]
    assert prod.tolist() == wrap
    assert quot.tolist() == [int(x) // int(y) for x, y in zip(a, b, strict=True)]
    assert rem.tolist() == [int(x) % int(y) for x, y in zip(a, b, strict=True)]


def test_f64_to_f16_rounds_once_as_numpy():
    # just above the midpoint of two f16 values: through f32 it became the midpoint,
    # then rounded to even (down); rounded once it goes up, as NumPy's does
    values = np.array(
        [1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40), 65519.0, 1e-8, 3.14159], np.float64
    )
    half = ti.field(ti.f16, shape=len(values))
    back = ti.field(ti.f64, shape=len(values))

    @ti.kernel
    def narrow(v: ti.types.ndarray()):
        for i in half:
            half[i] = ti.cast(v[i], ti.f16)
            back[i] = ti.cast(half[i], ti.f64)

    narrow(values)
    np.testing.assert_array_equal(half.to_numpy(), values.astype(np.float16))
    np.testing.assert_array_equal(back.to_numpy(), values.astype(np.float16).astype(np.float64))
