"""Shared setup of the ``make compat`` harness tests (benchmarks/compat).

The harness lives in ``benchmarks/``, outside the installed package: the repository
root goes on ``sys.path`` so ``benchmarks.compat`` imports however pytest is started.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def examples_root(tmp_path):
    """A fake examples folder; call it with (name, source) to add an example file."""
    root = tmp_path / "examples"
    root.mkdir()

    def write(name: str, source: str) -> Path:
        path = root / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip())
        return path

    write.root = root
    return write
