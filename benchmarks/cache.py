"""Offline cache (issue 6; not a test): first call of the seeds' sum kernel, cold and warm.

Each figure is a fresh process. "cold" starts from an empty cache directory; "warm" runs
again on the directory the cold run filled. The first call is timed from just before
``sum()`` to just after it returns: tracing, passes, LLVM and loading (or the cache
lookup and object load), plus the launch over 1M f32. ``import`` and ``ti.init`` are
timed separately (``ti.init`` starts the JIT and the thread pool, as Taichi's starts its
runtime). Taichi 1.7.4 runs the same kernel text with its own offline cache, when
installed.

    python benchmarks/cache.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = 7

SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import {module} as ti
ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=sys.argv[1])
t1 = time.perf_counter()
x = ti.field(ti.f32, shape=1000000)
s = ti.field(ti.f32, shape=())

@ti.kernel
def sum():
    for i in x:
        s[None] += x[i]

x.fill(1.0)
t2 = time.perf_counter()
sum()
ti.sync() if hasattr(ti, "sync") else None
t3 = time.perf_counter()
assert s[None] == 1000000.0
print(json.dumps({{"init_ms": (t1 - t0) * 1e3, "first_ms": (t3 - t2) * 1e3}}))
"""


def run_once(module: str, cache_dir: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, TI_LOG_LEVEL="error")
    script = os.path.join(cache_dir, f"first_call_{module}.py")  # kernels need a file
    with open(script, "w") as out:
        out.write(SCRIPT.format(module=module))
    out = subprocess.run(
        [sys.executable, script, os.path.join(cache_dir, "cache")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(module: str) -> dict:
    cold, warm = [], []
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold.append(run_once(module, cache_dir))
            warm.append(run_once(module, cache_dir))
    return {
        "cold": statistics.median(r["first_ms"] for r in cold),
        "warm": statistics.median(r["first_ms"] for r in warm),
        "init_cold": statistics.median(r["init_ms"] for r in cold),
        "init_warm": statistics.median(r["init_ms"] for r in warm),
    }


def main() -> None:
    peers = ["ti_notebook"]
    try:
        import taichi  # noqa: F401

        peers.append("taichi")
    except ImportError:
        print("(taichi not installed: pip install -e '.[bench]' to compare)")
    print(f"first call of the sum kernel in a fresh process, median of {RUNS}")
    head = f"{'peer':12s} {'cold ms':>9s} {'warm ms':>9s} {'warm/cold':>10s}"
    print(f"{head} {'init cold/warm ms':>18s}")
    for peer in peers:
        r = measure(peer)
        init = f"{r['init_cold']:.0f} / {r['init_warm']:.0f}"
        print(
            f"{peer:12s} {r['cold']:9.1f} {r['warm']:9.1f} {r['warm'] / r['cold']:10.2f} "
            f"{init:>18s}"
        )


if __name__ == "__main__":
    main()
