"""``make gpu-check`` (``python -m benchmarks.gpu_check``) keeps working before a GPU arrives:
run against the fake device in a subprocess, its report has every section, says it is
the fake device, and holds no failure and no GPU figure. A one-second budget skips every
step and still writes the whole report."""

from __future__ import annotations

import doctest
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.gpu_check import report as gpu_report

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["# GPU check", "## Device", "## Steps", "## Tests", "## Benchmarks"]

pytestmark = pytest.mark.cuda_sim


def run_check(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TI_ARCH", "TI_CUDA_SIM")}
    env["OUT"] = str(tmp_path / "remote")  # as a remote run: a copy comes back there
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.gpu_check", "--fake", "--out", str(tmp_path), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    report = tmp_path / "gpu_report.md"
    assert report.exists(), done.stdout + done.stderr
    return done, report.read_text()


def steps(report: str) -> dict[str, str]:
    """{step name: status} from the report's Steps table."""
    table = report.split("## Steps", 1)[1].split("## Tests", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines() if line.startswith("| ")]
    return {name.strip(): status.strip() for name, status in rows[2:]}


def test_fake_run_writes_the_whole_report(tmp_path):
    done, report = run_check(tmp_path, "--budget", "120", "--groups", "sum,bls")
    statuses = set(steps(report).values())
    assert statuses <= {"passed", "skipped"}, report  # skipped: a loaded machine
    assert done.returncode == (0 if statuses == {"passed"} else 1), done.stdout + done.stderr
    assert f"report: {tmp_path / 'gpu_report.md'}" in done.stdout
    positions = [report.find(section) for section in SECTIONS]
    assert -1 not in positions and positions == sorted(positions), positions
    assert report.splitlines()[2].startswith("**fake device (SIMT emulator): no GPU figures.**")
    assert "- device: fake device (SIMT emulator): no GPU figures" in report
    assert "FAILED" not in report and "Traceback" not in report, report
    assert "Not measured: fake device (SIMT emulator), no GPU figures." in report
    assert " ms" not in report.split("## Benchmarks", 1)[1]  # no time shown as a figure
    results = json.loads((tmp_path / "gpu_results.json").read_text())
    if results:  # the benchmark step ran: each peer has every row of sum and bls
        assert results["mode"] == "fake" and results["device"]["fake"]
        for peer in ("ti_notebook", "taichi"):
            rows = results["peers"][peer]["rows"]
            assert sorted(rows) == sorted(results["order"]), peer
            for key, entry in rows.items():
                assert "figure" in entry or "skipped" in entry, (peer, key, entry)
        assert results["order"][:3] == ["sum", "bls_seed", "bls_seed_cached"]
    assert (tmp_path / "remote" / "gpu_report.md").read_text() == report


def test_a_spent_budget_skips_every_step_and_still_reports(tmp_path):
    done, report = run_check(tmp_path, "--budget", "1")
    assert done.returncode == 1  # nothing was checked: not a pass
    for section in SECTIONS:
        assert section in report
    assert steps(report) == {
        "device": "passed",
        "cuda test tier (fake device)": "skipped",
        "benchmarks/gpu.py (fake device: checked, not timed)": "skipped",
    }
    assert report.count("Not run: the time budget was spent.") == 2
    assert re.search(r"Total: \d+ s of a 1 s budget\.", report)


@pytest.mark.parametrize("name", ["report", "device", "workloads", "__main__"])
def test_docstring_examples(name):
    module = importlib.import_module(f"benchmarks.gpu_check.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0, name


def gpu_results(sum_gbps: float, ours_ms: float) -> dict:
    """Results as gpu.py gives them on a GPU: one good row, one failed, a 3,000 GB/s peak."""

    def figure(ms):
        return {"median_ms": ms, "q1_ms": ms * 0.9, "q3_ms": ms * 1.1, "runs": 15}

    def peer(arch, sum_ms, sum_device):
        return {
            "meta": {"arch": arch},
            "notes": [],
            "rows": {
                "sum": {"title": "sum", "figure": figure(sum_ms), "device": sum_device},
                "p2g_32": {"title": "p2g", "figure": figure(1.0)},
            },
        }

    ours = peer("cuda", ours_ms, {"device_ms": 0.01, "gbps_device": sum_gbps})
    ours["rows"]["p2g_32"] = {"title": "p2g", "error": "WrongResult: x", "traceback": "TB"}
    return {
        "mode": "gpu",
        "device": {"peak_gbps": 3000.0},
        "order": ["sum", "p2g_32"],
        "peers": {"ti_notebook": ours, "taichi": peer("cuda", 0.02, {"device_ms": 0.012})},
    }


def test_gpu_report_states_figures_goals_and_failures():

    text = "\n".join(gpu_report.bench_markdown(gpu_results(2700.0, 0.015)))
    assert (
        "| sum | 0.015 (0.0135-0.0165) | 0.02 (0.018-0.022) | 0.75 | 0.01 | 0.012 | 2700 |" in text
    )
    assert "| p2g | FAILED (see Failures) | 1 (0.9-1.1) | - | - | - | - |" in text
    assert "2700 GB/s on the device = 90% of 3000 GB/s (goal >= 80%): met" in text
    # p2g has no figure of ours: the "every row at or below Taichi" goal is not met
    assert "1 of 2 (1 with both figures): NOT met" in text
    assert "#### ti_notebook / p2g_32 (wall-clock run): WrongResult: x\n\n```\nTB\n```" in text
    slow = "\n".join(gpu_report.bench_markdown(gpu_results(2000.0, 0.03)))
    assert "= 67% of 3000 GB/s (goal >= 80%): NOT met" in slow
    assert "slower than Taichi: sum (1.50x)" in slow


def test_a_peer_process_that_dies_leaves_its_rows_failed_with_the_reason():
    import time

    from benchmarks.gpu_check import bench

    # a peer its child cannot start: the child exits before any row, once, not per group
    result = bench.collect_peer("no_such_peer", ["sum", "launch"], True, time.monotonic() + 60)
    assert sorted(result["rows"]) == ["launch", "launch_empty", "launch_sync", "sum"]
    for entry in result["rows"].values():
        assert entry["error"] == "process ended (exit 2) before its first row"
        assert "invalid choice: 'no_such_peer'" in entry["traceback"]
    (crash,) = result["crashes"]
    assert crash["groups"] == ["sum", "launch"] and "invalid choice" in crash["log"]
    failures = "\n".join(gpu_report.failures({"peers": {"ti_notebook": result}}))
    assert "#### ti_notebook process, groups sum, launch: process ended (exit 2)" in failures


def test_a_peer_that_is_not_installed_leaves_its_rows_not_run_not_failed(monkeypatch):
    # CI installs no Taichi: its column says so and the benchmark step still passes
    from benchmarks.gpu_check import __main__ as gpu_check
    from benchmarks.gpu_check import bench

    monkeypatch.setattr(bench, "PEERS", ("no_such_peer",))
    step, section, results = gpu_check.run_benchmarks(True, gpu_check.Budget(60), ["sum"])
    assert step.status == "passed", step.note
    assert step.note == "0 rows ran, 0 failed, 1 not run"
    assert results["peers"]["no_such_peer"]["rows"] == {
        "sum": {"skipped": "no_such_peer is not installed"}
    }
    table = "\n".join(section)
    assert "| no_such_peer (not installed) |" in table
    assert "not run (no_such_peer is not installed)" in table and "FAILED" not in table
