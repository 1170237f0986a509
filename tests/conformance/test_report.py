"""The ``make compat`` table: its rows, the one-line summary and the markdown file."""

from __future__ import annotations

import pytest

from tests.conformance import report
from tests.conformance.runner import Row, Run

pytestmark = pytest.mark.unit


def timed(backend, median, first, **result):
    return Run(backend, "ok", {"median_frame_s": median, "first_frame_s": first, **result})


PICTURE = {"window": "GUI 'MPM88'", "frames": 5, "file": "mpm88.png", "size": [512, 512]}


ROWS = [
    Row(
        "simulation/mpm88",
        "pass",
        runs={
            "taichi": timed("taichi", 0.002, 1.5),
            "ti_notebook": timed("ti_notebook", 0.003, 0.4, pictures=[PICTURE]),
        },
    ),
    Row("x/needs_cv2", "skip", "needs cv2 (opencv-python): not installed", "optional dependency"),
    Row(
        "ggui_examples/mpm3d_ggui",
        "fail",
        "AttributeError: module 'ti_notebook.ui' has no attribute 'Window' (mpm3d_ggui.py:240)",
        "backend",
    ),
    Row("simulation/implicit_fem", "skip", "sparse solver: ti.linalg.X (line 1)", "sparse solver"),
    Row("x/uses_canvas", "fail", "AttributeError: GUI.get_canvas | not stubbed", "harness"),
    Row("x/crashes", "fail", "Taichi fails too: crashed (SIGSEGV)", "reference"),
    Row(
        "x/differs", "fail", "field x differs: max |diff| 0.5 at (1,)", "results", note="few frames"
    ),
]


def test_the_summary_counts_passes_and_skips_by_category():
    assert report.summary_line(ROWS) == (
        "1 of 7 examples pass (2 skipped: 1 sparse solver, 1 optional dependency)"
    )
    assert report.summary_line([Row("a", "fail")]) == "0 of 1 examples pass (0 skipped)"


def test_a_row_shows_both_times_their_ratio_and_first_frames():
    line = report.table_lines(ROWS)[2]
    assert line == "| simulation/mpm88 | pass |  | yes | 2 | 3 | 1.50 | 1.50 | 0.40 |"


def test_a_row_says_whether_ti_notebook_kept_a_picture():
    kept_none = dict(PICTURE, size=None, file=None, missing="kept no last frame")
    row = Row(
        "x/blank",
        "fail",
        "no: GUI 'MPM88' kept no last frame",
        "picture",
        runs={"ti_notebook": timed("ti_notebook", None, None, pictures=[kept_none])},
    )
    (line,) = report.table_lines([row])[2:]
    assert line.startswith(
        "| x/blank | fail (no picture) | no: GUI 'MPM88' kept no last frame | no |"
    )
    assert report.picture(Row("x/none", "pass")) == "–"  # no run: nothing drawn


def test_failures_say_whose_fault_and_reasons_are_escaped():
    lines = report.table_lines(ROWS)
    assert (
        "| x/uses_canvas | fail (harness) | AttributeError: GUI.get_canvas \\| not stubbed |"
        in (lines[6])
    )
    assert lines[7].startswith("| x/crashes | fail (Taichi too) |")
    assert "| fail | field x differs: max \\|diff\\| 0.5 at (1,); few frames |" in lines[8]
    assert lines[8].endswith("| – | – | – | – | – | – |")
    assert lines[4].startswith("| ggui_examples/mpm3d_ggui | fail | AttributeError: ")


def test_the_markdown_says_how_it_was_made():
    text = report.markdown(ROWS, "python -m tests.conformance --only mpm", None)
    assert text.startswith("# Taichi's examples with ti_notebook\n")
    assert "Made by `python -m tests.conformance --only mpm` on " in text
    assert "Taichi " in text and "NumPy " in text and "cores" in text
    assert "**1 of 7 examples pass (2 skipped: 1 sparse solver, 1 optional dependency).**" in text
    assert "TI_GUI_MAX_FRAMES" in text
    assert report.HEADER in text
    assert text.count("\n| ") == len(ROWS) + 1  # the header and one line per example
