"""``make gpu-check`` (``python -m benchmarks.gpu_check``): the CUDA test tier and the
GPU figures, in one report, on a budget.

On a machine with an NVIDIA GPU, within ``--budget`` seconds (480 by default):

1. the device: name, compute capability, driver, memory bandwidth (``gpu_device.py``);
2. the ``cuda`` test tier: ``pytest tests/cuda tests/cuda_sim -m cuda`` (the device
   tests and the emulator tier's test bodies on the GPU), each failure with its log;
3. ``benchmarks/gpu.py`` (``bench.py``): every row beside Taichi 1.7.4's CUDA backend,
   and the goals;

then one markdown report (``benchmarks/gpu_report.md``, or ``--out DIR``; a copy, with
the raw results and the test log, under ``$OUT`` when that is set). Each step has a
timeout from what is left of the budget; a step with no time left is skipped, and the
report says so.

Without a GPU (or with ``--fake``) the same steps run against the fake device (the
device backend on a stand-in driver whose kernels run on the SIMT emulator): the
device tests skip with the driver's reason, a slice of the emulator tier runs through
the fake device, and the benchmark rows run small and are checked, not timed. The
report says so at its top: no figure in it is a GPU figure.

    python -m benchmarks.gpu_check                 # what `make gpu-check` runs
    python -m benchmarks.gpu_check --fake --out /tmp/check --budget 60
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.gpu_check import bench
from benchmarks.gpu_check import device as gpu_device
from benchmarks.gpu_check import report as gpu_report

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "benchmarks"  # the report's default folder
REPORT = "gpu_report.md"
GPU_BUDGET_S, FAKE_BUDGET_S = 480.0, 90.0
REPORT_RESERVE_S = 5.0  # kept back for writing the report
# the device tier: test_on_gpu.py and the cuda-parametrised bodies of tests/cuda_sim
GPU_TESTS = ["tests/cuda", "tests/cuda_sim", "-m", "cuda"]
# without a GPU: the device tests (they skip, saying why) and a slice of the emulator
# tier on the fake device, the device runtime standing in for the GPU
FAKE_TESTS = [
    "tests/cuda/test_on_gpu.py",
    "tests/cuda_sim/test_sim_reductions.py",
    "-m",
    "cuda or cuda_sim",
    "-k",
    "fake_device or test_on_gpu",
]
TESTS_SHARE = {False: 0.5, True: 0.4}  # of the budget, at most, for the tests: GPU, fake
TESTS_CAP_S = {False: 240.0, True: 40.0}


@dataclasses.dataclass
class Step:
    """One step of the check and how it went."""

    name: str
    status: str = "not run"  # passed, failed, timed out, skipped (budget), error
    seconds: float = 0.0
    note: str = ""


class Budget:
    """Seconds left of the check's budget.

    >>> Budget(10).left() <= 10
    True
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic() - REPORT_RESERVE_S


def run_command(cmd: list[str], timeout_s: float, log: Path) -> tuple[int | None, str]:
    """(exit code or None on timeout, output) of ``cmd`` in the repository root; its
    whole process group is killed at the timeout (tests may start processes)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TI_ARCH", "TI_CUDA_SIM")}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        try:
            code = proc.wait(timeout=max(timeout_s, 1))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
    return code, log.read_text(errors="replace")


def run_tests(fake: bool, budget: Budget, work: Path) -> tuple[Step, list[str]]:
    """The test step and its report section."""
    step = Step("cuda test tier" + (" (fake device)" if fake else ""))
    timeout = min(TESTS_CAP_S[fake], budget.seconds * TESTS_SHARE[fake], budget.left())
    selection = FAKE_TESTS if fake else GPU_TESTS
    xml = work / "gpu_pytest.xml"
    cmd = [sys.executable, "-m", "pytest", *selection, "-v", "-rs", "--durations=10"]
    cmd += ["-p", "no:cacheprovider", f"--junitxml={xml}"]
    shown = "pytest " + " ".join(f'"{a}"' if " " in a else a for a in selection)
    section = ["## Tests", "", f"`{shown}`", ""]
    if timeout < 5:
        step.status, step.note = "skipped", "time budget spent"
        return step, section + ["Not run: the time budget was spent.", ""]
    xml.unlink(missing_ok=True)
    started = time.monotonic()
    code, output = run_command(cmd, timeout, work / "gpu_pytest.log")
    step.seconds = time.monotonic() - started
    counts = _outcomes(output)
    step.note = ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "no tests ran"
    if code is None:
        step.status = "timed out"
        section.append(f"Timed out after {timeout:.0f} s; results up to then: {step.note}.")
    else:
        step.status = "passed" if code == 0 else "failed"
        section.append(f"Exit code {code}: {step.note}.")
    section.append("")
    section += _skip_reasons(output) + _failure_logs(xml, output, code)
    return step, section


def _outcomes(output: str) -> dict[str, int]:
    """Counts of each outcome from pytest's ``-v`` lines (they survive a timeout)."""
    counts = dict.fromkeys(("passed", "failed", "error", "skipped", "xfailed", "xpassed"), 0)
    for line in output.splitlines():
        if "::" not in line or line.startswith(("FAILED ", "ERROR ", "SKIPPED ")):
            continue
        for word in counts:
            if f" {word.upper()}" in line:
                counts[word] += 1
                break
    return counts


def _skip_reasons(output: str) -> list[str]:
    reasons = [line for line in output.splitlines() if line.startswith("SKIPPED [")]
    if not reasons:
        return []
    return ["Skipped (pytest's reasons):", "", "```", *reasons[:20], "```", ""]


def _failure_logs(xml: Path, output: str, code: int | None) -> list[str]:
    """Each failed test's log (trimmed) from the JUnit XML; the output's tail without it."""
    if not xml.exists():
        if code == 0:
            return []
        return ["Output (tail):", "", "```", gpu_report.trim(output, 60), "```", ""]
    lines = []
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        for problem in list(case.findall("failure")) + list(case.findall("error")):
            name = f"{case.get('classname')}::{case.get('name')}"
            text = problem.text or problem.get("message") or ""
            lines += [f"### {problem.tag}: {name}", "", "```", gpu_report.trim(text), "```", ""]
    if code not in (0, None) and not lines:  # collection errors, a crash: the output says
        lines = ["Output (tail):", "", "```", gpu_report.trim(output, 60), "```", ""]
    return lines


def run_benchmarks(fake: bool, budget: Budget, groups: list[str]) -> tuple[Step, list, dict]:
    """The benchmark step, its report section and the raw results."""
    step = Step("benchmarks/gpu.py" + (" (fake device: checked, not timed)" if fake else ""))
    section = ["## Benchmarks", ""]
    if budget.left() < 10:
        step.status, step.note = "skipped", "time budget spent"
        return step, section + ["Not run: the time budget was spent.", ""], {}
    started = time.monotonic()
    try:
        results = bench.collect(list(bench.PEERS), groups, fake, budget.left())
    except Exception as error:  # the orchestration itself; rows are guarded in the children
        step.status, step.note = "error", f"{type(error).__name__}: {error}"
        return step, section + [f"The benchmark step failed: {step.note}", ""], {}
    step.seconds = time.monotonic() - started
    rows = [entry for peer in results["peers"].values() for entry in peer["rows"].values()]
    failed = sum(1 for e in rows if "error" in e or "device_error" in e)
    skipped = sum(1 for e in rows if "skipped" in e)
    step.status = "failed" if failed else "passed"
    step.note = f"{len(rows) - failed - skipped} rows ran, {failed} failed, {skipped} not run"
    section += gpu_report.bench_markdown(results)
    return step, section, results


def header(info: gpu_device.DeviceInfo, budget: Budget) -> list[str]:
    if info.fake:
        top = f"**{gpu_device.FAKE_NAME}.** No CUDA device here ({info.reason}); every step "
        top += "ran against the fake device (the device backend on a stand-in driver whose "
        top += "kernels run on the SIMT emulator), at small sizes."
    else:
        top = f"**GPU: {info.name} ({info.compute_capability}).**"
    commit = _git("rev-parse", "--short", "HEAD") or "?"
    if _git("status", "--porcelain", "--untracked-files=no"):
        commit += " with local changes"
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        "# GPU check",
        "",
        top,
        "",
        f"- run: {when}, commit {commit}, budget {budget.seconds:.0f} s",
        "- command: `make gpu-check` (`python -m benchmarks.gpu_check`)",
        "",
        "## Device",
        "",
        *info.lines(),
        "",
    ]


def _git(*args: str) -> str:
    """``git args``' output in the repository, or "" (no git, not a checkout)."""
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def steps_table(steps: list[Step]) -> list[str]:
    lines = ["## Steps", "", "| step | status | seconds | note |", "| --- | --- | ---: | --- |"]
    lines += [f"| {s.name} | {s.status} | {s.seconds:.1f} | {s.note} |" for s in steps]
    return lines + [""]


def check(fake: bool, budget_s: float | None, out_dir: Path, groups: list[str]) -> int:
    """Runs every step, writes the report; 0 when nothing failed (goals are not failures)."""
    with tempfile.TemporaryDirectory(prefix="gpu_check_") as work:
        return _check(fake, budget_s, out_dir, groups, Path(work))


def _check(fake: bool, budget_s: float | None, out_dir: Path, groups: list[str], work: Path):
    started = time.monotonic()
    info = gpu_device.describe(fake)
    budget = Budget(budget_s or (FAKE_BUDGET_S if info.fake else GPU_BUDGET_S))
    out_dir.mkdir(parents=True, exist_ok=True)
    device_step = Step("device", "passed", time.monotonic() - started, info.name)
    test_step, test_section = run_tests(info.fake, budget, work)
    print(f"tests: {test_step.status} ({test_step.note})", flush=True)
    bench_step, bench_section, results = run_benchmarks(info.fake, budget, groups)
    print(f"benchmarks: {bench_step.status} ({bench_step.note})", flush=True)
    steps = [device_step, test_step, bench_step]
    total = time.monotonic() - started
    lines = header(info, budget) + steps_table(steps) + test_section + bench_section
    lines += [f"Total: {total:.0f} s of a {budget.seconds:.0f} s budget.", ""]
    report = out_dir / REPORT
    report.write_text("\n".join(lines))
    (work / "gpu_results.json").write_text(json.dumps(results, indent=1))
    print(f"report: {report}")
    # the raw results and the whole test log beside a report written elsewhere than the
    # repository, and under $OUT, which a remote run brings back
    folders = [] if out_dir.resolve() == HERE else [out_dir]
    if os.environ.get("OUT"):
        folders.append(Path(os.environ["OUT"]))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        if folder != out_dir:
            (folder / REPORT).write_text(report.read_text())
            print(f"report: {folder / REPORT}")
        for name in ("gpu_results.json", "gpu_pytest.log"):
            if (work / name).exists():
                (folder / name).write_text((work / name).read_text(errors="replace"))
    return 0 if all(s.status == "passed" for s in steps) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fake", action="store_true", help="the fake device even with a GPU")
    parser.add_argument("--budget", type=float, help="seconds in all (480 on a GPU, 90 fake)")
    parser.add_argument("--out", type=Path, default=HERE, help="the report's folder")
    parser.add_argument("--groups", default=",".join(bench.workloads.GROUPS))
    args = parser.parse_args(argv)
    return check(args.fake, args.budget, args.out, [g for g in args.groups.split(",") if g])


if __name__ == "__main__":
    sys.exit(main())
