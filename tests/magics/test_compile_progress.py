"""A long compile shows its time and stage while it runs; an interrupt during a compile
shows one line and the user's line, never the compiler's frames, and never breaks
IPython's traceback formatter."""

import time

import pytest

from ti_notebook.compiler.backends.cpu import CpuTarget
from ti_notebook.magics import compile_watch

pytestmark = pytest.mark.cpu

CELL = """%%kernel --no-cache
x = ti.field(ti.f32, shape=64)
def fill(v: ti.f32):
    for i in x:
        x[i] = v
"""


def _with_pass(monkeypatch, name, run_pass):
    """The CPU pipeline with ``run_pass`` first (the real passes follow)."""
    monkeypatch.setattr(CpuTarget, "passes", ((name, run_pass), *CpuTarget.passes))


@pytest.fixture
def quick_progress(monkeypatch):
    monkeypatch.setattr(compile_watch, "SHOW_AFTER_S", 0.1)
    monkeypatch.setattr(compile_watch, "EVERY_S", 0.1)


def test_a_slow_compile_shows_its_time_and_stage_then_the_summary(run, monkeypatch, quick_progress):
    def sleepy(kernel, options, capabilities):
        time.sleep(0.6)
        return False

    _with_pass(monkeypatch, "sleepy", sleepy)
    cell = run(CELL)
    assert cell.result.success, cell.stdout + cell.stderr
    texts = [out.get("text/plain", "") for out in cell.outputs]
    progress = [t for t in texts if t.startswith("compiling fill: ")]
    assert progress, texts
    assert any("running passes (sleepy)" in t for t in progress)
    assert all(" s, " in t for t in progress)  # elapsed seconds, then the stage
    assert texts[-1].startswith("fill: compiled in ") and "passes:" in texts[-1]
    assert "fill: compiled in" not in cell.stdout  # it replaced the progress line


def test_a_quick_compile_shows_no_progress(run, monkeypatch):
    monkeypatch.setattr(compile_watch, "SHOW_AFTER_S", 30.0)
    cell = run(CELL)
    assert cell.result.success
    assert cell.outputs == []
    assert "fill: compiled in" in cell.stdout


def _interrupt(kernel, options, capabilities):
    raise KeyboardInterrupt


COMPILER_FILES = ("driver.py", "pipeline.py", "cached.py", "kernel.py", "kernel_magic.py")


def _no_compiler_frames(text: str) -> None:
    for name in COMPILER_FILES:
        assert name not in text, text
    assert "Unexpected exception formatting" not in text


def test_an_interrupt_during_a_cell_compile_shows_one_line(run, monkeypatch, quick_progress):
    _with_pass(monkeypatch, "stop_here", _interrupt)
    cell = run(CELL)
    assert isinstance(cell.error, KeyboardInterrupt)
    shown = cell.stdout + cell.stderr
    _no_compiler_frames(shown)
    assert "KeyboardInterrupt: compiling kernel 'fill' was stopped after" in shown
    assert "running passes (stop_here)" in shown
    assert "Cell In[" in shown and "line 3" in shown and "def fill(v: ti.f32):" in shown
    monkeypatch.undo()
    assert run(CELL).result.success  # the next cell works


def test_an_interrupt_while_a_call_compiles_names_the_calling_line(run, monkeypatch):
    run(
        "%%kernel --no-cache\ny = ti.field(ti.f32, shape=8)\ndef add(a: ti.template()):\n"
        "    for i in a:\n        a[i] += 1\n"
    )
    _with_pass(monkeypatch, "stop_here", _interrupt)
    in_cell = run("%%kernel\nz = 1\nadd(y)\n")
    shown = in_cell.stdout + in_cell.stderr
    _no_compiler_frames(shown)
    assert "compiling kernel 'add' was stopped" in shown and "line 3" in shown
    assert "add(y)" in shown
    plain = run("w = 2\nadd(y)\n")  # a plain cell: the extension's handler
    assert isinstance(plain.error, KeyboardInterrupt)
    shown = plain.stdout + plain.stderr
    _no_compiler_frames(shown)
    assert "compiling kernel 'add' was stopped" in shown
    assert "line 2" in shown and "add(y)" in shown


def test_a_formatter_failure_on_an_interrupt_falls_back(run, shell, monkeypatch):
    def broken(*args, **kwargs):
        raise AssertionError("a frame with line None")

    monkeypatch.setattr(shell.InteractiveTB, "structured_traceback", broken)
    cell = run("raise KeyboardInterrupt")
    assert isinstance(cell.error, KeyboardInterrupt)
    shown = cell.stdout + cell.stderr
    assert "KeyboardInterrupt" in shown
    assert "Unexpected exception formatting" not in shown
