"""Side by side (not a test): the same workloads in ti_notebook, Taichi, Numba, NumPy.

Each peer runs in its own subprocess, so Taichi and ti_notebook never share a process;
cold compile runs in fresh processes of its own. The ti_notebook and Taichi kernels are
one text (``workloads/ti_peer.py``, called with either module). The table goes to
stdout and to ``benchmarks/results.md``.

    python benchmarks/compare.py                         # everything, writes results.md
    python benchmarks/compare.py --peers ti_notebook,taichi --groups reduce,mpm
    python benchmarks/compare.py --peer taichi           # one peer, human-readable
    python benchmarks/compare.py --peer taichi --json    # one peer, JSON lines
    python benchmarks/compare.py --peer numba --cold     # one cold-compile figure
    python benchmarks/compare.py --peers ti_notebook,ti_notebook_unchecked --no-cold
                                       # bounds checks on against off

``ti_notebook_unchecked`` is ti_notebook with ``ti.init(check_bounds=False)``: the
table shows it beside ti_notebook (checks on, the default) and their ratio.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from workloads import report, spec
from workloads.measure import Timer, one_line, protocol

HERE = Path(__file__).resolve().parent
MARK = "@@"  # prefix of the JSON lines a child prints; Taichi's banner goes to stdout too
CHILD_TIMEOUT_S = 300
COLD_RUNS = 3
ROUNDS = 3
COLD_PEERS = ["ti_notebook", "taichi", "numba"]
NOTES = [
    "- Same sizes and dtypes (f32) everywhere; `ti.init(arch=ti.cpu)` with default options "
    "for the throughput rows, `offline_cache=False` for the cold rows (both ti modules).",
    "- ti_notebook runs with its bounds checks on (the default); the `checks off` column is "
    "the same code with `ti.init(check_bounds=False)`, in the same run; `on/off` is their "
    f"ratio of medians (target ≤ {report.CHECKS_TARGET:g}).",
    "- Every peer's first call is checked against NumPy before it is timed.",
    "- Reductions and P2G reset their outputs untimed before each run (grid `fill(0)` for "
    "the ti peers; Numba clears its per-thread grids inside the timed call).",
    "- Numba: `@njit(parallel=True)` + `prange`, f32 constants. AoS is one (n, 2) array, "
    "SoA two arrays, column-major a Fortran-order array, 8×8-blocked a (512, 512, 8, 8) "
    "array. P2G is atomics-free: each thread scatters its chunk of particles into a "
    "private 64³ grid, then a second `prange` sums the private grids. The empty launch "
    "is a call of an empty `@njit` function.",
    "- NumPy: single-threaded ufuncs with temporaries; struct-for rows use broadcast "
    "i/j index vectors; P2G uses `np.bincount` (f64 accumulation) over the 27 "
    "neighbours; fill is `a[:] = v`.",
    "- Bandwidth ceiling: NumPy's copy is a memcpy (non-temporal stores); a loop's copy "
    "also reads each destination line before writing it.",
    "- MPM: particles sorted by cell; tuned loop config: "
    f"`ti.loop_config(block_dim={spec.MPM_BLOCK_DIM}, parallelize={spec.MPM_THREADS})`.",
]


# -- child side: one peer in this process -------------------------------------------------
def peer_groups(peer: str) -> tuple[dict, Timer, dict]:
    """(group name -> callable(timer), timer, meta) for ``peer``."""
    if peer in ("ti_notebook", "taichi", report.UNCHECKED):
        from workloads import ti_init, ti_peer

        if peer == report.UNCHECKED:  # the same ti_notebook, its bounds checks off
            ti_init.INIT_OPTIONS = {"check_bounds": False}
            peer = "ti_notebook"
        ti = importlib.import_module(peer)
        version = getattr(ti, "__version__", "?")
        if isinstance(version, tuple):
            version = ".".join(map(str, version))
        groups = {name: (lambda timer, fn=fn: fn(ti, timer)) for name, fn in ti_peer.GROUPS.items()}
        sync = getattr(ti, "sync", None)
        return groups, Timer(sync), {"version": version, "has_sync": sync is not None}
    module = importlib.import_module(f"workloads.{peer}_peer")
    lib = importlib.import_module(peer)
    return module.GROUPS, Timer(), {"version": lib.__version__}


def emit(record: dict, as_json: bool) -> None:
    if as_json:
        print(MARK + json.dumps(record), flush=True)
        return
    for key, figure in record.get("rows", {}).items():
        row = spec.ROWS_BY_KEY[key]
        print(f"{row.label:48s} {report.cell(figure, row.unit)} {row.unit}", flush=True)
    if "meta" in record:
        print(f"# {record['meta']}", flush=True)


def run_child(peer: str, groups: list[str], as_json: bool) -> None:
    table, timer, meta = peer_groups(peer)
    emit({"meta": meta}, as_json)
    for group in groups:
        if group not in table:  # a pattern this peer cannot express: its cells stay empty
            emit({"group": group, "rows": {}}, as_json)
            continue
        try:
            rows = table[group](timer)
        except Exception as exc:
            rows = {key: {"error": one_line(exc)} for key in spec.rows_of(group)}
        emit({"group": group, "rows": rows}, as_json)


def run_cold_child(peer: str, as_json: bool) -> None:
    from workloads.cold import cold

    try:
        record = {"cold": cold(peer)}
    except Exception as exc:
        record = {"cold": {"error": one_line(exc)}}
    if as_json:
        print(MARK + json.dumps(record), flush=True)
    else:
        print(record["cold"])


# -- parent side: orchestrate subprocesses ------------------------------------------------
def spawn(args: list[str]) -> tuple[list[dict], int, str]:
    """(JSON records, return code, last stderr line) of ``compare.py args --json``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *args, "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err, code = f"timed out after {CHILD_TIMEOUT_S} s", -1
    records = [json.loads(line[len(MARK) :]) for line in out.splitlines() if line.startswith(MARK)]
    tail = [line for line in (err or "").strip().splitlines() if line.strip()]
    return records, code, tail[-1] if tail else ""


def collect_peer(peer: str, groups: list[str]) -> tuple[dict, dict]:
    """({row key: figure}, meta) of ``peer``; a crashed child is restarted after its group."""
    rows, meta, remaining = {}, {}, list(groups)
    while remaining:
        start = time.perf_counter()
        records, code, last_err = spawn(["--peer", peer, "--groups", ",".join(remaining)])
        for record in records:
            meta.update(record.get("meta", {}))
            if "group" in record:
                rows.update(record["rows"])
                remaining.remove(record["group"])
        took = time.perf_counter() - start
        print(f"  {peer}: {len(records)} records in {took:.1f} s", file=sys.stderr)
        if remaining:
            crashed = remaining.pop(0)
            why = f"process died (exit {code}): {last_err}"[:200]
            print(f"  {peer} / {crashed}: {why}", file=sys.stderr)
            for key in spec.rows_of(crashed):
                rows[key] = {"error": why}
    return rows, meta


def collect_cold(peer: str) -> tuple[dict, list[str]]:
    samples: dict[str, list[float]] = {"import_init": [], "cold_compile": []}
    errors, notes = [], []
    for _ in range(COLD_RUNS):
        records, code, last_err = spawn(["--peer", peer, "--cold"])
        cold = records[0]["cold"] if records else {"error": f"exit {code}: {last_err}"}
        if "error" in cold:
            errors.append(cold["error"])
            continue
        for key in samples:
            samples[key].append(cold[key])
        if cold.get("note"):
            notes.append(f"- cold {peer}: {cold['note']}")
    rows = {}
    for key, values in samples.items():
        if values:
            summary = protocol.Summary.of(values)
            rows[key] = {
                "median": summary.median,
                "q1": summary.q1,
                "q3": summary.q3,
                "runs": summary.n,
            }
        else:
            rows[key] = {"error": errors[0] if errors else "no figure"}
    return rows, sorted(set(notes))


def git(*args: str) -> str:
    """``git args`` in this repository, stripped; "" where git is unavailable."""
    try:
        done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True)
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def machine(metas: dict) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = ", ".join(f"{peer} {meta.get('version', '?')}" for peer, meta in metas.items())
    rev = git("rev-parse", "--short", "HEAD") or "?"
    if git("status", "--porcelain", "--", "ti_notebook"):
        rev += " + uncommitted ti_notebook changes"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "versions": f"Python {platform.python_version()}, {versions} (ti_notebook at {rev}); "
        f"{time.strftime('%Y-%m-%d')}",
    }


def merge(old: dict, new: dict) -> dict:
    """Per row, the round with the lower median; an error in any round stays visible."""
    out = dict(old)
    for key, figure in new.items():
        prev = out.get(key)
        new_error = "error" in figure and "error" not in prev if prev else False
        faster = "median" in figure and prev and figure["median"] < prev.get("median", 0.0)
        if prev is None or new_error or faster:
            out[key] = figure
    return out


def judge_bandwidth():
    """GB/s and working-set bytes -> (share text, flag or None), against this machine's
    ceilings as ti_notebook measures them (per memory level, all cores; measured once per
    CPU model and cached), or None when ti_notebook cannot be imported here."""
    try:
        import ti_notebook as ti
        from ti_notebook.measure import levels
    except ImportError:
        return None
    ti.init(arch=ti.cpu)
    ceilings = ti.profiler.machine_ceilings()

    def judge(gbps: float, working_set: int) -> tuple[str, str | None]:
        verdict = levels.judge(gbps, working_set, ceilings, threads=ceilings.threads)
        return f"{verdict.level}: {100 * verdict.fraction:.0f} %", verdict.flag

    judge.ceilings = ceilings.describe()
    return judge


def run_all(peers: list[str], groups: list[str], rounds: int, cold: bool, out: Path | None) -> None:
    results: dict = {peer: {} for peer in peers}
    metas, notes = {}, list(NOTES)
    load_before = os.getloadavg()[0]
    # Rounds alternate the peers group by group (a process per peer and group), so a
    # burst of load from elsewhere hits one group of one peer, not all of its figures,
    # and the peers' figures of one row (checks on and off, above all) are taken seconds
    # apart. Every other round runs them in reverse: the first process after another
    # group was measured 5-15 % slower on some rows (same machine code, checks on/off).
    for round_no in range(1, rounds + 1):
        for group in groups:
            for peer in peers if round_no % 2 else peers[::-1]:
                print(f"== {peer} / {group} (round {round_no}/{rounds})", file=sys.stderr)
                rows, meta = collect_peer(peer, [group])
                metas.setdefault(peer, {}).update(meta)
                results[peer] = merge(results[peer], rows)
    if cold:
        for peer in (p for p in COLD_PEERS if p in peers):
            print(f"== cold {peer} ({COLD_RUNS} fresh processes)", file=sys.stderr)
            rows, cold_notes = collect_cold(peer)
            results[peer].update(rows)
            notes += cold_notes
    if "ti_notebook" in metas and not metas["ti_notebook"].get("has_sync"):
        notes.append(
            "- ti_notebook has no `ti.sync()`: its figures assume launches return when the "
            "work is done (Taichi's are followed by `ti.sync()`)."
        )
    if rounds > 1:
        notes.append(
            f"- Each peer ran {rounds} times, alternating with the others group by group; per "
            "row the round with the lowest median is shown."
        )
    notes.append(
        f"- Load average (1 min) {load_before:.2f} before, {os.getloadavg()[0]:.2f} after the "
        "run: anything above ~0.1 means other processes shared the cores."
    )
    text = report.render(results, machine(metas), notes, judge_bandwidth())
    print(text)
    if out is not None:
        out.write_text(text)
        print(f"wrote {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=report.PEERS, help="run one peer in this process")
    parser.add_argument("--json", action="store_true", help="child output: JSON lines")
    parser.add_argument("--cold", action="store_true", help="with --peer: one cold compile")
    parser.add_argument("--peers", default=",".join(report.PEERS), help="comma-separated")
    parser.add_argument("--groups", default=",".join(spec.GROUPS), help="comma-separated")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="runs of each peer")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-compile rows")
    parser.add_argument("--out", default=str(HERE / "results.md"), help="'' to skip writing")
    args = parser.parse_args(argv)
    groups = [g for g in args.groups.split(",") if g]
    unknown = sorted(set(groups) - set(spec.GROUPS))
    if unknown:
        parser.error(f"unknown groups {unknown}; known: {spec.GROUPS}")
    if args.peer and args.cold:
        run_cold_child(args.peer, args.json)
    elif args.peer:
        run_child(args.peer, groups, args.json)
    else:
        peers = [p for p in args.peers.split(",") if p]
        out = Path(args.out) if args.out else None
        run_all(peers, groups, max(1, args.rounds), not args.no_cold, out)


if __name__ == "__main__":
    main()
