"""An index entry is trusted only for the key it was made for (DESIGN.md §7).

The index maps a kernel's pre-key and dependencies to the key of its entry. Edited to
name another kernel's entry - valid, with a good checksum - it must not make the kernel
run the other kernel's code: the pair is ignored as corrupt, the kernel recompiles, the
index is rewritten, and the next session loads the right entry.
"""

from __future__ import annotations

import json
import warnings

import pytest
from cache_helpers import cpu_dir, keys_of, run_script, script_env, write_script

import ti_notebook as ti
from ti_notebook.cache.store import CacheStore

pytestmark = pytest.mark.cpu

BODY = """
@ti.kernel
def k_a() -> ti.i32:
    return 1


@ti.kernel
def k_b() -> ti.i32:
    return 2


init()
run("k_a", k_a)
run("k_b", k_b)
finish()
"""


def _point_a_at_b(cache) -> None:
    key_a, key_b = keys_of(cache, "k_a")[0], keys_of(cache, "k_b")[0]
    edited = 0
    for index in (cpu_dir(cache) / "index").glob("*.json"):
        pairs = json.loads(index.read_text())
        for pair in pairs:
            if pair["key"] == key_a:
                pair["key"] = key_b
                edited += 1
        index.write_text(json.dumps(pairs))
    assert edited == 1


def test_an_index_entry_naming_another_kernels_entry_is_not_trusted(tmp_path):
    cache = tmp_path / "c"
    script = write_script(tmp_path, "index", BODY, cache=cache)
    env = script_env(tmp_path)
    cold = run_script(script, env)["kernels"]
    assert cold == {"k_a": {"value": 1, "cache": "miss"}, "k_b": {"value": 2, "cache": "miss"}}
    _point_a_at_b(cache)
    edited = run_script(script, env)["kernels"]
    assert edited["k_a"] == {"value": 1, "cache": "miss"}  # recompiled, not k_b's code
    assert edited["k_b"] == {"value": 2, "cache": "hit"}
    warm = run_script(script, env)["kernels"]
    assert warm == {"k_a": {"value": 1, "cache": "hit"}, "k_b": {"value": 2, "cache": "hit"}}


def test_candidates_check_each_key_and_remember_replaces_the_bad_pair(tmp_path):
    store = CacheStore(str(tmp_path), ti.__version__)
    pre, good, other = "a" * 64, "b" * 64, "c" * 64
    key_of = {"[1]": good}.get
    store.remember(pre, [1], other)  # as if edited: [1] does not make key `other`
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert store.candidates(pre, lambda deps: key_of(json.dumps(deps))) == []
    assert "malformed" in str(caught[0].message)
    store.remember(pre, [1], good)
    assert store.candidates(pre) == [{"dependencies": [1], "key": good}]
