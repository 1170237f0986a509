"""Every tutorial in ``notebooks/`` runs top to bottom under nbval and gives its stored outputs.

nbval runs each notebook in a fresh kernel of this interpreter (``--nbval-current-env``,
whatever kernelspec the notebook names) and compares every cell's outputs with the stored
ones, except cells marked ``# NBVAL_IGNORE_OUTPUT`` (timings). ``nbval_sanitize.cfg``
masks the few parts of otherwise checked outputs that cannot repeat: the time in a
``%%kernel`` summary line, pygments' HTML of ``--show`` (its plain text is compared), and
ipykernel's temporary file name in an error message.

nbval does not compare a cell that was stored unexecuted, so the structural tests below
make sure each notebook is stored with its outputs. To refresh the stored outputs after
changing a notebook::

    .venv/bin/jupyter execute --inplace notebooks/NN-name.ipynb
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SANITIZE = Path(__file__).with_name("nbval_sanitize.cfg")
NAME = re.compile(r"^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*\.ipynb$")

pytestmark = pytest.mark.notebooks


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(path: Path) -> list[dict]:
    return [cell for cell in _load(path)["cells"] if cell["cell_type"] == "code"]


def test_tutorials_are_numbered_from_01():
    names = [path.name for path in NOTEBOOKS]
    assert names, "notebooks/ has no tutorial"
    assert all(NAME.match(name) for name in names), names
    numbers = [int(NAME.match(name).group(1)) for name in names]
    assert numbers == list(range(1, len(names) + 1)), names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_tutorial_is_stored_executed_on_the_ti_notebook_kernel(path):
    notebook = _load(path)
    # "Python 3 (ti_notebook)", which make setup installs (magics/kernelspec.py)
    assert notebook["metadata"]["kernelspec"]["name"] == "ti_notebook"
    cells = _code_cells(path)
    counts = [cell["execution_count"] for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), "run it top to bottom and save it"
    assert "%load_ext ti_notebook" in "".join(cells[0]["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_tutorial_outputs_match_under_nbval(path, tmp_path):
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        "--nbval-current-env",
        f"--nbval-sanitize-with={SANITIZE}",
        "--nbval-cell-timeout=120",
        "-p",
        "no:cacheprovider",
        "-q",
        str(path),
    ]
    run = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, f"nbval failed on {path.name}:\n{run.stdout[-8000:]}{run.stderr}"
    assert re.search(r"\b\d+ passed\b", run.stdout), run.stdout[-2000:]
