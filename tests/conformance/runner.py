"""The parent side: a subprocess per example and backend, with a timeout; one row each.

Each run is ``python -m tests.conformance.child`` in a scratch folder of its own (the
files an example writes land there), in a new process group, so a run past its
timeout is killed with everything it started. A run that dies without writing its
result (a signal, an abort in C code) is reported from its exit status and the last
line of its output. Taichi's run is the reference: when it fails too, the row says
so instead of blaming ti_notebook. An example that draws frames passes only when
ti_notebook's own GUI kept a picture of its last frame (:attr:`Run.picture`).

>>> Row("minimal", "skip", reason="GGUI: ti.ui.Window (line 3)").passed
False
>>> signal_name(-11)
'SIGSEGV'
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.conformance import compare, examples, settings, skips

REPO_ROOT = Path(__file__).resolve().parents[2]
REFERENCE, CANDIDATE = "taichi", "ti_notebook"
CHILD_ENV = {
    "MPLBACKEND": "Agg",  # matplotlib draws nowhere
    "TI_SKIP_VERSION_CHECK": "on",  # no network thread in Taichi's runs
    "PYTHONHASHSEED": "0",
    "PYTHONUNBUFFERED": "1",
    "PYTHONFAULTHANDLER": "1",  # a crash leaves its Python stack in the log
}
KILL_GRACE_S = 10
CRASH_ATTEMPTS = 3  # Taichi 1.7.4 segfaults now and then in launch_kernel on the CPU
_THREAD_HEADER = re.compile(r"(Current thread|Thread) 0x[0-9a-f]+ .*most recent call first")
_FRAME = re.compile(r'File "(.*)", line (\d+) in (.*)')


def signal_name(returncode: int) -> str:
    """``-11`` -> ``SIGSEGV``; other codes as ``exit status N``."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


@dataclass
class Run:
    """One backend's run of one example, as the child reported it (or as it died)."""

    backend: str
    status: str  # "ok", "error", "timeout" or "crash"
    result: dict[str, Any] = field(default_factory=dict)
    arrays_path: Path | None = None
    log_path: Path | None = None

    @property
    def problem(self) -> str:
        """The error and where it happened, the way the table shows it."""
        if self.status == "ok":
            return ""
        text = self.result.get("error", self.status)
        where = self.result.get("where")
        return f"{text} ({where})" if where else text

    def arrays(self) -> dict[str, np.ndarray]:
        if self.arrays_path is None or not self.arrays_path.exists():
            return {}
        with np.load(self.arrays_path) as data:
            return {key: data[key] for key in data.files}

    def timing(self, key: str) -> float | None:
        return self.result.get(key)

    @property
    def pictures(self) -> list[dict[str, Any]]:
        """ti_notebook's windows that showed frames, with the PNG of each one's last frame."""
        return self.result.get("pictures") or []

    @property
    def picture(self) -> str:
        """``yes`` (every window kept its last frame), ``no: <why>``, or ``""`` (none drew).

        >>> Run("ti_notebook", "ok", {"pictures": [{"window": "GUI 'a'", "size": [4, 2]}]}).picture
        'yes'
        >>> Run("ti_notebook", "ok", {"pictures": [{"window": "Window 'w'", "size": None,
        ...     "missing": "has no last_frame"}]}).picture
        "no: Window 'w' has no last_frame"
        """
        missing = [f"{p['window']} {p.get('missing', 'kept none')}" for p in self.pictures
                   if p.get("size") is None]  # fmt: skip
        if missing:
            return "no: " + "; ".join(missing)
        return "yes" if self.pictures else ""


@dataclass
class Row:
    """One example: pass / fail / skip (or "ran" with one backend), and why."""

    name: str
    status: str
    reason: str = ""
    category: str = ""  # skip category, or whose fault a failure is
    note: str = ""
    runs: dict[str, Run] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def crash_detail(log: str) -> str:
    """Where a dead run was: the innermost frame faulthandler printed for the crashing
    thread (and the innermost one in an example, when that is another), else the last line.

    >>> crash_detail("Fatal Python error: Segmentation fault\\n"
    ...              "Thread 0x1 (most recent call first):\\n"
    ...              '  File "/x/taichi/lang/kernel_impl.py", line 971 in launch_kernel\\n'
    ...              '  File "/x/taichi/examples/simulation/euler.py", line 139 in step\\n')
    'in launch_kernel (kernel_impl.py:971), from simulation/euler.py:139'
    """
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    headers = [i for i, line in enumerate(lines) if _THREAD_HEADER.match(line)]
    current = [i for i in headers if lines[i].startswith("Current thread")]
    if not headers:
        return lines[-1][:240] if lines else ""
    frames = []
    for line in lines[(current or headers)[0] + 1 :]:
        match = _FRAME.match(line)
        if match is None:
            break
        frames.append(match.groups())
    if not frames:
        return lines[-1][:240]
    path, number, function = frames[0]
    detail = f"in {function} ({Path(path).name}:{number})"
    for path, number, _ in frames[1:]:
        if "/examples/" in path:
            return f"{detail}, from {path.split('/examples/', 1)[1]}:{number}"
    return detail


def run_child(
    backend: str, name: str, frames: int, timeout: float, workdir: Path, root: Path | None = None,
    pictures: Path | None = None,
) -> Run:  # fmt: skip
    """Runs ``name`` (under ``root``, the wheel's examples by default) with ``backend`` in a
    subprocess; waits at most ``timeout`` seconds. ti_notebook's last frames go to
    ``pictures`` (default: the run's scratch folder)."""
    scratch = workdir / backend / name.replace("/", "__")
    scratch.mkdir(parents=True, exist_ok=True)
    result_path, arrays_path, log_path = (
        scratch / "result.json",
        scratch / "arrays.npz",
        scratch / "output.log",
    )
    for stale in (result_path, arrays_path):  # a former attempt's, in a kept folder
        stale.unlink(missing_ok=True)
    command = [sys.executable, "-m", "tests.conformance.child", "--backend", backend]
    command += ["--example", name, "--frames", str(frames)]
    command += ["--result", str(result_path), "--arrays", str(arrays_path)]
    if root is not None:
        command += ["--root", str(root)]
    command += ["--pictures", str(pictures or scratch)]
    env = dict(os.environ, **CHILD_ENV)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the group this call started
            process.wait(timeout=KILL_GRACE_S)
            return Run(
                backend, "timeout", {"error": f"timeout after {timeout:g} s"}, None, log_path
            )
    if not result_path.exists():
        detail = crash_detail(log_path.read_text(errors="replace"))
        error = f"crashed ({signal_name(process.returncode)}): {detail}"
        return Run(backend, "crash", {"error": error}, None, log_path)
    result = json.loads(result_path.read_text())
    return Run(backend, result.get("status", "error"), result, arrays_path, log_path)


def run_with_retry(backend: str, name: str, frames: int, timeout: float, workdir: Path,
                   root: Path | None = None, pictures: Path | None = None) -> Run:  # fmt: skip
    """:func:`run_child`, again when the process dies (Taichi's CPU runs sometimes do), up
    to :data:`CRASH_ATTEMPTS` runs; the result says how the first one died."""
    run = run_child(backend, name, frames, timeout, workdir, root, pictures)
    first, attempts = run.result.get("error"), 1
    while run.status == "crash" and attempts < CRASH_ATTEMPTS:
        run = run_child(backend, name, frames, timeout, workdir, root, pictures)
        attempts += 1
    if attempts > 1:
        run.result["retried"] = f"{first}; {attempts} runs"
    return run


def _judge(name: str, source: str, runs: dict[str, Run]) -> Row:
    """Pass / fail from the two runs: errors first, then the arrays."""
    setting = settings.setting_for(name)
    row = Row(name, "fail", note=setting.note, runs=runs)
    reference, candidate = runs.get(REFERENCE), runs.get(CANDIDATE)
    if reference is None or candidate is None:  # one backend only: did it run?
        (only,) = runs.values()
        row.status = "ran" if only.status == "ok" else "fail"
        row.reason, row.category = only.problem, only.result.get("blame", only.status)
        if only.status == "ok" and only.picture.startswith("no"):
            row.status, row.reason, row.category = "fail", only.picture, "picture"
        return row
    if reference.status != "ok":
        row.reason, row.category = f"Taichi fails too: {reference.problem}", "reference"
        return row
    if candidate.status != "ok":
        row.reason, row.category = (
            candidate.problem,
            candidate.result.get("blame", candidate.status),
        )
        return row
    reference_arrays = reference.arrays()
    mismatches = compare.compare(
        reference_arrays,
        candidate.arrays(),
        compare.tolerance_for(name, source),
        reference.result.get("dump_errors"),
        candidate.result.get("dump_errors"),
    )
    if mismatches:
        row.reason, row.category = compare.summarize(mismatches), "results"
        return row
    shown = reference.result.get("frames") or 0
    if candidate.picture.startswith("no") or (shown and not candidate.picture):
        row.reason = candidate.picture or f"no picture: Taichi's run showed {shown} frames"
        row.category = "picture"
        return row
    row.status = "pass"
    if not reference_arrays:
        row.reason = "ran; no arrays to compare"
    return row


def run_example(
    root: Path, name: str, backends: list[str], frames: int | None, timeout: float | None,
    workdir: Path, keep_arrays: bool = False, pictures: Path | None = None,
) -> Row:  # fmt: skip
    """Skip it, or run it with every backend and judge the runs; ti_notebook's last frames
    go to ``pictures`` (default: each run's scratch folder)."""
    source = examples.source_path(root, name).read_text()
    setting = settings.setting_for(name)
    skip = skips.detect(source, setting)
    if skip is not None:
        return Row(name, "skip", skip.reason, skip.category, setting.note)
    runs = {
        backend: run_with_retry(
            backend,
            name,
            settings.frames_for(name, frames),
            settings.timeout_for(name, timeout),
            workdir,
            root,
            pictures,
        )
        for backend in backends
    }
    row = _judge(name, source, runs)
    for run in runs.values():
        retried = run.result.get("retried")
        if retried:
            again = f"{run.backend}: {retried}"
            row.note = f"{row.note}; {again}" if row.note else again
        if not keep_arrays and run.arrays_path is not None:
            run.arrays_path.unlink(missing_ok=True)  # up to hundreds of MB each
    return row


def run_all(
    root: Path, names: list[str], backends: list[str], frames: int | None,
    timeout: float | None, workdir: Path, jobs: int = 1,
    progress: Callable[[int, Row], None] | None = None, keep_arrays: bool = False,
    pictures: Path | None = None,
) -> list[Row]:  # fmt: skip
    """Every example in ``names`` (``jobs`` at a time); rows in the order of ``names``."""

    def one(index_name: tuple[int, str]) -> Row:
        index, name = index_name
        row = run_example(root, name, backends, frames, timeout, workdir, keep_arrays, pictures)
        if progress is not None:
            progress(index, row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, enumerate(names)))
