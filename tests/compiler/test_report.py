"""kernel.report is typed, read-only data; its dict form is the report's first shape."""

from __future__ import annotations

import dataclasses
import json

import pytest

import ti_notebook as ti
from ti_notebook.compiler.report import KernelReport

pytestmark = pytest.mark.cpu


def _stencil():
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    for f in (a, b):
        ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(f)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def smooth():
        for i, j in ti.ndrange((1, 15), (0, 14)):
            b[i, j] = a[i - 1, j]
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[i - 1, j] + a[i, j + 2]
            total[None] += b[i, j]

    return smooth


def test_the_report_is_frozen_typed_data():
    report = _stencil().report
    assert isinstance(report, KernelReport)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.cache = "hit"
    kinds = [task.kind for task in report.tasks]
    assert "range_for" in kinds and "struct_for" in kinds
    struct_for = report.tasks[kinds.index("struct_for")]
    # block-local storage made it a loop over the 4 x 4 blocks of b's pointer level
    assert struct_for.field == "pointer(i,j)" and struct_for.range == (0, 16)
    assert report.tasks[kinds.index("range_for")].range[0] == 0  # the end is computed
    with pytest.raises(TypeError):
        struct_for.loop_config["parallelize"] = 2  # read-only too
    assert report.thread_local[0].operation == "add"
    assert report.bounds.enabled and report.bounds.proven >= 1
    assert report.compile_time_s > 0 and report.cache in ("miss", "hit", "uncacheable")


def test_dict_form_keeps_the_first_shape_and_reads_by_key():
    report = _stencil().report
    plain = report.to_dict()
    assert (
        sorted(plain)
        == sorted(report)
        == [
            "block_local",
            "bounds",
            "cache",
            "compile_time_s",
            "demoted_atomics",
            "pass_records",
            "passes",
            "privatized",
            "promoted",
            "stage_times",
            "tasks",
            "thread_local",
            "written_arguments",
        ]
    )
    assert report["tasks"] == plain["tasks"] and dict(report) == plain
    json.dumps(plain)  # plain values only
    assert KernelReport.from_dict(plain) == report  # and back


def test_block_local_mapping_is_data():
    (buffer,) = _stencil().report.block_local
    assert buffer.field == "a" and buffer.ranges[0][0] == -1
    # the cell u of the block at corner c holds a[c + origin + u]
    assert buffer.to_global((4, 8), (0, 0)) == (4 + buffer.origin[0], 8 + buffer.origin[1])
    assert buffer.mapping.startswith("buffer[u0, u1] = a[I - 1 + u0")


def test_a_cache_hit_reports_the_same_data(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    cold = _stencil().report
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    warm = _stencil().report
    assert (cold.cache, warm.cache) == ("miss", "hit")
    assert "llvm_optimise" in cold.stage_times and not warm.stage_times  # a load: no split
    same = dataclasses.replace(
        warm, cache=cold.cache, compile_time_s=cold.compile_time_s, stage_times=cold.stage_times
    )
    assert same == cold  # tuples stay tuples through the cache's JSON
