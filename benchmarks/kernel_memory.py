"""How much a process grows when a kernel cell is re-run many times (not a test).

Each scenario runs in a fresh process: a ``%%kernel`` cell defining one small kernel,
re-run N times in an IPython shell (with the offline cache, as a notebook runs it: the
first run compiles, the others load; and with ``--no-cache``: every run compiles), and a
plain ``@ti.kernel`` redefined N times. It prints the growth of the resident set after a
warm-up of 20 runs, per run, and how many kernel objects are still loaded at the end
(``runtime/cpu/kernel_code.py``: dropped kernels free their machine code).

    python benchmarks/kernel_memory.py [--runs 500]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

WARMUP = 20

_SCENARIO = r"""
import gc, json, linecache, os, sys
def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
runs, mode, cache_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
import ti_notebook as ti
from ti_notebook.runtime.cpu import kernel_code
if mode == "plain":
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=16)
    def run(k):
        src = f"@ti.kernel\ndef fill(v: ti.f32):\n    for i in x:\n        x[i] = v + {k}\n"
        name = f"<redefinition {k}>"
        linecache.cache[name] = (len(src), None, src.splitlines(True), name)
        scope = {"ti": ti, "x": x}
        exec(compile(src, name, "exec"), scope)
        scope["fill"](1.0)
else:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell.instance()
    with capture_output():
        shell.run_cell(
            "import ti_notebook as ti\n%load_ext ti_notebook\n"
            f"ti.init(arch=ti.cpu, offline_cache_file_path={cache_dir!r})\n"
            "x = ti.field(ti.f32, shape=16)",
            store_history=True,
        )
    flags = " --no-cache" if mode == "no-cache" else ""
    cell = f"%%kernel{flags}\ny = ti.field(ti.f32, shape=16)\n"
    cell += "def fill(v: ti.f32):\n    for i in x:\n        x[i] = v + y[i]\n"
    def run(k):
        with capture_output():
            result = shell.run_cell(cell, store_history=True)
        assert result.success, result.error_in_exec
for k in range(WARMUP):
    run(k)
gc.collect()
before = rss_mib()
for k in range(runs):
    run(WARMUP + k)
gc.collect()
print(json.dumps({"grown_mib": rss_mib() - before, "live": kernel_code.live_count()}))
""".replace("WARMUP", str(WARMUP))

SCENARIOS = {
    "%%kernel cell re-run (offline cache on)": "cell",
    "%%kernel --no-cache cell re-run (compiles each run)": "no-cache",
    "@ti.kernel redefined (compiles each run)": "plain",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    runs = parser.parse_args().runs
    print(f"# {runs} runs after {WARMUP} warm-up runs, each scenario in a fresh process")
    print(f"{'scenario':55s} {'RSS growth MiB':>15s} {'KiB/run':>9s} {'loaded':>7s}")
    for label, mode in SCENARIOS.items():
        with tempfile.TemporaryDirectory() as cache_dir:
            out = subprocess.run(
                [sys.executable, "-c", _SCENARIO, str(runs), mode, cache_dir],
                capture_output=True,
                text=True,
                check=True,
                env=dict(os.environ, TI_DEBUG="0"),
            ).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        grown = figures["grown_mib"]
        print(f"{label:55s} {grown:15.1f} {grown * 1024 / runs:9.1f} {figures['live']:7d}")


if __name__ == "__main__":
    main()
