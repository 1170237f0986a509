"""The GPU figures: ``benchmarks/gpu.py``'s rows, one subprocess per peer (``gpu.py``'s
docstring says what they are and how they are timed).

The parent (:func:`collect`) runs ``python -m benchmarks.gpu_check.bench --peer P --child``
for ti_notebook and for Taichi, reads the JSON lines each prints (one per row and phase),
and starts a fresh child for the groups left when one dies or saw a failure (a CUDA
error can leave a context unusable). A child runs each group in a session of its own.

    python -m benchmarks.gpu_check.bench --peer taichi --child --fake --groups sum
"""

from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import importlib
import importlib.util
import json
import subprocess
import sys
import time
import traceback
from pathlib import Path

from benchmarks.gpu_check import device as gpu_device
from benchmarks.gpu_check import report as gpu_report
from benchmarks.gpu_check import workloads
from benchmarks.workloads.measure import one_line, protocol

ROOT = Path(__file__).resolve().parents[2]
FAKE_DEVICE = ROOT / "tests" / "cuda" / "fake_device.py"
MARK = "@@"  # prefix of the JSON lines a child prints; Taichi's banner goes to stdout too
PEERS = ("ti_notebook", "taichi")
GPU_ROUNDS, FAKE_ROUNDS = 15, 1
GPU_MIN_SAMPLE_S = 2e-3  # back-to-back launches per sample, well above launch jitter
DEVICE_CALLS = {False: 20, True: 2}  # event-timed calls per row: GPU, fake
GROUP_TIMEOUT_S = {False: 100, True: 120}  # one group in a child: GPU, fake (loaded CPUs)
FAILED_EXIT = 3  # a child that saw a failure stops after its group: a fresh process goes on


# -- child side: one peer, JSON lines ------------------------------------------------------
def emit(record: dict) -> None:
    print(MARK + json.dumps(record), flush=True)


def start_session(ti, peer: str, fake: bool, kernel_profiler: bool) -> str:
    """Starts a CUDA session of ``peer``; returns the arch it got. Raises when a real-GPU
    run fell back to the CPU (its figures would not be CUDA figures)."""
    options = {"offline_cache": False, "kernel_profiler": kernel_profiler}
    if peer == "ti_notebook":
        if fake:
            _use_fake_device()
        ti.init(arch=ti.cuda, cuda_sim=fake, **options)
        arch = ti.current_arch()
    else:
        ti.init(arch=ti.cuda, **options)
        arch = ti.lang.impl.current_cfg().arch.name
    if arch != "cuda" and not (fake and peer == "taichi"):
        raise RuntimeError(f"{peer}: ti.init(arch=ti.cuda) fell back to {arch}")
    return "fake device" if fake and peer == "ti_notebook" else arch


_fake_backend = None


def _use_fake_device() -> None:
    """CUDA sessions compile through the device backend on the fake driver, for good."""
    global _fake_backend
    if _fake_backend is not None:
        return
    spec = importlib.util.spec_from_file_location("fake_device", FAKE_DEVICE)
    fake = importlib.util.module_from_spec(spec)
    sys.modules["fake_device"] = fake
    spec.loader.exec_module(fake)
    from ti_notebook.session import config as config_module

    _fake_backend = fake.FakeDeviceBackend(fake.FakeContext())
    original = config_module.Config.backend
    config_module.Config.backend = lambda config: (
        _fake_backend if config.arch == "cuda" else original(config)
    )


def time_row(ti, row: workloads.Row, fake: bool) -> dict:
    """The first call (checked), then the protocol's median and IQR, in ms."""
    if row.prepare is not None:
        row.prepare()
    started = time.perf_counter()
    row.call()
    ti.sync()
    first = time.perf_counter() - started
    row.check()
    sync = (lambda: None) if row.sync_each_call else ti.sync
    candidate = protocol.Candidate(row.key, row.call, prepare=row.prepare)
    (timing,) = protocol.measure(
        [candidate],
        rounds=FAKE_ROUNDS if fake else GPU_ROUNDS,
        warmup=0 if fake else 1,
        sync=sync,
        min_sample_s=protocol.MIN_SAMPLE_S if fake else GPU_MIN_SAMPLE_S,
    )
    s = timing.summary
    figure = {"median_ms": s.median * 1e3, "q1_ms": s.q1 * 1e3, "q3_ms": s.q3 * 1e3}
    figure.update(runs=s.n, calls_per_sample=timing.calls_per_sample, first_ms=first * 1e3)
    if row.nbytes:
        figure["gbps"] = row.nbytes / s.median / 1e9
    return figure


def device_time_row(ti, row: workloads.Row, fake: bool) -> dict:
    """Device time per call (CUDA events of the kernel profiler), in ms."""
    if row.prepare is not None:
        row.prepare()
    row.call()
    ti.sync()
    row.check()
    calls = DEVICE_CALLS[fake]
    ti.profiler.clear_kernel_profiler_info()
    for _ in range(calls):
        row.call()
    ti.sync()
    device_ms = ti.profiler.get_kernel_profiler_total_time() / calls * 1e3
    figure = {"device_ms": device_ms}
    if row.nbytes and device_ms > 0:
        figure["gbps_device"] = row.nbytes / device_ms / 1e6
    return figure


def run_group(ti, peer: str, group: str, sizes, fake: bool) -> bool:
    """Times ``group``'s rows, one record per row and phase; True when any failed.

    On a GPU the wall-clock phase runs without the kernel profiler (its events would be
    part of the time) and the CUDA-events phase in a second session; on the fake device,
    where no time is a figure, one session with the profiler serves both (half the
    compiles).
    """
    timers = {"wall": time_row, "device": device_time_row}
    sessions = [(("wall", "device"), True)] if fake else [(("wall",), False), (("device",), True)]
    failed = False
    for phases, profiler in sessions:
        try:
            arch = start_session(ti, peer, fake, kernel_profiler=profiler)
            rows = workloads.build_group(ti, group, sizes)
        except Exception as error:
            for key in workloads.row_keys(group):
                for phase in phases:
                    emit({"row": key, "phase": phase, **_failure(error)})
            return True
        emit({"meta": {"arch": arch}})
        for row in rows:
            for phase in phases:
                if phase == "device" and not row.device_time:
                    continue
                try:
                    figure = timers[phase](ti, row, fake)
                    emit({"row": row.key, "phase": phase, "title": row.title, "figure": figure})
                except Exception as error:
                    emit({"row": row.key, "phase": phase, "title": row.title, **_failure(error)})
                    failed = True
    return failed


def _failure(error: BaseException) -> dict:
    return {"error": one_line(error), "traceback": traceback.format_exc()}


def child(peer: str, groups: list[str], fake: bool) -> int:
    ti = importlib.import_module(peer)
    version = getattr(ti, "__version__", "")  # Taichi's is a tuple, (1, 7, 4)
    if isinstance(version, tuple):
        version = ".".join(map(str, version))
    emit({"meta": {"peer": peer, "version": str(version)}})
    sizes = workloads.FAKE_SIZES if fake else workloads.GPU_SIZES
    for k, group in enumerate(groups):
        # a kernel that never ends (a barrier deadlock) costs this group, not the budget:
        # every thread's traceback, then exit; the parent goes on with the next group
        faulthandler.dump_traceback_later(GROUP_TIMEOUT_S[fake], exit=True)
        failed = run_group(ti, peer, group, sizes, fake)
        faulthandler.cancel_dump_traceback_later()
        emit({"group_done": group})
        if failed and k + 1 < len(groups):
            return FAILED_EXIT
    return 0


# -- parent side: one child per peer, restarted after a crash ------------------------------
def spawn(peer: str, groups: list[str], fake: bool, timeout_s: float) -> tuple[list, int, str]:
    """(records, exit code, stderr tail) of one child; -1 when it ran out of time."""
    cmd = [sys.executable, "-m", "benchmarks.gpu_check.bench", "--peer", peer, "--child"]
    cmd += ["--groups", ",".join(groups)] + (["--fake"] if fake else [])
    try:
        done = subprocess.run(
            cmd, cwd=ROOT, capture_output=True, text=True, timeout=max(timeout_s, 1)
        )
        out, err, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        err, code = f"{err}\ntimed out after {timeout_s:.0f} s (the time budget)", -1
    records = [json.loads(line[len(MARK) :]) for line in out.splitlines() if line.startswith(MARK)]
    return records, code, "\n".join((err or "").strip().splitlines()[-40:])


def collect_peer(peer: str, groups: list[str], fake: bool, deadline: float) -> dict:
    """{"meta", "rows": {key: {"title", "figure"|"error", "device"...}}, "notes", "crashes"}
    of ``peer``: a crash's log (stderr's tail) is kept even where its rows had figures
    (it died in the CUDA-events phase)."""
    result: dict = {"meta": {}, "rows": {}, "notes": [], "crashes": []}
    remaining = list(groups)
    while remaining:
        left = deadline - time.monotonic()
        if left < 5:
            result["notes"].append(f"not run (time budget spent): {', '.join(remaining)}")
            for group in remaining:
                for key in workloads.row_keys(group):
                    result["rows"].setdefault(key, {})["skipped"] = "time budget spent"
            break
        records, code, err = spawn(peer, remaining, fake, left)
        for record in records:
            _merge(result, record)
            if "group_done" in record:
                remaining.remove(record["group_done"])
        if not remaining or code == FAILED_EXIT:
            continue
        # it died inside remaining[0], or before its first group (then in all of them:
        # an import that fails would fail again)
        lost = remaining if not records else remaining[:1]
        why = f"process ended (exit {code}) during this group"
        if not records:
            why = f"process ended (exit {code}) before its first row"
        result["crashes"].append({"groups": lost, "why": why, "log": err})
        for group in lost:
            for key in workloads.row_keys(group):
                entry = result["rows"].setdefault(key, {})
                if "figure" not in entry and "error" not in entry:
                    entry.update(error=why, traceback=err)
        remaining = remaining[len(lost) :]
    return result


def _merge(result: dict, record: dict) -> None:
    if "meta" in record:
        result["meta"].update(record["meta"])
    if "row" not in record:
        return
    entry = result["rows"].setdefault(record["row"], {})
    if record.get("title"):
        entry["title"] = record["title"]
    # the wall-clock phase fills "figure"/"error", the CUDA-events phase "device"/...
    prefix = "" if record["phase"] == "wall" else "device_"
    if "figure" in record:
        entry["figure" if record["phase"] == "wall" else "device"] = record["figure"]
    elif "error" in record:
        entry[f"{prefix}error"] = record["error"]
        entry[f"{prefix}traceback"] = record["traceback"]


def not_installed(peer: str, groups: list[str]) -> dict:
    """The result of a peer that cannot be imported here: every row "not run", one note.

    >>> not_installed("no_such_peer", ["sum"])["rows"]["sum"]
    {'skipped': 'no_such_peer is not installed'}
    """
    why = f"{peer} is not installed"
    hint = " (`pip install taichi==1.7.4` adds the comparison)" if peer == "taichi" else ""
    rows = {key: {"skipped": why} for group in groups for key in workloads.row_keys(group)}
    return {"meta": {"arch": "not installed"}, "rows": rows, "notes": [why + hint], "crashes": []}


def collect(peers: list[str], groups: list[str], fake: bool, budget_s: float) -> dict:
    """Every peer's rows within ``budget_s`` seconds (shared out among the peers left)."""
    started = time.monotonic()
    device = gpu_device.describe(fake)
    fake = device.fake
    results = {
        "mode": "fake" if fake else "gpu",
        "device": dataclasses.asdict(device),
        "sizes": dataclasses.asdict(workloads.FAKE_SIZES if fake else workloads.GPU_SIZES),
        "order": [key for group in groups for key in workloads.row_keys(group)],
        "peers": {},
    }
    for k, peer in enumerate(peers):
        if importlib.util.find_spec(peer) is None:  # an optional peer: not a failure
            results["peers"][peer] = not_installed(peer, groups)
            continue
        share = (started + budget_s - time.monotonic()) / (len(peers) - k)
        results["peers"][peer] = collect_peer(peer, groups, fake, time.monotonic() + share)
    results["elapsed_s"] = time.monotonic() - started
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=PEERS, help="with --child: run this peer only")
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--groups", default=",".join(workloads.GROUPS))
    parser.add_argument("--fake", action="store_true", help="the fake device even with a GPU")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=float, default=300.0, help="seconds for all peers")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    groups = [g for g in args.groups.split(",") if g]
    unknown = sorted(set(groups) - set(workloads.GROUPS))
    if unknown:
        parser.error(f"unknown groups {unknown}; choose from {list(workloads.GROUPS)}")
    if args.child:
        # the parent says --fake; the child never looks (Taichi's process loads no ti_notebook)
        return child(args.peer, groups, args.fake)
    results = collect([p for p in args.peers.split(",") if p], groups, args.fake, args.budget)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print("\n".join(gpu_report.bench_markdown(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
