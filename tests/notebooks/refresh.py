"""Runs tutorials top to bottom and stores their outputs, which nbval then compares against.

    .venv/bin/python tests/notebooks/refresh.py                 # every notebook in notebooks/
    .venv/bin/python tests/notebooks/refresh.py notebooks/01-first-kernels.ipynb

Each notebook runs in a fresh kernel of this interpreter, in its own folder, and is saved
in place without nbclient's per-cell timestamps (they would change the file on every run).
A cell that raises stops the run unless it is tagged ``raises-exception``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def refresh(path: Path) -> None:
    """Executes ``path`` and writes it back with the new outputs."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    nbformat.write(notebook, path)


def main(argv: list[str]) -> None:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"running {path}")
        refresh(path)


if __name__ == "__main__":
    main(sys.argv[1:])
