"""Errors in %%kernel cells: the cell's line and column, a caret, no compiler frames."""

import re

import pytest

import ti_notebook as ti
from ti_notebook.magics.cell_errors import KernelCellError

pytestmark = pytest.mark.cpu

BAD = """%%kernel
x = ti.field(ti.f32, shape=4)

def bad(v: ti.f32):
    for i in x:
        x[i] = v + "text"
"""


def _caret_column(output: str, code: str) -> int:
    """The column the caret line points at, relative to ``code``'s line in ``output``."""
    lines = output.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip() == code)
    code_line, caret_line = lines[index], lines[index + 1]
    return caret_line.index("^") - (len(code_line) - len(code_line.lstrip()))


def test_compile_error_points_at_the_cell_line_with_a_caret(run):
    cell = run(BAD)
    assert not cell.result.success
    out = cell.stdout
    # Line 1 is %%kernel, so the failing statement is line 6 of the cell as shown.
    match = re.search(r"Cell In\[(\d+)\], line 6, column 16, in bad", out)
    assert match, out
    assert int(match.group(1)) == cell.result.execution_count
    assert _caret_column(out, 'x[i] = v + "text"') == len("x[i] = ")
    assert out.startswith("TiTypeError: Kernel 'bad': ")
    assert "hint: " in out
    assert "Traceback" not in out
    assert "frontend" not in out and "kernel_magic" not in out
    assert len(out.splitlines()) <= 6


def test_the_error_keeps_its_class_name_and_the_original(run):
    cell = run(BAD)
    error = cell.error
    assert isinstance(error, KernelCellError)
    assert type(error).__name__ == "TiTypeError"
    assert isinstance(error.original, ti.errors.TiTypeError)
    assert error.original.pos.lineno == 6


def test_an_error_at_launch_in_the_cell_is_short_too(run):
    cell = run(BAD.replace("%%kernel", "%%kernel --quiet") + "bad(1.0)\n")
    assert re.search(r"Cell In\[\d+\], line 6, column 16, in bad", cell.stdout), cell.stdout
    assert "Traceback" not in cell.stdout


def test_missing_annotation_points_at_the_definition(run):
    cell = run("%%kernel\n# a comment\ndef f(a):\n    pass\n")
    assert re.search(r"Cell In\[\d+\], line 3, column 1, in f", cell.stdout), cell.stdout
    assert "no type annotation" in cell.stdout


def test_python_errors_show_the_cell_frame_only(run):
    cell = run("%%kernel\na = 1\nb = undefined_name + a\n")
    assert not cell.result.success
    out = cell.stdout
    assert "NameError" in out
    assert re.search(r"Cell In\[\d+\], line 3", out), out
    assert "kernel_magic" not in out and "interactiveshell" not in out
    assert type(cell.error).__name__ == "NameError"


def test_python_syntax_errors_name_the_cell_line(run):
    cell = run("%%kernel\nx = 1\ndef f(:\n    pass\n")
    assert not cell.result.success
    assert "SyntaxError" in cell.stdout
    assert re.search(r"Cell In\[\d+\], line 3", cell.stdout), cell.stdout
    assert "kernel_magic" not in cell.stdout


def test_the_next_cell_works_after_an_error(shell, run):
    assert not run(BAD).result.success
    fixed = run(BAD.replace(' + "text"', " + 1"))
    assert fixed.result.success, fixed.stdout
    run("bad(2.0)")
    assert shell.user_ns["x"].to_numpy().tolist() == [3.0] * 4
    assert run("1 + 1").result.result == 2


def test_ti_debug_shows_the_compiler_frames(run, monkeypatch):
    monkeypatch.setenv("TI_DEBUG", "1")
    cell = run(BAD)
    assert isinstance(cell.error, ti.errors.TiTypeError)
    assert not isinstance(cell.error, KernelCellError)
    assert "frontend" in cell.stdout  # the compiler's own frames are listed


def test_kernels_before_a_failing_one_still_report(run):
    cell = run(
        "%%kernel\n"
        "def good() -> ti.i32:\n"
        "    return 1\n"
        "def worse(v: ti.i32):\n"
        "    v = undefined_in_kernel\n"
    )
    assert not cell.result.success
    assert cell.stdout.startswith("good: compiled in")
    assert re.search(r"Cell In\[\d+\], line 5, column \d+, in worse", cell.stdout), cell.stdout


def test_a_kernel_failing_in_a_plain_cell_is_short_too(run, monkeypatch):
    # the first call of a plain @ti.kernel compiles in an ordinary cell
    run(
        "import ti_notebook as ti\n"
        "y = ti.field(ti.f32, shape=4)\n"
        "@ti.kernel\n"
        "def g():\n"
        "    for i in y:\n"
        "        y[i] = missing_name + 1\n"
    )
    cell = run("g()")
    assert type(cell.error).__name__ == "TiNameError"
    text = cell.stdout + cell.stderr
    assert "name 'missing_name' is not defined" in text
    assert "line 6" in text and "^" in text and "hint:" in text
    assert "frontend" not in text and "Traceback" not in text  # no compiler frames
    assert run("print('after', y[0])").stdout.strip() == "after 0.0"
    monkeypatch.setenv("TI_DEBUG", "1")
    text = run("g()").stdout
    assert "frontend" in text  # the full traceback on request
