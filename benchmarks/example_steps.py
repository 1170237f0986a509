"""Time steps of Taichi's own examples, kernels only, ti_notebook beside Taichi 1.7.4.

``make compat`` times whole frames, drawing included, against a Taichi that draws
nothing; this script times what a frame computes: each example's source from the taichi
wheel is loaded with only its import changed (``taichi`` or ``ti_notebook``), its
``ti.init`` forced to the CPU, its ``main()`` not run, and one simulation step (as its
main loop makes it, without the GUI) is timed by the project's timing protocol, with a
``ti.sync()`` in each call. Peers run in fresh processes, alternating, so both see the
same machine. ``--threads 1`` pins both to one worker thread, which keeps the ratio
steady on a shared machine.

    python benchmarks/example_steps.py                 # both examples, all threads
    python benchmarks/example_steps.py --threads 1 --rounds 3

Each row: the median ms per step (IQR) per peer and ti_notebook / Taichi.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# example (path in the wheel's examples folder) -> one step of its main loop, no drawing
STEPS = {
    "simulation/vortex_rings": """
for _ in range(4):  # substeps
    advect()
    integrate_vortex()
""",
    "simulation/euler": """
calc_dt()
copy_to_old()
for rk_step in range(2):
    compute_W()
    if method == 0:
        compute_F_muscl()
    else:
        compute_F_thinc()
    update_Q(rk_step)
    set_bc()
""",
}
SETUP = {"simulation/vortex_rings": "init_tracers()", "simulation/euler": "set_ic()\nset_bc()"}


def example_source(name: str, peer: str, threads: int | None) -> str:
    """The example's source with ``peer`` imported, a CPU ``ti.init`` and no main run."""
    folder = Path(importlib.util.find_spec("taichi").origin).parent / "examples"
    source = (folder / f"{name}.py").read_text()
    source = source.replace("import taichi as ti", f"import {peer} as ti")
    extra = f", cpu_max_num_threads={threads}" if threads else ""
    source = re.sub(r"ti\.init\(arch=ti\.\w+", f"ti.init(arch=ti.cpu, random_seed=1{extra}", source)
    return source.split('if __name__ == "__main__":')[0]


def child(name: str, peer: str, threads: int | None) -> dict:
    """Runs in the peer's process: loads the example, times one step."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.workloads.measure import Timer

    # kernels need their source in a file (both compilers read it back)
    folder = Path(tempfile.mkdtemp(prefix="example_steps_"))
    path = folder / f"{name.replace('/', '_')}_{peer}.py"
    path.write_text(example_source(name, peer, threads))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    exec(SETUP[name], module.__dict__)
    step = compile(STEPS[name], f"{name} step", "exec")
    ti = module.__dict__["ti"]

    def one_step() -> None:
        exec(step, module.__dict__)
        ti.sync()

    figure = Timer(sync=ti.sync).figure(one_step)
    return {"median_ms": figure["median"] * 1e3, "q1": figure["q1"] * 1e3, "q3": figure["q3"] * 1e3}


def run_peer(name: str, peer: str, threads: int | None) -> dict:
    cmd = [sys.executable, __file__, "--child", name, "--peer", peer]
    if threads:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--peer", default="ti_notebook", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=None, help="worker threads per peer")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs per peer")
    parser.add_argument("--only", default="", help="examples whose name contains this")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.peer, args.threads)))
        return 0
    threads = f"{args.threads} thread(s)" if args.threads else "all threads"
    print(f"| example step ({threads}) | ti_notebook ms | Taichi 1.7.4 ms | ratio |")
    print("|---|--:|--:|--:|")
    for name in (n for n in STEPS if args.only in n):
        best: dict[str, dict] = {}
        for _ in range(args.rounds):  # alternating; each peer's best median is kept
            for peer in ("ti_notebook", "taichi"):
                result = run_peer(name, peer, args.threads)
                if "error" in result or result["median_ms"] < best.get(peer, {}).get(
                    "median_ms", float("inf")
                ):
                    best[peer] = result
        cells = []
        for peer in ("ti_notebook", "taichi"):
            r = best[peer]
            cells.append(
                f"error: {r['error']}"
                if "error" in r
                else f"{r['median_ms']:.2f} ({r['q1']:.2f}-{r['q3']:.2f})"
            )
        ok = all("error" not in best[p] for p in best)
        ratio = "-"
        if ok:
            ratio = f"{best['ti_notebook']['median_ms'] / best['taichi']['median_ms']:.2f}"
        print(f"| {name} | {cells[0]} | {cells[1]} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
