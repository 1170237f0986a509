"""Keeps in-process cache tests out of the real ``~/.cache``.

Tests that compile in this process pass ``offline_cache_file_path`` themselves; the
environment here only catches what would otherwise land in the default folder.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _sandboxed_cache_env(tmp_path_factory, monkeypatch):
    sandbox = tmp_path_factory.mktemp("default-cache")
    monkeypatch.delenv("TI_OFFLINE_CACHE", raising=False)
    monkeypatch.setenv("TI_OFFLINE_CACHE_FILE_PATH", str(sandbox / "ti_path"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(sandbox / "xdg"))
    yield sandbox
