"""``ti.random`` across processes: a seed replays the same numbers in a fresh process, and
a warm start (offline-cache hit) draws exactly what a cold compile draws.

The random stream is derived from inputs both paths know (seed, the kernel's name,
source and parameters), never from the cache key or anything the hit skips; the seed
is passed at launch, so it is not part of the cache key and a hit serves every seed.
In-process properties: ``tests/lang/test_random.py``.
"""

from __future__ import annotations

import pytest
from cache_helpers import run_all, run_script, script_env, write_script

pytestmark = pytest.mark.cpu

BODY = """
seed, use_cache = int(sys.argv[1]), sys.argv[2] == "1"
init(random_seed=seed, offline_cache=use_cache)
x = ti.field(ti.f64, shape=64)
y = ti.field(ti.u32, shape=(8, 4))


@ti.kernel
def draw():
    for i in x:
        x[i] = ti.random(ti.f64) + ti.randn(ti.f64)
    for i in range(8):
        for j in range(4):
            y[i, j] = ti.random(ti.u32)


launches = []
for _ in range(3):
    draw()
    launches.append(x.to_numpy().tolist() + y.to_numpy().ravel().tolist())
record("draw", draw, None)
finish(launches=launches)
"""


def _script(tmp_path, cache):
    return write_script(tmp_path / "scripts", "draw", BODY, cache=cache)


def _launches_differ(result: dict) -> bool:
    rows = result["launches"]
    return all(rows[k] != rows[m] for k in range(len(rows)) for m in range(k))


def test_a_seed_replays_in_a_fresh_process_and_seeds_differ(tmp_path):
    script, env = _script(tmp_path, None), script_env(tmp_path)
    first, again, other = run_all([(script, env, [s, "0"]) for s in ("11", "11", "12")])
    assert first["kernels"]["draw"]["cache"] == "off"
    assert first["launches"] == again["launches"]
    assert _launches_differ(first)
    draws = {v for row in first["launches"] for v in row}
    assert not draws & {v for row in other["launches"] for v in row}


def test_a_warm_start_draws_what_a_cold_compile_draws(tmp_path):
    script, env = _script(tmp_path, tmp_path / "cache"), script_env(tmp_path)
    cold = run_script(script, env, ["7", "1"])
    assert cold["kernels"]["draw"]["cache"] == "miss"
    warm, uncached, reseeded = run_all(
        [(script, env, ["7", "1"]), (script, env, ["7", "0"]), (script, env, ["8", "1"])]
    )
    assert warm["kernels"]["draw"]["cache"] == "hit"
    assert uncached["kernels"]["draw"]["cache"] == "off"
    assert warm["launches"] == cold["launches"] == uncached["launches"]
    assert _launches_differ(warm)
    # the seed is a launch input: the same cache entry serves another seed, with its numbers
    assert reseeded["kernels"]["draw"]["cache"] == "hit"
    assert reseeded["launches"][0] != cold["launches"][0]
