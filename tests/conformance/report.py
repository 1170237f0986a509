"""The table of rows, its one-line summary and the markdown file around them.

Times per step are the median wall time per frame after the first (the first frame
includes compiling, so it has its own column); ``ratio`` is ti_notebook / Taichi.
*picture* says whether ti_notebook's own GUI kept its last frame (a dash: it drew none).

>>> from tests.conformance.runner import Row
>>> rows = [Row("a", "pass"), Row("b", "fail", "timeout after 300 s"),
...         Row("c", "skip", "needs cv2 (opencv-python): not installed", "optional dependency")]
>>> summary_line(rows)
'1 of 3 examples pass (1 skipped: 1 optional dependency)'
>>> millis(0.0123)
'12.3'
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess
from collections import Counter
from pathlib import Path

from tests.conformance import settings
from tests.conformance.runner import CANDIDATE, REFERENCE, REPO_ROOT, Row

SKIP_ORDER = ("sparse solver", "optional dependency", "setting")
HEADER = (
    "| example | result | reason / note | picture | Taichi ms/frame | ti_notebook ms/frame "
    "| ratio | Taichi 1st frame s | ti_notebook 1st frame s |"
)
RULE = "|---|---|---|---|--:|--:|--:|--:|--:|"


def millis(seconds: float | None) -> str:
    """Seconds as milliseconds with three significant digits, or a dash."""
    return "–" if seconds is None else f"{seconds * 1e3:.3g}"


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def summary_line(rows: list[Row]) -> str:
    """``N of M examples pass (K skipped: a sparse solver, b optional dependency, ...)``."""
    passed = sum(row.passed for row in rows)
    skipped = Counter(row.category for row in rows if row.status == "skip")
    order = [c for c in SKIP_ORDER if c in skipped] + sorted(set(skipped) - set(SKIP_ORDER))
    parts = ", ".join(f"{skipped[category]} {category}" for category in order)
    total = sum(skipped.values())
    return f"{passed} of {len(rows)} examples pass ({total} skipped{': ' + parts if parts else ''})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _result(row: Row) -> str:
    if row.status == "fail" and row.category == "harness":
        return "fail (harness)"
    if row.status == "fail" and row.category == "reference":
        return "fail (Taichi too)"
    if row.status == "fail" and row.category == "picture":
        return "fail (no picture)"
    return row.status


def picture(row: Row) -> str:
    """``yes``/``no`` for ti_notebook's last frame, or a dash when it drew no frame.

    >>> from tests.conformance.runner import Run
    >>> picture(Row("a", "pass", runs={CANDIDATE: Run(CANDIDATE, "ok", {"pictures": []})}))
    '–'
    """
    run = row.runs.get(CANDIDATE)
    text = run.picture if run is not None and run.status == "ok" else ""
    return text.partition(":")[0] or "–"


def table_lines(rows: list[Row]) -> list[str]:
    """The markdown table, one line per example."""
    lines = [HEADER, RULE]
    for row in rows:
        times = {}
        for backend in (REFERENCE, CANDIDATE):
            run = row.runs.get(backend)
            times[backend] = (
                run.timing("median_frame_s") if run else None,
                run.timing("first_frame_s") if run else None,
            )
        ref, cand = times[REFERENCE][0], times[CANDIDATE][0]
        ratio = f"{cand / ref:.2f}" if ref and cand else "–"
        text = "; ".join(part for part in (row.reason, row.note) if part)
        lines.append(
            f"| {row.name} | {_result(row)} | {_cell(text)} | {picture(row)} "
            f"| {millis(ref)} | {millis(cand)} "
            f"| {ratio} | {_seconds(times[REFERENCE][1])} | {_seconds(times[CANDIDATE][1])} |"
        )
    return lines


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _git_revision() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
            text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def markdown(rows: list[Row], command: str, frames: int | None) -> str:
    """The whole of ``benchmarks/compat.md``: how it was made, the summary, the table."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    frames_text = f"{frames}" if frames else f"{settings.DEFAULT_FRAMES} (unless the table says)"
    head = [
        "# Taichi's examples with ti_notebook",
        "",
        f"Made by `{command}` on {now}, ti_notebook at git `{_git_revision()}`.",
        f"Machine: {_cpu_model()}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}. Python {platform.python_version()}, NumPy {_version('numpy')}, "
        f"Taichi {_version('taichi')}, ti_notebook {_version('ti_notebook')}, "
        f"matplotlib {_version('matplotlib')}.",
        "",
        f"**{summary_line(rows)}.**",
        "",
        "Every example in the taichi wheel runs in a subprocess with Taichi and with "
        "ti_notebook (`taichi` mapped to it), `ti.init` forced to the CPU with a fixed "
        f"`random_seed`, for {frames_text} frames: ti_notebook's run uses its own `ti.GUI` "
        "and `ti.ui.Window` with `TI_GUI_MAX_FRAMES` set; Taichi's run (the reference) gets "
        "headless stand-ins with the same frame budget (Taichi's GGUI needs Vulkan). A loop "
        "that never reads `gui.running` ends at its next `show()` on both sides. *pass*: "
        "both runs end, every field and ndarray agrees "
        f"(`rtol={settings.DEFAULT_RTOL:g}`, `atol={settings.DEFAULT_ATOL:g}`; examples "
        "whose kernels call `ti.random` compare the mean and standard deviation within "
        f"{settings.DEFAULT_STAT_TOL:.0%}), and, when the example draws, ti_notebook's GUI "
        "kept a picture of its last frame (*picture*; the PNGs go to `compat_frames/` beside "
        "this file, not committed). *fail (harness)*: a stand-in or a setting is at fault, "
        "not ti_notebook. *fail (Taichi too)*: the reference itself fails here.",
        "",
        "Times: *ms/frame* is the median wall time per frame after the first; the first "
        "frame includes compiling and has its own column (seconds since the example "
        "started). *ratio* is ti_notebook / Taichi. Taichi's stand-ins read each drawn "
        "field (`to_numpy()`) but draw nothing; ti_notebook's times include drawing its "
        "frames. On a shared 2-core machine the numbers are rough.",
        "",
    ]
    return "\n".join(head + table_lines(rows)) + "\n"
