"""The cache loads native code, so it trusts only what the current user owns and nobody
else can write (DESIGN.md section 7). Junk in the directory (a FIFO named like an entry,
malformed JSON, a key that is a path) is ignored or repaired, never fatal."""

import json
import os
import stat
import warnings

import pytest
from cache_helpers import cpu_dir, run_script, script_env, write_script

from ti_notebook.cache.files import is_key, read_regular
from ti_notebook.cache.store import CacheStore

pytestmark = pytest.mark.cpu

BODY = """
import warnings
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda message, *a, **k: caught.append(str(message))
init()


@ti.kernel
def triple(a: ti.i32) -> ti.i32:
    return 3 * a


run("triple", triple, 14)
finish(warnings=caught)
"""


def _cold(tmp_path):
    cache = tmp_path / "cache"
    env = script_env(tmp_path)
    script = write_script(tmp_path / "scripts", "k", BODY, cache=cache)
    first = run_script(script, env)
    assert first["kernels"]["triple"] == {"value": 42, "cache": "miss"}
    return cache, env, script


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_directories_are_created_private(tmp_path):
    cache, _, _ = _cold(tmp_path)
    for folder in (cache, cpu_dir(cache), cpu_dir(cache) / "index"):
        assert _mode(folder) == 0o700, folder
    for entry in cpu_dir(cache).iterdir():
        if entry.is_file():
            assert _mode(entry) & 0o077 == 0, entry


@pytest.mark.parametrize("folder", ["root", "cpu"])
def test_a_directory_others_can_write_is_not_loaded_from(tmp_path, folder):
    cache, env, script = _cold(tmp_path)
    target = cache if folder == "root" else cpu_dir(cache)
    target.chmod(0o777)
    second = run_script(script, env)
    assert second["kernels"]["triple"] == {"value": 42, "cache": "miss"}  # compiled again
    (warning,) = [w for w in second["warnings"] if "offline cache" in w]
    assert "writable by other users" in warning and "chmod 700" in warning
    target.chmod(0o700)  # fixed as the warning says: hits again
    third = run_script(script, env)
    assert third["kernels"]["triple"]["cache"] == "hit"
    assert not [w for w in third["warnings"] if "offline cache" in w]


def test_an_entry_others_can_write_is_not_loaded(tmp_path):
    cache, env, script = _cold(tmp_path)
    for entry in cpu_dir(cache).glob("*.tic"):
        entry.chmod(0o666)
    second = run_script(script, env)
    assert second["kernels"]["triple"] == {"value": 42, "cache": "miss"}


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_an_entry_owned_by_someone_else_is_not_loaded(tmp_path):
    cache, env, script = _cold(tmp_path)
    for entry in cpu_dir(cache).glob("*.tic"):
        os.chown(entry, 65534, 65534)
    second = run_script(script, env)
    assert second["kernels"]["triple"] == {"value": 42, "cache": "miss"}


def test_fifos_named_like_entries_neither_hang_nor_break(tmp_path):
    cache, env, script = _cold(tmp_path)
    fake = "ab" * 32
    os.mkfifo(cpu_dir(cache) / f"{fake}.json")
    os.mkfifo(cpu_dir(cache) / f"{fake}.tic")
    for tic in cpu_dir(cache).glob("*.tic"):
        if tic.stem != fake and stat.S_ISREG(tic.lstat().st_mode):
            tic.unlink()
            os.mkfifo(tic)  # the real entry's payload is now a FIFO too
    second = run_script(script, env)  # times out (and fails) if anything blocks
    assert second["kernels"]["triple"] == {"value": 42, "cache": "miss"}
    assert all(e["key"] != fake for e in second["info"]["entries"])


def test_malformed_index_is_a_miss_that_is_repaired_with_one_warning(tmp_path):
    cache, env, script = _cold(tmp_path)
    (index,) = (cpu_dir(cache) / "index").glob("*.json")
    index.write_text('{"not": "a list"')
    second = run_script(script, env)
    assert second["kernels"]["triple"] == {"value": 42, "cache": "miss"}
    assert len([w for w in second["warnings"] if "malformed" in w]) == 1
    assert isinstance(json.loads(index.read_text()), list)  # rewritten
    third = run_script(script, env)
    assert third["kernels"]["triple"]["cache"] == "hit"
    assert not [w for w in third["warnings"] if "malformed" in w]


def test_malformed_metadata_is_a_miss_that_is_repaired(tmp_path):
    cache, env, script = _cold(tmp_path)
    for meta in cpu_dir(cache).glob("*.json"):
        meta.write_text("[1, 2")
    second = run_script(script, env)
    assert second["kernels"]["triple"]["cache"] == "miss"
    assert [w for w in second["warnings"] if "malformed" in w]
    assert run_script(script, env)["kernels"]["triple"]["cache"] == "hit"


def test_index_entries_whose_key_is_not_hex_are_ignored(tmp_path):
    cache, env, script = _cold(tmp_path)
    (index,) = (cpu_dir(cache) / "index").glob("*.json")
    planted = tmp_path / "planted"
    planted.mkdir()
    good = json.loads(index.read_text())
    bad = [{"dependencies": good[0]["dependencies"], "key": "../../planted/x"}]
    index.write_text(json.dumps(bad + good))
    second = run_script(script, env)
    assert second["kernels"]["triple"] == {"value": 42, "cache": "hit"}
    assert not any(planted.iterdir())


def test_store_refuses_keys_that_are_paths(tmp_path):
    store = CacheStore(str(tmp_path / "c"), "v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.save("../evil", "k", {}, b"code")
        assert store.load("../evil") is None
    assert not (tmp_path / "evil.tic").exists()
    assert not is_key("AB" * 32) and is_key("0f" * 32)


def test_read_regular_skips_links_and_fifos(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"data")
    link = tmp_path / "link"
    link.symlink_to(real)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_regular(real) == b"data"
    assert read_regular(link) is None
    assert read_regular(fifo) is None
