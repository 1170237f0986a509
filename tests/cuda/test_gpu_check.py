"""``make gpu-check`` (``benchmarks/gpu_check.py``) keeps working before a GPU arrives:
run against the fake device in a subprocess, its report has every section, says it is
the fake device, and holds no failure and no GPU figure. A one-second budget skips every
step and still writes the whole report."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.py"
SECTIONS = ["# GPU check", "## Device", "## Steps", "## Tests", "## Benchmarks"]

pytestmark = pytest.mark.cuda_sim


def run_check(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TI_ARCH", "TI_CUDA_SIM")}
    env["OUT"] = str(tmp_path / "remote")  # as a remote run: a copy comes back there
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--fake", "--out", str(tmp_path), *args],
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
    assert statuses <= {"passed", "skipped"}, steps(report)  # skipped: a loaded machine
    assert done.returncode == (0 if statuses == {"passed"} else 1), done.stdout + done.stderr
    assert f"report: {tmp_path / 'gpu_report.md'}" in done.stdout
    positions = [report.find(section) for section in SECTIONS]
    assert -1 not in positions and positions == sorted(positions), positions
    assert report.splitlines()[2].startswith("**fake device (SIMT emulator): no GPU figures.**")
    assert "- device: fake device (SIMT emulator): no GPU figures" in report
    assert "FAILED" not in report and "Traceback" not in report
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
