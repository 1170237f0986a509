"""Loading the extension: %load_ext, import inside IPython, %reload_ext, %unload_ext, help."""

import subprocess
import sys
import textwrap

import pytest

import ti_notebook as ti
from ti_notebook.magics.report import STAGES

pytestmark = pytest.mark.cpu

KERNEL_CELL = "%%kernel\ndef one() -> ti.i32:\n    return 1\n"


def _has_kernel_magic(shell) -> bool:
    return "kernel" in shell.magics_manager.magics["cell"]


def test_load_ext_registers_silently(shell, run):
    ti.unload_ipython_extension(shell)
    assert not _has_kernel_magic(shell)
    cell = run("%load_ext ti_notebook")
    assert cell.result.success
    assert (cell.stdout, cell.stderr, cell.outputs) == ("", "", [])
    assert _has_kernel_magic(shell)
    assert run(KERNEL_CELL + "one()").result.result == 1


def test_load_ext_puts_ti_in_the_namespace_unless_taken(shell, run):
    assert shell.user_ns["ti"] is ti
    run("ti = 'mine'")
    ti.load_ipython_extension(shell)
    assert shell.user_ns["ti"] == "mine"


def test_unload_and_reload_ext(shell, run):
    run("%load_ext ti_notebook")
    unloaded = run("%unload_ext ti_notebook")
    assert unloaded.result.success
    assert not _has_kernel_magic(shell)
    missing = run(KERNEL_CELL)
    assert not missing.result.success
    assert "kernel" in missing.stdout + missing.stderr
    run("%load_ext ti_notebook")
    reloaded = run("%reload_ext ti_notebook")
    assert reloaded.result.success
    assert (reloaded.stdout, reloaded.stderr) == ("", "")
    assert _has_kernel_magic(shell)
    assert run(KERNEL_CELL + "one()").result.result == 1
    run("%unload_ext ti_notebook")


def test_import_inside_ipython_registers_the_magics():
    code = textwrap.dedent(
        """
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        assert "kernel" not in shell.magics_manager.magics["cell"]
        import ti_notebook
        print("kernel" in shell.magics_manager.magics["cell"])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "True"


def test_import_outside_ipython_does_not_import_ipython():
    code = "import sys, ti_notebook; print('IPython' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"


def test_help_documents_every_flag(run):
    cell = run("%%kernel?")
    assert cell.result.success
    text = cell.stdout
    assert "%%kernel [--arch" in text
    for flag in (
        "--arch",
        "--show",
        "--no-cache",
        "--parallelize",
        "--block-dim",
        "--profile",
        "--quiet",
    ):
        assert flag in text
    for stage in STAGES:
        assert stage in text


def test_bad_flags_are_usage_errors(run):
    cell = run("%%kernel --parallelize 0\ndef f():\n    pass\n")
    assert not cell.result.success
    assert "UsageError" in cell.stdout + cell.stderr
    assert "positive integer" in cell.stdout + cell.stderr
    unknown = run("%%kernel --show nothing\ndef f():\n    pass\n")
    assert not unknown.result.success
