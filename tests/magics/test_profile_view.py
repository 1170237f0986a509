"""%%kernel --profile: a view of ti.profiler's launches, only the cell's own.

The table comes as text/plain and text/html, the chart as image/png. Nothing here
asserts on how long a launch took: only which rows there are and what they count.
"""

import base64
import re
import struct
import sys
from html.parser import HTMLParser

import pytest

import ti_notebook as ti
from ti_notebook.magics.profile import NO_CHART, NOTHING, SWITCHED_ON

pytestmark = pytest.mark.cpu

TWO_FIELDS = """%%kernel --profile --quiet
rows = ti.field(ti.f32, shape=4096)
cols = ti.field(ti.f32, shape=64)
def add_one(a: ti.template()):
    for i in a:
        a[i] += 1
for _ in range(3):
    add_one(rows)
    add_one(cols)
"""
LABELS = {"add_one[a=rows]", "add_one[a=cols]"}


class _Cells(HTMLParser):
    """The text of each <tr>'s cells."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_cell = False
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        self._in_cell = self._in_cell or tag in ("td", "th")
        if tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data):
        if self._in_cell:
            self.rows[-1][-1] += data


def _table(cell) -> dict:
    bundles = [o for o in cell.outputs if "text/html" in o]
    assert len(bundles) == 1, cell.outputs
    return bundles[0]


def _launches_per_label(bundle: dict) -> dict[str, int]:
    """specialisation -> launches, read from the text table and checked against the HTML."""
    lines = bundle["text/plain"].splitlines()
    assert lines[0].startswith("profile: ")
    columns = re.split(r"\s{2,}", lines[1].strip())  # names hold single spaces: "min ms"
    assert columns[:2] == ["specialisation", "launches"] and "GB/s" in columns
    table = lines[2 : lines.index("")] if "" in lines else lines[2:]  # flags follow a blank
    text = {line.split()[0]: int(line.split()[1]) for line in table}
    header, *body = _Cells(bundle["text/html"]).rows
    assert header == columns
    assert {row[0]: int(row[1]) for row in body} == text
    return text


def _png(cell) -> bytes:
    images = [o for o in cell.outputs if "image/png" in o]
    assert len(images) == 1, cell.outputs
    return base64.b64decode(images[0]["image/png"])


def test_a_template_kernel_over_two_fields_gives_a_row_per_field(run):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    cell = run(TWO_FIELDS)
    assert cell.result.success, cell.stdout + cell.stderr
    assert SWITCHED_ON not in cell.stdout  # it was on already
    assert _launches_per_label(_table(cell)) == {label: 3 for label in LABELS}
    recorded = ti.profiler.launches()
    assert {e.specialisation for e in recorded} == LABELS and len(recorded) == 6


def test_a_later_cell_shows_only_its_own_launches(run):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    assert run(TWO_FIELDS).result.success
    cell = run("%%kernel --profile\nfor _ in range(2):\n    add_one(cols)\n")
    assert cell.result.success, cell.stdout + cell.stderr
    table = _table(cell)
    assert _launches_per_label(table) == {"add_one[a=cols]": 2}
    assert table["text/plain"].startswith("profile: 2 launches in this cell")
    assert len(ti.profiler.launches()) == 8  # the profiler keeps them all
    empty = run("%%kernel --profile\nx = 1\n")
    assert [o["text/plain"] for o in empty.outputs] == [NOTHING]


def test_the_chart_is_a_png_of_one_bar_per_specialisation(run):
    pytest.importorskip("matplotlib")
    ti.init(arch=ti.cpu, kernel_profiler=True)
    png = _png(run(TWO_FIELDS))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])  # IHDR: 5 x (0.4 * rows + 1) in, 100 dpi
    assert (width, height) == (500, 180)


def test_without_matplotlib_the_chart_is_a_one_line_note(run, monkeypatch):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    cell = run(TWO_FIELDS)
    assert cell.result.success, cell.stdout + cell.stderr
    assert not [o for o in cell.outputs if "image/png" in o]
    assert {"text/plain": NO_CHART} in cell.outputs
    assert _launches_per_label(_table(cell)) == {label: 3 for label in LABELS}


def test_profiler_off_is_turned_on_and_earlier_kernels_recompile_with_timing(run):
    assert not ti.profiler.is_enabled()  # the tests' session: ti.init(arch=ti.cpu)
    before = run(
        "%%kernel --quiet\nx = ti.field(ti.f32, shape=1024)\n"
        "def fill(v: ti.f32):\n    for i in x:\n        x[i] = v\nfill(2.0)\n"
    )
    assert before.result.success, before.stdout + before.stderr
    assert ti.profiler.launches() == ()
    cell = run("%%kernel --profile\nfill(3.0)\nfill(4.0)\n")
    assert cell.result.success, cell.stdout + cell.stderr
    assert cell.stdout.splitlines().count(SWITCHED_ON) == 1
    assert ti.profiler.is_enabled() and ti.init_options()["kernel_profiler"]
    assert _launches_per_label(_table(cell)) == {"fill": 2}
    # compiled before the profiler was on, it recompiled with the task timers
    assert all(event.tasks for event in ti.profiler.launches())
    again = run("%%kernel --profile\nfill(5.0)\n")
    assert SWITCHED_ON not in again.stdout
    assert run("x[0]").result.result == 5.0


def test_a_cell_that_clears_the_record_shows_what_it_launched_after(run):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    assert run(TWO_FIELDS).result.success
    cell = run(
        "%%kernel --profile\nadd_one(rows)\nti.profiler.clear_kernel_profiler_info()\n"
        "for _ in range(7):\n    add_one(cols)\n"
    )
    assert cell.result.success, cell.stdout + cell.stderr
    assert _launches_per_label(_table(cell)) == {"add_one[a=cols]": 7}


def test_first_calls_are_apart_and_flags_are_explained(run):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    cell = run(TWO_FIELDS)
    assert cell.result.success, cell.stdout + cell.stderr
    bundle = _table(cell)
    lines = bundle["text/plain"].splitlines()
    assert "first call apart" in lines[0]
    columns = re.split(r"\s{2,}", lines[1].strip())
    for row in ti.profiler.rows():
        assert row.first_call_ns is not None and row.samples == 2  # 3 launches, 1 first
        assert row.launches == 3
        line = next(line for line in lines if line.startswith(row.specialisation))
        cells = dict(zip(columns, re.split(r"\s{2,}", line.strip()), strict=True))
        assert cells["samples"].startswith("2")
        if row.fraction_of_ceiling is not None:
            assert cells["vs ceiling"].startswith(f"in {row.ceiling_level}: ")
            if row.fraction_of_ceiling > 1:
                assert row.flag and f"* {row.specialisation}: {row.flag}" in lines
