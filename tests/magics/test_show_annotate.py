"""``--show`` output folds and scrolls, names symbols readably and shows the real target;
``--show annotate`` puts each kernel line beside the IR it produced (issue 19)."""

import json

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

CELL = (
    "%%kernel --show annotate\n"
    "x = ti.field(ti.f32, shape=64)\n"
    "total = ti.field(ti.f32, shape=())\n"
    "def work(k: ti.i32):\n"
    "    for i in x:\n"
    "        x[i] += 1.0\n"
    "        total[None] += x[i]\n"
    "    x[k] = 2.0\n"
)


def test_annotate_shades_lines_and_names_what_the_passes_left(run):
    cell = run(CELL)
    assert cell.error is None, cell.stderr
    (bundle,) = [o for o in cell.outputs if "text/html" in o and "annotate" in o["text/html"]]
    text = bundle["text/plain"]
    lines = {
        line.split("|")[1].split("    [")[0].strip(): line
        for line in text.splitlines()
        if "|" in line
    }
    assert "x[i] += 1.0" in lines and "load" in lines["x[i] += 1.0"]  # demoted: no atomic
    assert "atomic" not in lines["x[i] += 1.0"]
    assert "thread-local" in lines["total[None] += x[i]"]
    assert "bounds check" in lines["x[k] = 2.0"]  # k is any i32: checked
    html = bundle["text/html"]
    assert html.startswith('<details class="ti-stage" open>')
    assert html.count("<tr>") >= 4 and "rgba(255,152,0," in html and "<pre" in html


def test_annotate_stage_is_json_per_line():
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    data = json.loads(fill.stages()["annotate"])
    assert data["kernel"] == "fill"
    sources = [entry["source"].strip() for entry in data["lines"]]
    assert "x[i] = 1.0" in sources
    assert all(entry["ir"] for entry in data["lines"])


def test_stages_fold_scroll_and_read_well(run):
    cell = run(
        "%%kernel --show llvm --show ir\n"
        "y = ti.field(ti.f32, shape=8)\n"
        "def fill():\n"
        "    for i in y:\n"
        "        y[i] = 1.0\n"
    )
    assert cell.error is None, cell.stderr
    llvm, ir_ = [o for o in cell.outputs if "text/html" in o]
    for bundle in (llvm, ir_):
        assert bundle["text/html"].startswith('<details class="ti-stage"')
        assert "max-height:32em;overflow:auto" in bundle["text/html"]
    plain = llvm["text/plain"]
    assert 'target triple = "x86_64' in plain or 'target triple = "aarch64' in plain
    assert "unknown-unknown-unknown" not in plain
    assert "fill.task0" in plain and "tin_fill_" not in plain
