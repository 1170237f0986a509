"""Each pass is recorded in the report; print_ir prints the IR after each; debug=True
verifies the IR after each and names the pass that broke it."""

from __future__ import annotations

import pytest

import ti_notebook as ti
from ti_notebook.compiler.backends.cpu import CpuTarget
from ti_notebook.ir import nodes as ir
from ti_notebook.passes import pipeline

pytestmark = pytest.mark.cpu


def _fill_kernel():
    x = ti.field(ti.i32, shape=16)

    @ti.kernel
    def fill(v: ti.i32):
        for i in x:
            x[i] = v

    return fill


def test_every_pass_is_recorded_with_whether_it_changed_and_its_time():
    fill = _fill_kernel()
    report = fill.stages(1)["report"]
    names = [record.name for record in report.pass_records]
    assert names == [name for name, _ in CpuTarget.passes]
    assert all(record.time_s >= 0 for record in report.pass_records)
    changed = {record.name: record.changed for record in report.pass_records}
    assert changed["offload"] and not changed["make_block_local"]
    assert report["passes"] == [name for name in names if changed[name]]
    assert report.to_dict()["pass_records"][0] == {
        "name": "typecheck",
        "changed": False,
        "time_s": report.pass_records[0].time_s,
    }


def test_print_ir_prints_the_ir_after_each_pass(capsys):
    _fill_kernel()(3)  # in the offline cache now
    capsys.readouterr()
    ti.init(arch=ti.cpu, print_ir=True)
    fill = _fill_kernel()
    fill(3)  # compiled again, not loaded: a load would have no IR to print
    out = capsys.readouterr().out
    assert "[ti_notebook] kernel 'fill', initial IR:" in out
    for name, _run in pipeline.PASSES:
        assert f"kernel 'fill', after {name}" in out, name
    assert "after offload:" in out and "after make_block_local (unchanged):" in out
    assert "struct_for" in out.split("after offload:")[1]
    assert fill.report["cache"] == "miss"


def test_without_print_ir_nothing_is_printed(capsys):
    _fill_kernel()(3)
    assert capsys.readouterr().out == ""


def _break_the_ir(kernel, options, capabilities) -> bool:
    """A broken pass: a statement reads a value defined nowhere in the kernel."""
    task = kernel.tasks()[-1]
    stray = ir.ConstStmt(1, ti.i32)
    task.body.append(ir.BinaryOpStmt("add", stray, stray, ti.i32))
    return True


def test_debug_verifies_after_each_pass_and_names_the_culprit(monkeypatch):
    after = [name for name, _ in pipeline.PASSES].index("offload") + 1  # it breaks a task
    passes = (*pipeline.PASSES[:after], ("break_the_ir", _break_the_ir), *pipeline.PASSES[after:])
    monkeypatch.setattr(CpuTarget, "passes", passes)
    ti.init(arch=ti.cpu, debug=True)
    with pytest.raises(ti.errors.TiInternalError, match="after break_the_ir: .* not defined"):
        _fill_kernel()(3)


@pytest.mark.parametrize("debug", [False, True])
def test_the_verifier_runs_after_every_pass_in_debug_mode_only(debug, monkeypatch):
    checked = []
    monkeypatch.setattr(pipeline, "verify", lambda block, after: checked.append(after))
    ti.init(arch=ti.cpu, debug=debug, offline_cache=False)
    _fill_kernel()(3)
    expected = ["the frontend", *(name for name, _ in pipeline.PASSES)] if debug else []
    assert checked == expected
