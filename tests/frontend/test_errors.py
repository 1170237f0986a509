"""User mistakes in kernels raise ti_notebook.errors exceptions that point at the line.

ti_notebook-only: the whole module is skipped where ``ti_notebook.errors`` does not
exist (the test shim over real Taichi). The exception *kinds* follow Taichi 1.7.4,
which raises TaichiSyntaxError / TaichiNameError / TaichiTypeError for the same
kernels (checked); ti_notebook's classes subclass the matching built-ins.

Every error must: be the ti_notebook class, carry ``lineno`` of the offending line, and
print the kernel name, the file name, ``line N``, the line's text, a caret line and a
``hint:``. Afterwards the process keeps working: a fresh kernel compiles and runs.
"""

import contextlib
import inspect
import linecache
import os

import numpy as np
import pytest

import ti_notebook as ti

_errors = pytest.importorskip(
    "ti_notebook.errors", reason="ti_notebook-only (the Taichi shim has no ti_notebook.errors)"
)
TiSyntaxError = _errors.TiSyntaxError
TiNameError = _errors.TiNameError
TiTypeError = _errors.TiTypeError
TiIndexError = _errors.TiIndexError

pytestmark = pytest.mark.cpu

_CTX = contextlib.nullcontext()


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _source_line(func, text: str) -> tuple[int, str]:
    """(1-based line number, stripped text) of the one line of ``func`` containing text."""
    lines, start = inspect.getsourcelines(func)
    hits = [(start + k, line.strip()) for k, line in enumerate(lines) if text in line]
    assert len(hits) == 1, f"{text!r} must occur once in {func.__name__}: {hits}"
    return hits[0]


def _assert_points_at(err, cls, kernel_name: str, lineno: int, line_text: str) -> None:
    assert isinstance(err, cls), f"expected {cls.__name__}, got {type(err).__name__}: {err}"
    assert err.lineno == lineno, f"lineno {err.lineno} != {lineno}\n{err}"
    msg = str(err)
    assert kernel_name in msg, msg
    assert os.path.basename(__file__) in msg, msg
    assert f"line {lineno}" in msg, msg
    assert line_text in msg, msg
    carets = [ln for ln in msg.splitlines() if ln.strip() and set(ln.strip()) == {"^"}]
    assert carets, f"no caret line in:\n{msg}"
    assert "hint:" in msg, msg


def _assert_error(err, cls, func, text: str) -> None:
    lineno, line_text = _source_line(func, text)
    _assert_points_at(err, cls, func.__name__, lineno, line_text)


def _assert_still_works() -> None:
    y = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fresh(v: ti.i32) -> ti.i32:
        s = 0
        for i in y:
            y[i] = i * v
            s += i * v
        return s

    assert fresh(3) == 18
    assert y.to_numpy().tolist() == [0, 3, 6, 9]


# --------------------------------------------------------------------------------------
# Kernel bodies with one mistake each (module level, so inspect finds their lines)
# --------------------------------------------------------------------------------------


def uses_lambda(x: ti.template()):
    f = lambda v: v + 1  # noqa: E731
    x[None] = f(1)


def uses_with(x: ti.template()):
    with _CTX:
        x[None] = 1


def uses_try(x: ti.template()):
    try:
        x[None] = 1
    except Exception:
        x[None] = 2


def uses_class(x: ti.template()):
    class Inner:
        pass

    x[None] = 1


def uses_undefined_name(x: ti.template()):
    x[None] = undefined_thing + 1  # noqa: F821


def uses_name_after_if(x: ti.template(), a: ti.i32):
    if a > 0:
        b = 1
    x[None] = b


def stores_string(x: ti.template()):
    x[None] = "abc"


def sqrt_of_field(x: ti.template()):
    x[None] = ti.sqrt(x)


def float_bit_and(x: ti.template(), a: ti.f32):
    x[None] = a & 3


def float_if_condition(x: ti.template(), a: ti.f32):
    if a:
        x[None] = 1.0


def exits_parallel_loop_early(x: ti.template()):
    for i in range(10):
        if i == 3:
            break
        x[None] += i


def assigns_argument(x: ti.template(), a: ti.i32):
    a = a + 3
    x[None] = a


def literal_out_of_range(x: ti.template()):
    x[None] = 3000000000


COMPILE_ERRORS = [
    ("lambda", uses_lambda, (), TiSyntaxError, "f = lambda v: v + 1"),
    ("with", uses_with, (), TiSyntaxError, "with _CTX:"),
    ("try", uses_try, (), TiSyntaxError, "try:"),
    ("class", uses_class, (), TiSyntaxError, "class Inner:"),
    ("undefined-name", uses_undefined_name, (), TiNameError, "undefined_thing + 1"),
    ("name-after-if", uses_name_after_if, (1,), TiNameError, "x[None] = b"),
    ("string-value", stores_string, (), TiTypeError, 'x[None] = "abc"'),
    ("sqrt-of-field", sqrt_of_field, (), TiTypeError, "ti.sqrt(x)"),
    ("float-bit-and", float_bit_and, (1.5,), TiTypeError, "a & 3"),
    ("float-if", float_if_condition, (1.5,), TiTypeError, "if a:"),
    ("break-in-parallel-for", exits_parallel_loop_early, (), TiSyntaxError, "break"),
    ("assign-to-argument", assigns_argument, (1,), TiSyntaxError, "a = a + 3"),
    ("int-literal-out-of-range", literal_out_of_range, (), TiTypeError, "3000000000"),
]


@pytest.mark.parametrize(
    "func,args,cls,text", [c[1:] for c in COMPILE_ERRORS], ids=[c[0] for c in COMPILE_ERRORS]
)
def test_compile_error(func, args, cls, text):
    x = ti.field(ti.f32, shape=())
    kern = ti.kernel(func)
    with pytest.raises(cls) as info:
        kern(x, *args)
    _assert_error(info.value, cls, func, text)
    _assert_still_works()


def test_error_classes_subclass_builtins():
    assert issubclass(TiSyntaxError, SyntaxError)
    assert issubclass(TiNameError, NameError)
    assert issubclass(TiTypeError, TypeError)
    assert issubclass(TiIndexError, IndexError)


def test_name_after_if_fine_when_defined_before():
    x = ti.field(ti.f32, shape=())

    @ti.kernel
    def fine(a: ti.i32):
        b = 0
        if a > 0:
            b = 1
        x[None] = b

    fine(1)
    assert x[None] == 1.0
    fine(-1)
    assert x[None] == 0.0


# --------------------------------------------------------------------------------------
# Bad calls: the error names the kernel and points at its definition or at the call
# --------------------------------------------------------------------------------------


def two_args(x: ti.template(), a: ti.i32, b: ti.f32):
    x[None] = a + b


def _assert_call_error(err, func, call_lineno: int) -> None:
    """A bad call may point at the kernel's ``def`` line or at the calling line."""
    def_lineno, def_text = _source_line(func, f"def {func.__name__}(")
    if err.lineno == def_lineno:
        _assert_points_at(err, TiTypeError, func.__name__, def_lineno, def_text)
    else:
        call_text = linecache.getline(__file__, call_lineno).strip()
        _assert_points_at(err, TiTypeError, func.__name__, call_lineno, call_text)


def test_wrong_argument_count():
    x = ti.field(ti.f32, shape=())
    kern = ti.kernel(two_args)
    for args in [(), (1,), (1, 2.0, 3)]:
        with pytest.raises(TiTypeError) as info:
            call_lineno = inspect.currentframe().f_lineno + 1
            kern(x, *args)
        _assert_call_error(info.value, two_args, call_lineno)
    kern(x, 1, 2.5)
    assert x[None] == 3.5
    _assert_still_works()


def test_wrong_argument_type():
    x = ti.field(ti.f32, shape=())
    kern = ti.kernel(two_args)
    for bad in ["abc", np.zeros(3), None]:
        with pytest.raises(TiTypeError) as info:
            call_lineno = inspect.currentframe().f_lineno + 1
            kern(x, bad, 1.0)
        _assert_call_error(info.value, two_args, call_lineno)
    kern(x, 2, 0.5)
    assert x[None] == 2.5
    _assert_still_works()


# --------------------------------------------------------------------------------------
# Out-of-range indices inside kernels with debug=True
# --------------------------------------------------------------------------------------


def writes_past_the_end(x: ti.template()):
    for i in range(5):
        x[i] = i


def reads_negative_index(x: ti.template(), out: ti.template()):
    for i, j in x:
        out[None] += x[i - 1, j]


def test_out_of_range_write_debug():
    ti.init(arch=ti.cpu, debug=True)
    x = ti.field(ti.i32, 4)
    kern = ti.kernel(writes_past_the_end)
    with pytest.raises(TiIndexError) as info:
        kern(x)
    _assert_error(info.value, TiIndexError, writes_past_the_end, "x[i] = i")
    _assert_still_works()


def test_out_of_range_read_debug():
    ti.init(arch=ti.cpu, debug=True)
    x = ti.field(ti.f32, shape=(3, 2))
    out = ti.field(ti.f32, shape=())
    kern = ti.kernel(reads_negative_index)
    with pytest.raises(TiIndexError) as info:
        kern(x, out)
    _assert_error(info.value, TiIndexError, reads_negative_index, "x[i - 1, j]")
    _assert_still_works()
