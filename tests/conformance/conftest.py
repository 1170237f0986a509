"""Shared setup of the conformance runner's own tests (``make compat``'s harness)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


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
