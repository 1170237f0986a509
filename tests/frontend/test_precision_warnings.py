"""A float stored where an integer (or a narrower float) goes warns once, while the
kernel compiles, as Taichi's "may lose precision": the message names the kernel, the
file, line and column, shows the line with a caret under the value and says how to
silence it; the value is still cast (truncated)."""

import pathlib
import warnings

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiPrecisionWarning

pytestmark = pytest.mark.cpu

_LINES = pathlib.Path(__file__).read_text().splitlines()


def _only_warning(caught) -> TiPrecisionWarning:
    found = [w for w in caught if issubclass(w.category, TiPrecisionWarning)]
    assert len(found) == 1, [str(w.message) for w in found]
    return found[0]


def _caret_under(text: str, value: str) -> None:
    """The caret line sits under ``value`` in the line above it."""
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.strip().startswith("^"))
    start = lines[k].index("^")
    assert lines[k - 1][start : start + len(value)] == value
    assert lines[k].count("^") == len(value)


def test_float_into_int_field_warns_at_the_value():
    counts = ti.field(ti.i32, shape=8)

    @ti.kernel
    def fill_counts():
        for i in counts:
            counts[i] = 0.5 * i  # the field store

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fill_counts()
    w = _only_warning(caught)
    text = str(w.message)
    assert text.startswith("Kernel 'fill_counts': ")
    assert "counts[i] (an i32 field element) may lose precision: i32 <- f32" in text
    assert f'File "{__file__}", line {w.lineno}, column ' in text
    assert "the field store" in _LINES[w.lineno - 1]
    assert w.filename == __file__
    _caret_under(text, "0.5 * i")
    assert "hint: write ti.cast(value, ti.i32) or int(value)" in text
    assert counts.to_numpy().tolist() == [0, 0, 1, 1, 2, 2, 3, 3]  # still truncated


def test_siblings_ndarray_augmented_and_local_each_warn():
    arr = ti.ndarray(ti.i32, shape=4)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def siblings(a: ti.types.ndarray()):
        for i in range(4):
            a[i] = 1.5 * i
        total[None] += 0.5
        n = 0
        n += 0.25
        m: ti.i32 = 2.5
        total[None] += n + m

    with pytest.warns(TiPrecisionWarning) as caught:
        siblings(arr)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 4, texts
    assert "a[i] (an i32 ndarray element)" in texts[0]
    assert "total[None] (an i32 field element)" in texts[1] and "i32 <- float" in texts[1]
    assert "the i32 local 'n'" in texts[2]
    assert "the i32 local 'm'" in texts[3]
    _caret_under(texts[2], "0.25")
    np.testing.assert_array_equal(arr.to_numpy(), [0, 1, 3, 4])


def test_func_parameter_and_return_cast_and_warn():
    @ti.func
    def halve(x: ti.i32) -> ti.i32:
        return x * 0.5  # the return

    @ti.kernel
    def use_halve() -> ti.f32:
        return halve(5) + halve(2.5)

    with pytest.warns(TiPrecisionWarning) as caught:
        result = use_halve()
    texts = [str(w.message) for w in caught]
    assert result == 2.0 + 1.0  # as Taichi: the parameter and the return are cast
    assert any("return value of 'halve'" in t for t in texts)
    param = next(t for t in texts if "parameter 'x'" in t)
    _caret_under(param, "2.5")
    assert "Kernel 'use_halve'" in param


def test_f64_into_f32_field_warns():
    out = ti.field(ti.f32, shape=())

    @ti.kernel
    def narrow(v: ti.f64):
        out[None] = v * 2

    with pytest.warns(TiPrecisionWarning, match=r"f32 field element\) may lose precision"):
        narrow(1.5)
    assert out[None] == 3.0


def test_once_per_compile_not_per_launch():
    counts = ti.field(ti.i32, shape=4)
    vec = ti.Vector.field(3, ti.i32, shape=4)

    @ti.kernel
    def many():
        for i in counts:
            counts[i] = 0.5 * i
            vec[i] = ti.Vector([0.5, 1.5, 2.5])  # one warning for the three components

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many()
        many()
        many()
    found = [w for w in caught if issubclass(w.category, TiPrecisionWarning)]
    assert len(found) == 2, [str(w.message) for w in found]


def test_no_warning_for_explicit_casts_and_integers():
    counts = ti.field(ti.i32, shape=8)
    floats = ti.field(ti.f32, shape=8)

    @ti.kernel
    def exact():
        for i in counts:
            counts[i] = ti.cast(0.5 * i, ti.i32)
            counts[i] += int(0.5 * i)
            counts[i] += 2.0  # a whole float constant loses nothing
            floats[i] = i  # int into float: no digits lost at these sizes
            floats[i] += 0.5
        n = 0
        n += 3
        m = 1.0
        m += 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", TiPrecisionWarning)
        exact()
    assert counts.to_numpy().tolist() == [2 + 2 * (i // 2) for i in range(8)]


def test_summing_a_wider_integer_into_an_i32_accumulator_warns_as_taichi_does():
    """``s = 0`` is an i32 (Taichi too): summing an i64 field into it wraps, and
    Taichi says "Atomic add may lose precision: i32 <- i64"."""
    big = ti.field(ti.i64, shape=4)

    @ti.kernel
    def total() -> ti.i64:
        s = 0
        for i in big:
            s += big[i]  # the narrowing sum
        return s

    big.from_numpy(np.full(4, 1 << 31, dtype=np.int64))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = total()
    w = _only_warning(caught)
    text = str(w.message)
    assert "the i32 local 's' may lose precision: i32 <- i64" in text
    assert "the narrowing sum" in _LINES[w.lineno - 1]
    _caret_under(text, "big[i]")
    assert "s = ti.i64(0)" in text
    assert result == 0  # 4 * 2**31 wraps in 32 bits, as in Taichi


def test_integer_stores_and_matching_accumulators_stay_quiet():
    small = ti.field(ti.i32, shape=4)
    big = ti.field(ti.i64, shape=4)

    @ti.kernel
    def quiet() -> ti.i64:
        s = ti.i64(0)
        for i in big:
            s += big[i]
            small[i] = i * 2  # a plain store narrows silently, as in Taichi
            small[i] += 1  # an i32 constant into an i32 place
        return s

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet()
    assert not [w for w in caught if issubclass(w.category, TiPrecisionWarning)]


def test_a_plain_store_of_a_wider_integer_stays_quiet():
    rgb = ti.field(ti.u8, shape=4)

    @ti.kernel
    def to_bytes():
        for i in rgb:
            rgb[i] = ti.cast(i * 60.0 + 0.5, ti.i32)  # a store, not an accumulation

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        to_bytes()
    assert not [w for w in caught if issubclass(w.category, TiPrecisionWarning)]
    assert rgb.to_numpy().tolist() == [0, 60, 120, 180]
