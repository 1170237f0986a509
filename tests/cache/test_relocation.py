"""Cached code is not tied to a tree id: a re-run notebook cell (new fields with the same
plan, in a new tree) loads the kernel it compiled before, and it works on the new fields."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

CELL = """
import ti_notebook as ti

x = ti.field(ti.f32, shape=64)
total = ti.field(ti.f32, shape=())


@ti.kernel
def fill_and_sum(v: ti.f32):
    for i in x:
        x[i] = v + i
    for i in x:
        total[None] += x[i]
"""


def _run_cell(path, value: float):
    namespace: dict = {}
    exec(compile(CELL, str(path), "exec"), namespace)  # noqa: S102 - the test's own cell
    namespace["fill_and_sum"](value)
    report = namespace["fill_and_sum"].stages(value)["report"]
    return namespace["x"], namespace["total"], report


def test_rerunning_a_cell_with_new_fields_hits_and_uses_the_new_fields(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path / "cache"))
    source = tmp_path / "cell.py"
    source.write_text(CELL)  # kernels need their source in a file
    first_x, first_total, first = _run_cell(source, 1.0)
    second_x, second_total, second = _run_cell(source, 2.0)
    assert first["cache"] == "miss" and second["cache"] == "hit"
    assert first_x._tree.tree_id != second_x._tree.tree_id  # a new tree each run
    np.testing.assert_array_equal(second_x.to_numpy(), 2.0 + np.arange(64, dtype=np.float32))
    assert second_total[None] == pytest.approx(64 * 2.0 + 63 * 64 / 2)
    # the first run's fields are untouched by the second kernel
    np.testing.assert_array_equal(first_x.to_numpy(), 1.0 + np.arange(64, dtype=np.float32))
    assert first_total[None] == pytest.approx(64 * 1.0 + 63 * 64 / 2)
