"""``ti.cache.info()``, ``ti.cache.clear()``, the on-disk layout and switching the cache off.

In-process tests pass ``offline_cache_file_path`` to ``ti.init``; where the folder comes
from the environment (``TI_OFFLINE_CACHE_FILE_PATH``, ``XDG_CACHE_HOME``, ``HOME``) or
the cache is switched off by ``TI_OFFLINE_CACHE=0``, a fresh process reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cache_helpers import (
    METADATA_FIELDS,
    cpu_dir,
    files_with,
    has_entry,
    keys,
    keys_of,
    run_all,
    script_env,
    write_script,
)

import ti_notebook as ti

pytestmark = pytest.mark.cpu

INFO_FIELDS = {"path", "enabled", "entries", "total_bytes", "hits", "misses", "uncacheable"}
ENTRY_FIELDS = {"key", "kernel", "size", "created", "last_used", "version"}


def _make_kernels():
    """The same two kernels each call, as re-running a notebook cell makes them."""

    @ti.kernel
    def api_add(a: ti.i32) -> ti.i32:
        return a + 41

    @ti.kernel
    def api_scale(a: ti.f32) -> ti.f32:
        return a * 1.5

    return api_add, api_scale


def _snapshot(folder: Path) -> dict:
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _counts() -> dict:
    info = ti.cache.info()
    return {name: info[name] for name in ("hits", "misses", "uncacheable")}


def test_info_reports_entries_and_counts(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    # The counters are the process's (this pytest run's), so compare with a baseline.
    base = _counts()
    api_add, api_scale = _make_kernels()
    assert api_add(1) == 42
    assert api_scale(2.0) == 3.0
    assert api_add.stages()["report"]["cache"] == "miss"
    assert api_scale.stages()["report"]["cache"] == "miss"

    info = ti.cache.info()
    assert set(info) >= INFO_FIELDS
    assert Path(info["path"]).resolve() in {tmp_path.resolve(), cpu_dir(tmp_path).resolve()}
    assert info["enabled"] is True
    assert info["hits"] == base["hits"]
    assert info["misses"] >= base["misses"] + 2
    assert info["uncacheable"] == base["uncacheable"]
    assert has_entry(info, "api_add") and has_entry(info, "api_scale")
    for entry in info["entries"]:
        assert set(entry) >= ENTRY_FIELDS, entry
        assert isinstance(entry["size"], int) and entry["size"] > 0
        assert entry["created"] <= entry["last_used"]
        assert isinstance(entry["version"], str) and entry["version"]
    assert info["total_bytes"] >= sum(entry["size"] for entry in info["entries"]) > 0


def test_entries_on_disk_match_info(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    api_add, api_scale = _make_kernels()
    api_add(1)
    api_scale(1.0)
    info = ti.cache.info()
    assert cpu_dir(tmp_path).is_dir()
    assert (cpu_dir(tmp_path) / "index").is_dir()
    assert keys(tmp_path, ".tic") == keys(tmp_path, ".json") == {e["key"] for e in info["entries"]}
    for entry in info["entries"]:
        meta = json.loads((cpu_dir(tmp_path) / f"{entry['key']}.json").read_text())
        assert set(meta) >= METADATA_FIELDS, meta
        assert meta["kernel"] == entry["kernel"]
        assert meta["version"] == entry["version"]
        # info may count the metadata file too; never less than the payload.
        assert 0 < meta["size"] <= entry["size"]
    assert len(keys_of(tmp_path, "api_add")) == 1


def test_redefined_kernel_loads_from_the_cache(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    base = _counts()
    first, _ = _make_kernels()
    assert first(1) == 42
    assert first.stages()["report"]["cache"] == "miss"
    again, _ = _make_kernels()  # a new kernel object, same source: a re-run cell
    assert again(2) == 43
    assert again.stages()["report"]["cache"] == "hit"
    assert _counts()["hits"] == base["hits"] + 1
    stages = again.stages()
    for name in ("ir", "ir_optimized", "llvm", "llvm_optimized", "asm"):
        assert isinstance(stages[name], str) and stages[name].strip(), name


def test_clear_deletes_every_entry(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    api_add, api_scale = _make_kernels()
    api_add(1)
    api_scale(1.0)
    assert len(ti.cache.info()["entries"]) >= 2
    ti.cache.clear()
    info = ti.cache.info()
    assert info["entries"] == []
    assert info["total_bytes"] == 0
    assert files_with(tmp_path, ".tic") == [] and files_with(tmp_path, ".json") == []
    assert api_add(2) == 43  # compiled code in memory is unaffected
    fresh, _ = _make_kernels()
    assert fresh(3) == 44
    assert fresh.stages()["report"]["cache"] == "miss"


def test_disabled_by_option_creates_nothing(tmp_path):
    folder = tmp_path / "never-made"
    ti.init(arch=ti.cpu, offline_cache=False, offline_cache_file_path=str(folder))
    base = _counts()
    api_add, _ = _make_kernels()
    assert api_add(1) == 42
    assert api_add.stages()["report"]["cache"] == "off"
    info = ti.cache.info()
    assert info["enabled"] is False
    assert info["hits"] == base["hits"]
    ti.reset()
    assert not folder.exists()


def test_disabled_by_option_leaves_an_existing_cache_untouched(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    api_add, _ = _make_kernels()
    api_add(1)
    ti.reset()
    before = _snapshot(tmp_path)
    assert any(name.endswith(".tic") for name in before)

    ti.init(
        arch=ti.cpu,
        offline_cache=False,
        offline_cache_file_path=str(tmp_path),
        offline_cache_max_size_of_files=1,
        offline_cache_cleaning_policy="fifo",
    )
    again, _ = _make_kernels()
    assert again(1) == 42
    assert again.stages()["report"]["cache"] == "off"
    ti.reset()
    assert _snapshot(tmp_path) == before


# ---- the environment, in fresh processes ---------------------------------------------

ENV_BODY = """
@ti.kernel
def env_kernel(a: ti.i32) -> ti.i32:
    return a * 6


ti.init(arch=ti.cpu)
run("env_kernel", env_kernel, 7)
finish()
"""


@pytest.fixture(scope="module")
def env_runs(tmp_path_factory):
    """Four processes side by side, each with its own environment and folders."""
    root = tmp_path_factory.mktemp("env")
    cases = {
        "disabled": {
            "TI_OFFLINE_CACHE": "0",
            "TI_OFFLINE_CACHE_FILE_PATH": str(root / "disabled" / "cache"),
        },
        "env_path": {"TI_OFFLINE_CACHE_FILE_PATH": str(root / "env_path" / "cache")},
        "xdg": {"XDG_CACHE_HOME": str(root / "xdg" / "xdg-home")},
        "home": {"HOME": str(root / "home" / "user"), "XDG_CACHE_HOME": None},
    }
    jobs = []
    for name, overrides in cases.items():
        folder = root / name
        script = write_script(folder, "env", ENV_BODY, cache=None)
        jobs.append((script, script_env(folder, **overrides), []))
    results = dict(zip(cases, run_all(jobs), strict=True))
    return root, results


def test_env_zero_disables_the_cache(env_runs):
    root, results = env_runs
    result = results["disabled"]
    assert result["kernels"]["env_kernel"] == {"value": 42, "cache": "off"}
    assert result["info"]["enabled"] is False
    assert not (root / "disabled" / "cache").exists()
    assert not (root / "disabled" / "xdg-guard").exists()


def test_env_file_path_sets_the_folder(env_runs):
    root, results = env_runs
    cache = root / "env_path" / "cache"
    result = results["env_path"]
    assert result["kernels"]["env_kernel"] == {"value": 42, "cache": "miss"}
    assert Path(result["info"]["path"]).resolve() in {cache.resolve(), cpu_dir(cache).resolve()}
    assert len(keys_of(cache, "env_kernel")) == 1
    assert not (root / "env_path" / "xdg-guard").exists()


def test_default_folder_under_xdg_cache_home(env_runs):
    root, results = env_runs
    assert results["xdg"]["kernels"]["env_kernel"] == {"value": 42, "cache": "miss"}
    assert len(keys_of(root / "xdg" / "xdg-home" / "ti_notebook", "env_kernel")) == 1


def test_default_folder_under_home_dot_cache(env_runs):
    root, results = env_runs
    assert results["home"]["kernels"]["env_kernel"] == {"value": 42, "cache": "miss"}
    cache = root / "home" / "user" / ".cache" / "ti_notebook"
    assert len(keys_of(cache, "env_kernel")) == 1
