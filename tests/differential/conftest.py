"""The matrix's results, computed once per session: ti_notebook's one group at a time
(each in its own processes), Taichi's one process per group, two at a time (skipped
without Taichi 1.7.4)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.differential import cases, harness, taichi_known

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
    """Taichi's results of every group (the items that crash Taichi left out), one
    process per group, two at a time; the JSON is kept under the session's temporary
    directory."""
    if importlib.util.find_spec("taichi") is None:
        pytest.skip(f"Taichi is not installed (pip install taichi=={TAICHI_VERSION})")
    version = importlib.metadata.version("taichi")
    if version != TAICHI_VERSION:
        pytest.skip(f"the matrix was judged against Taichi {TAICHI_VERSION}, not {version}")
    results: dict = {}
    with ThreadPoolExecutor(2) as pool:  # each call waits on its own subprocess
        runs = [taichi_known.units(group) for group in cases.GROUPS]
        for part in pool.map(lambda units: harness.run("taichi", units), runs):
            results.update(part)
    path = tmp_path_factory.mktemp("differential") / "taichi_results.json"
    path.write_text(json.dumps(results))
    return results
