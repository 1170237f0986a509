"""Damaged entries and concurrent writers (DESIGN.md §7: never trusted, written atomically).

Corruption: a cold process writes four entries; each is then damaged a different way
(payload bytes flipped, payload truncated, metadata replaced by garbage, the payload of
another kernel put in its place). The next process must detect all four, recompile,
give the right results, report "miss" and rewrite the entries; a third process hits.

Concurrency: two processes released at the same instant compile the same kernels into
one folder; both succeed and leave one valid entry per kernel, which a third loads.
"""

from __future__ import annotations

import pytest
from cache_helpers import (
    METADATA_FIELDS,
    collect,
    cpu_dir,
    files_with,
    keys,
    keys_of,
    metadata,
    run_script,
    script_env,
    start_script,
    wait_for_files,
    write_script,
)

pytestmark = pytest.mark.cpu

KERNELS = """
@ti.kernel
def k_flip(a: ti.i32) -> ti.i32:
    total = 0
    for i in range(a):
        total += i * 3 + 1
    return total


@ti.kernel
def k_trunc(a: ti.f32) -> ti.f32:
    return ti.sqrt(a) * 0.5 + a


@ti.kernel
def k_garbage(a: ti.i32) -> ti.i32:
    return a * a - 4


@ti.kernel
def k_foreign(a: ti.i32) -> ti.i32:
    total = 0
    for i in range(a):
        total += i * i
    return total


def run_all_kernels():
    run("k_flip", k_flip, 100)
    run("k_trunc", k_trunc, 16.0)
    run("k_garbage", k_garbage, 9)
    run("k_foreign", k_foreign, 10)
"""

EXPECTED = {"k_flip": 14950, "k_trunc": 18.0, "k_garbage": 77, "k_foreign": 285}
NAMES = list(EXPECTED)

PLAIN_BODY = (
    KERNELS
    + """
init()
run_all_kernels()
finish()
"""
)

# Each process announces itself, then waits for the go file so both compile at once.
RACE_BODY = (
    KERNELS
    + """
READY, GO = sys.argv[1], sys.argv[2]
init()
open(os.path.join(READY, str(os.getpid())), "w").close()
while not os.path.exists(GO):
    time.sleep(0.002)
run_all_kernels()
finish()
"""
)


def _values(result: dict) -> dict:
    return {name: result["kernels"][name]["value"] for name in NAMES}


def _statuses(result: dict) -> dict:
    return {name: result["kernels"][name]["cache"] for name in NAMES}


def _only_key(cache, name: str) -> str:
    found = keys_of(cache, name)
    assert len(found) == 1, (name, found)
    return found[0]


def _flip_middle(data: bytes, count: int = 64) -> bytes:
    start = max(0, len(data) // 2 - count // 2)
    flipped = bytes(b ^ 0xFF for b in data[start : start + count])
    return data[:start] + flipped + data[start + count :]


@pytest.fixture(scope="module")
def corruption(tmp_path_factory):
    root = tmp_path_factory.mktemp("corrupt")
    cache = root / "cache"
    env = script_env(root)
    script = write_script(root / "scripts", "kernels", PLAIN_BODY, cache=cache)
    cold = run_script(script, env)

    folder = cpu_dir(cache)
    key = {name: _only_key(cache, name) for name in NAMES}
    tic = {name: folder / f"{key[name]}.tic" for name in NAMES}
    meta = {name: folder / f"{key[name]}.json" for name in NAMES}
    original = {name: tic[name].read_bytes() for name in NAMES}

    damaged = {
        "k_flip": (tic["k_flip"], _flip_middle(original["k_flip"])),
        "k_trunc": (tic["k_trunc"], original["k_trunc"][: len(original["k_trunc"]) // 2]),
        "k_garbage": (meta["k_garbage"], b'{"version": "0.1", "kernel": \x00\xff garbage'),
        "k_foreign": (tic["k_foreign"], original["k_flip"]),
    }
    for path, data in damaged.values():
        path.write_bytes(data)

    repaired = run_script(script, env)
    after_repair = {
        name: (path.read_bytes() if path.exists() else None) for name, (path, _) in damaged.items()
    }
    warm = run_script(script, env)
    return {
        "cache": cache,
        "cold": cold,
        "repaired": repaired,
        "warm": warm,
        "damaged": {name: data for name, (_, data) in damaged.items()},
        "after_repair": after_repair,
        "key": key,
    }


def test_cold_run_writes_one_entry_per_kernel(corruption):
    assert _values(corruption["cold"]) == EXPECTED
    assert _statuses(corruption["cold"]) == dict.fromkeys(NAMES, "miss")


@pytest.mark.parametrize(
    "kernel",
    NAMES,
    ids=["payload_bytes_flipped", "payload_truncated", "garbage_metadata", "foreign_payload"],
)
def test_damaged_entry_is_recompiled_not_trusted(corruption, kernel):
    result = corruption["repaired"]["kernels"][kernel]
    assert result == {"value": EXPECTED[kernel], "cache": "miss"}


@pytest.mark.parametrize("kernel", NAMES)
def test_damaged_entry_is_replaced_by_a_valid_one(corruption, kernel):
    cache = corruption["cache"]
    now = corruption["after_repair"][kernel]
    assert now is not None and now != corruption["damaged"][kernel]
    key = corruption["key"][kernel]
    meta = metadata(cache)[key]
    assert set(meta) >= METADATA_FIELDS, meta
    assert (cpu_dir(cache) / f"{key}.tic").stat().st_size > 0


def test_run_after_repair_hits_every_kernel(corruption):
    warm = corruption["warm"]
    assert _values(warm) == EXPECTED
    assert _statuses(warm) == dict.fromkeys(NAMES, "hit")


@pytest.fixture(scope="module")
def race(tmp_path_factory):
    root = tmp_path_factory.mktemp("race")
    cache = root / "cache"
    ready, go = root / "ready", root / "go"
    ready.mkdir()
    env = script_env(root)
    script = write_script(root / "scripts", "race", RACE_BODY, cache=cache)
    args = [str(ready), str(go)]
    procs = [start_script(script, env, args) for _ in range(2)]
    try:
        wait_for_files(ready, 2)
    finally:
        go.touch()  # releases both together (or lets them finish if one failed early)
    results = [collect(proc, script) for proc in procs]
    after = run_script(write_script(root / "scripts", "after", PLAIN_BODY, cache=cache), env)
    return {"cache": cache, "results": results, "after": after}


def test_concurrent_writers_both_succeed(race):
    for result in race["results"]:
        assert _values(result) == EXPECTED
        assert set(_statuses(result).values()) <= {"hit", "miss"}


def test_concurrent_writers_leave_one_valid_entry_per_kernel(race):
    cache = race["cache"]
    for name in NAMES:
        _only_key(cache, name)
    assert keys(cache, ".tic") == keys(cache, ".json")
    for meta in metadata(cache).values():
        assert set(meta) >= METADATA_FIELDS
    # Atomic writes: no partial or temporary files remain beside the entries.
    strays = [
        p.name
        for p in cpu_dir(cache).iterdir()
        if p.is_file() and not p.name.endswith((".tic", ".json", ".lock"))
    ]
    assert strays == []
    assert all(p.stat().st_size > 0 for p in files_with(cache, ".tic"))


def test_entries_left_by_concurrent_writers_load(race):
    after = race["after"]
    assert _values(after) == EXPECTED
    assert _statuses(after) == dict.fromkeys(NAMES, "hit")
