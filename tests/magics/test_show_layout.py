"""``%%kernel --show layout``: the layout view of the fields the cell's kernels touch."""

import pytest

from ti_notebook.magics.layout_option import touched_fields

pytestmark = pytest.mark.cpu

CELL = """%%kernel --quiet --show layout
rows = ti.field(ti.f32)
cols = ti.field(ti.f32)
ti.root.dense(ti.i, 16).dense(ti.j, 16).place(rows)
ti.root.dense(ti.j, 16).dense(ti.i, 16).place(cols)
def copy():
    for i, j in rows:
        cols[i, j] = rows[i, j]
"""


def test_show_layout_displays_the_fields_each_kernel_touches(run, shell):
    cell = run(CELL)
    assert cell.result.success, cell.stderr
    (bundle,) = cell.outputs
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "image/svg+xml" in bundle  # the static picture for exported notebooks
    assert "rows" in bundle["text/plain"]
    copy = shell.user_ns["copy"]
    fields = touched_fields(copy.report, shell.user_ns)
    assert sorted(f.name for f in fields) == ["cols", "rows"]  # one view, both fields


def test_a_kernel_touching_no_named_field_says_so(run):
    cell = run("%%kernel --quiet --show layout\ndef nothing():\n    pass\n")
    assert cell.result.success, cell.stderr
    assert cell.outputs == []
    assert "nothing: no layout to show" in cell.stderr
