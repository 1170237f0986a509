"""Runs the matrix in subprocesses and survives crashes: a unit whose kernel kills the
process is split into one unit per operator and run again in a fresh process, and an
operator that still crashes gets ``{"error": "crash"}`` for each of its items, so a crash
fails those cases' tests instead of the whole session.

>>> decode("0x1.8000000000000p+0"), decode(7), decode({"error": "TiTypeError"})
(1.5, 7, {'error': 'TiTypeError'})
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.differential import cases

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 300


def decode(value):
    """One result as the runner printed it: floats come as ``float.hex()`` text."""
    return float.fromhex(value) if isinstance(value, str) else value


def _split(unit: list) -> list[list]:
    group, mode, items = unit
    ops = list(dict.fromkeys(op for op, _ in items))
    return [[group, mode, [it for it in items if it[0] == op]] for op in ops]


def _launch(backend: str, units: list, workdir: Path) -> tuple[list[dict], str]:
    path = workdir / f"units_{backend}.json"
    path.write_text(json.dumps(units))
    command = [sys.executable, "-m", "tests.differential.run", "--backend", backend]
    try:
        done = subprocess.run(
            command + ["--units", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        out, why = done.stdout, f"exit status {done.returncode}: {done.stderr[-300:]}"
    except subprocess.TimeoutExpired as expired:
        out = (
            (expired.stdout or b"").decode()
            if isinstance(expired.stdout, bytes)
            else (expired.stdout or "")
        )
        why = f"no result after {TIMEOUT_S} s"
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return records, why


def run(backend: str, units: list[list]) -> dict:
    """Results (key -> list of decoded values, or an error dict) of ``units`` (each
    ``[group, mode, items]``) on ``backend``, in as many processes as crashes need."""
    results: dict = {}
    pending = [[g, m, [list(it) for it in items]] for g, m, items in units]
    with tempfile.TemporaryDirectory(prefix="ti_differential_") as tmp:
        while pending:
            records, why = _launch(backend, pending, Path(tmp))
            started = None
            for record in records:
                if "start" in record:
                    started = record["start"]
                elif "unit" in record:
                    for key, values in record["results"].items():
                        results[key] = (
                            values if isinstance(values, dict) else [decode(v) for v in values]
                        )
                    started = None
            if any("done" in r for r in records):
                break
            crashed = pending[started if started is not None else 0]
            rest = pending[(started if started is not None else 0) + 1 :]
            parts = _split(crashed)
            if len(parts) > 1:
                pending = parts + rest
                continue
            group, mode, items = crashed
            for op, b in items:
                results[cases.key(mode, op, group, b)] = {"error": "crash", "message": why}
            pending = rest
    return results


def group_units(group: str) -> list[list]:
    """Every unit of ``group``, the compile-error checks last."""
    units = [[group, mode, items] for mode, items in cases.units(group)]
    return units + [[group, "invalid", cases.invalid_items(group)]]
