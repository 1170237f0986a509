"""Cleaning policies (Taichi's ``offline_cache_cleaning_policy``, DESIGN.md §7).

- ``never`` keeps every entry whatever ``offline_cache_max_size_of_files`` says;
- ``lru`` / ``fifo`` drop the least recently used / oldest quarter (at least one entry)
  once the total exceeds the limit;
- ``version`` drops entries whose metadata names another version.

Entries the package writes for itself (a runtime module, say) may share the folder, so
counts compare folders written by the same script rather than assume a number.
"""

from __future__ import annotations

import json
import shutil

import pytest
from cache_helpers import (
    keys,
    keys_of,
    run_all,
    run_script,
    script_env,
    write_script,
)

pytestmark = pytest.mark.cpu

FOUR_KERNELS = """
@ti.kernel
def k_p0(a: ti.i32) -> ti.i32:
    return a + 100


@ti.kernel
def k_p1(a: ti.i32) -> ti.i32:
    return a * 3 - 1


@ti.kernel
def k_p2(a: ti.f32) -> ti.f32:
    return a * 0.25


@ti.kernel
def k_p3(a: ti.i32) -> ti.i32:
    total = 0
    for i in range(a):
        total += i
    return total


init(
    offline_cache_max_size_of_files=int(sys.argv[1]),
    offline_cache_cleaning_policy=sys.argv[2],
)
run("k_p0", k_p0, 1)
run("k_p1", k_p1, 5)
run("k_p2", k_p2, 8.0)
run("k_p3", k_p3, 10)
finish()
"""
FOUR_EXPECTED = {"k_p0": 101, "k_p1": 14, "k_p2": 2.0, "k_p3": 45}


def _entry_count(cache) -> int:
    tics, jsons = keys(cache, ".tic"), keys(cache, ".json")
    assert tics == jsons, "cleaning must remove an entry's payload and metadata together"
    return len(tics)


@pytest.fixture(scope="module")
def tiny_limit(tmp_path_factory):
    """Each policy on its own folder with a 1-byte limit: policy → (RESULT, folder)."""
    root = tmp_path_factory.mktemp("tiny")
    policies = ("never", "lru", "fifo")
    caches = {policy: root / policy / "cache" for policy in policies}
    jobs = [
        (
            write_script(root / policy, "four", FOUR_KERNELS, cache=caches[policy]),
            script_env(root / policy),
            ["1", policy],
        )
        for policy in policies
    ]
    results = run_all(jobs)
    return {p: (result, caches[p]) for p, result in zip(policies, results, strict=True)}


@pytest.mark.parametrize("policy", ["never", "lru", "fifo"])
def test_tiny_limit_kernels_still_run(tiny_limit, policy):
    result, _ = tiny_limit[policy]
    values = {name: result["kernels"][name]["value"] for name in FOUR_EXPECTED}
    assert values == FOUR_EXPECTED
    assert {result["kernels"][name]["cache"] for name in FOUR_EXPECTED} == {"miss"}


def test_never_keeps_everything_over_the_limit(tiny_limit):
    _, cache = tiny_limit["never"]
    for name in FOUR_EXPECTED:
        assert len(keys_of(cache, name)) == 1, name
    assert _entry_count(cache) >= len(FOUR_EXPECTED)


@pytest.mark.parametrize("policy", ["lru", "fifo"])
def test_lru_and_fifo_drop_entries_over_the_limit(tiny_limit, policy):
    _, never_cache = tiny_limit["never"]
    _, cache = tiny_limit[policy]
    assert _entry_count(cache) < _entry_count(never_cache)


# ---- version ----------------------------------------------------------------------

VERSION_BODY = """
@ti.kernel
def k_keep(a: ti.i32) -> ti.i32:
    return a + 1


@ti.kernel
def k_stale(a: ti.i32) -> ti.i32:
    return a + 2


init(
    offline_cache_max_size_of_files=int(sys.argv[1]),
    offline_cache_cleaning_policy=sys.argv[2],
)
if sys.argv[3] == "both":
    run("k_stale", k_stale, 1)
run("k_keep", k_keep, 1)
finish()
"""


def test_version_policy_drops_entries_of_another_version(tmp_path):
    cache = tmp_path / "cache"
    env = script_env(tmp_path)
    script = write_script(tmp_path, "version", VERSION_BODY, cache=cache)
    cold = run_script(script, env, ["104857600", "never", "both"])
    assert cold["kernels"]["k_stale"] == {"value": 3, "cache": "miss"}
    (stale_key,) = keys_of(cache, "k_stale")
    (keep_key,) = keys_of(cache, "k_keep")
    meta_path = cache / "cpu" / f"{stale_key}.json"
    meta = json.loads(meta_path.read_text())
    meta["version"] = "0.0.0-other"
    meta_path.write_text(json.dumps(meta))

    # A 1-byte limit as well, so cleaning runs whether or not it waits for the limit.
    warm = run_script(script, env, ["1", "version", "keep"])
    assert warm["kernels"]["k_keep"] == {"value": 2, "cache": "hit"}
    assert stale_key not in keys(cache, ".json") | keys(cache, ".tic")
    assert keep_key in keys(cache, ".json") & keys(cache, ".tic")


# ---- lru versus fifo ----------------------------------------------------------------

ORDER_BODY = """
@ti.kernel
def k_a(a: ti.i32) -> ti.i32:
    return a + 10


@ti.kernel
def k_b(a: ti.i32) -> ti.i32:
    return a + 11


@ti.kernel
def k_c(a: ti.i32) -> ti.i32:
    return a + 12


@ti.kernel
def k_d(a: ti.i32) -> ti.i32:
    return a + 13


@ti.kernel
def k_e(a: ti.i32) -> ti.i32:
    return a + 14


@ti.kernel
def k_f(a: ti.i32) -> ti.i32:
    return a + 15


@ti.kernel
def k_g(a: ti.i32) -> ti.i32:
    return a + 16


LATER = [k_b, k_c, k_d, k_e, k_f, k_g]
step = sys.argv[1]
if step == "clean":
    init(
        offline_cache_max_size_of_files=int(sys.argv[2]),
        offline_cache_cleaning_policy=sys.argv[3],
    )
    finish()
else:
    init(offline_cache_cleaning_policy="never")
    if step == "create":
        run("k_a", k_a, 0)
        # Timestamps may have a coarse clock: k_a is clearly the oldest entry.
        time.sleep(1.1)
        for kernel in LATER:
            run(kernel.__name__, kernel, 0)
    else:  # "touch": k_a becomes the most recently used entry
        time.sleep(1.1)
        run("k_a", k_a, 0)
    finish()
"""
LATER = ["k_b", "k_c", "k_d", "k_e", "k_f", "k_g"]


@pytest.fixture(scope="module")
def order(tmp_path_factory):
    """k_a created first, then six more; a later process hits k_a; then copies of the
    folder are cleaned with lru and with fifo, the limit one byte under the total.

    Seven kernels make the quarter reach k_a under fifo even when one entry the package
    writes for itself (created just before k_a) shares the folder."""
    root = tmp_path_factory.mktemp("order")
    cache = root / "cache"
    env = script_env(root)
    script = write_script(root / "main", "order", ORDER_BODY, cache=cache)
    created = run_script(script, env, ["create"])
    touched = run_script(script, env, ["touch"])
    # The public view: ti.cache.info() in the process that made the hit.
    before = {entry["key"]: entry for entry in touched["info"]["entries"]}
    assert set(before) == keys(cache, ".json")
    sizes = sum(int(entry["size"]) for entry in before.values())
    limit = min(sizes, touched["info"]["total_bytes"]) - 1
    jobs, folders = [], {}
    for policy in ("lru", "fifo"):
        folders[policy] = root / policy / "cache"
        shutil.copytree(cache, folders[policy])
        target = write_script(root / policy, "order", ORDER_BODY, cache=folders[policy])
        jobs.append((target, env, ["clean", str(limit), policy]))
    run_all(jobs)
    after = {}
    for policy, folder in folders.items():
        tics, jsons = keys(folder, ".tic"), keys(folder, ".json")
        assert tics == jsons, "cleaning must remove an entry's payload and metadata together"
        after[policy] = tics
    return {
        "created": created,
        "touched": touched,
        "before": before,
        "keys": {name: keys_of(cache, name) for name in ["k_a", *LATER]},
        "after": after,
    }


def test_order_setup_runs_and_touches(order):
    assert order["created"]["kernels"]["k_a"] == {"value": 10, "cache": "miss"}
    assert order["touched"]["kernels"]["k_a"] == {"value": 10, "cache": "hit"}
    for name, found in order["keys"].items():
        assert len(found) == 1, name
    (a_key,) = order["keys"]["k_a"]
    later = [order["before"][order["keys"][name][0]] for name in LATER]
    a_meta = order["before"][a_key]
    # The hit moved k_a's last use past every other entry's; its creation stays first.
    assert all(a_meta["last_used"] > meta["last_used"] for meta in later)
    assert all(a_meta["created"] < meta["created"] for meta in later)


def _dropped(order, policy) -> set[str]:
    return set(order["before"]) - order["after"][policy]


@pytest.mark.parametrize("policy", ["lru", "fifo"])
def test_over_the_limit_drops_a_quarter_not_everything(order, policy):
    total = len(order["before"])
    dropped = _dropped(order, policy)
    assert 1 <= len(dropped) <= max(1, -(-total // 4)), (len(dropped), total)


def test_lru_keeps_the_recently_hit_old_entry(order):
    (a_key,) = order["keys"]["k_a"]
    assert a_key in order["after"]["lru"]
    dropped = _dropped(order, "lru")
    kept = order["after"]["lru"]
    last_used = {key: meta["last_used"] for key, meta in order["before"].items()}
    assert max(last_used[k] for k in dropped) <= min(last_used[k] for k in kept)


def test_fifo_drops_the_oldest_entry_even_if_recently_hit(order):
    (a_key,) = order["keys"]["k_a"]
    assert a_key not in order["after"]["fifo"]
    dropped = _dropped(order, "fifo")
    kept = order["after"]["fifo"]
    created = {key: meta["created"] for key, meta in order["before"].items()}
    assert max(created[k] for k in dropped) <= min(created[k] for k in kept)
