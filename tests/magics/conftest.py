"""An in-process IPython shell (no server) with the ti_notebook extension loaded.

``run_cell(shell, code)`` runs one cell as a notebook would (history stored, so it gets
an ``In[N]`` number) and returns its result plus what it wrote, per stream.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from ti_notebook.magics import load_ipython_extension

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclasses.dataclass
class Cell:
    """One executed cell: IPython's result, stdout, stderr and rich outputs (bundles)."""

    result: object
    stdout: str
    stderr: str
    outputs: list

    @property
    def error(self):
        return self.result.error_in_exec or self.result.error_before_exec


@pytest.fixture
def shell():
    sh = InteractiveShell.instance()
    sh.reset(new_session=False)
    load_ipython_extension(sh)
    yield sh
    sh.reset(new_session=False)


def run_cell(shell, code: str) -> Cell:
    with capture_output() as captured:
        result = shell.run_cell(code, store_history=True)
    return Cell(
        result,
        _ANSI.sub("", captured.stdout),
        _ANSI.sub("", captured.stderr),
        [output.data for output in captured.outputs],
    )


@pytest.fixture
def run(shell):
    """``run(code)`` runs a cell in the shell fixture's shell."""
    return lambda code: run_cell(shell, code)


@pytest.fixture
def kernelspec(tmp_path, monkeypatch):
    """Installs the kernelspec under a temporary prefix and points Jupyter at it."""
    prefix = tmp_path / "prefix"
    subprocess.run(
        [sys.executable, "-m", "ti_notebook.install_kernel", "--prefix", str(prefix)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    spec_dir = prefix / "share" / "jupyter" / "kernels" / "ti_notebook"
    monkeypatch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
    return spec_dir
