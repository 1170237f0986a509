"""Each task in a kernel's report says in plain words what it does (``description``),
not the compiler's jargon (``struct_for`` over ``pointer(i,j)`` or ``w[0]``)."""

import pytest

import ti_notebook as ti
from ti_notebook.compiler.task_report import Task

pytestmark = pytest.mark.cpu


def test_descriptions_of_serial_range_and_struct_for_tasks():
    x = ti.field(ti.f32)
    blocks = ti.root.pointer(ti.ij, 16)
    blocks.dense(ti.ij, 8).place(x)
    w = ti.Vector.field(2, ti.f32, shape=(64, 64))
    d = ti.field(ti.f32, shape=1024)

    @ti.kernel
    def mixed(n: ti.i32):
        d[0] = 1.0
        for i in range(1024):
            d[i] += 1.0
        for i in range(n):
            d[i] += 2.0
        for c in ti.grouped(x):
            x[c] += 1.0
        for i, j in blocks:
            x[i * 8, j * 8] = 1.0
        for c in ti.grouped(w):
            w[c] += 1.0

    mixed(4)
    words = [t.description for t in mixed.report.tasks]
    assert words[0] == "serial code"
    # (serial tasks between loops, that compute a bound, come and go with the passes)
    assert [w for w in words if w != "serial code"] == [
        "parallel loop over i in [0, 1024)",
        "parallel loop over i in range(n)",
        "parallel loop over the active cells of x (pointer 16x16, dense 8x8)",
        "parallel loop over the active cells of the pointer level pointer(i,j) (pointer 16x16)",
        "parallel loop over the cells of vector field w (dense 64x64)",
    ]
    assert all(t.to_dict()["description"] == t.description for t in mixed.report.tasks)


def test_a_report_stored_without_words_gets_them():
    old = Task.from_dict({"kind": "struct_for", "loop_config": {}, "field": "x", "range": [0, 8]})
    assert old.description == "parallel loop over the cells of x"
    assert Task.from_dict({"kind": "serial", "loop_config": {}}).description == "serial code"
