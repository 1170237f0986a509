"""The matrix's results, computed once per session: ti_notebook's one group at a time
(each in its own processes), Taichi's all at once (skipped without Taichi 1.7.4)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json

import pytest

from tests.differential import cases, harness

TAICHI_VERSION = "1.7.4"


@pytest.fixture(scope="session")
def notebook_results():
    """``notebook_results(group)``: ti_notebook's results of one group (run on first use)."""
    cache: dict[str, dict] = {}

    def get(group: str) -> dict:
        if group not in cache:
            cache[group] = harness.run("ti_notebook", harness.group_units(group))
        return cache[group]

    return get


@pytest.fixture(scope="session")
def taichi_results(tmp_path_factory) -> dict:
    """Taichi's results of every group, from one process (restarted after a crash); the
    JSON is kept under the session's temporary directory."""
    if importlib.util.find_spec("taichi") is None:
        pytest.skip(f"Taichi is not installed (pip install taichi=={TAICHI_VERSION})")
    version = importlib.metadata.version("taichi")
    if version != TAICHI_VERSION:
        pytest.skip(f"the matrix was judged against Taichi {TAICHI_VERSION}, not {version}")
    units = [u for group in cases.GROUPS for u in harness.group_units(group)]
    results = harness.run("taichi", units)
    path = tmp_path_factory.mktemp("differential") / "taichi_results.json"
    path.write_text(json.dumps(results))
    return results
