"""``kernel.report.stage_times``: seconds per stage of a compile, in pipeline order,
adding up to ``compile_time_s``. Shapes and sums only: no assertion on how long a
stage took."""

import pytest

import ti_notebook as ti
from ti_notebook.compiler import compile_stages

pytestmark = pytest.mark.cpu


def _fill():
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v * ti.sin(i * 1.0)

    fill(1.0)
    return fill.report


def test_every_stage_of_a_cpu_compile_in_pipeline_order():
    ti.init(arch=ti.cpu, offline_cache=False)
    report = _fill()
    names = list(report.stage_times)
    assert names == [n for n in compile_stages.STAGES if n in names]  # pipeline order
    main = {"tracing", "passes", "ir_text", "llvm_ir", "llvm_parse", "llvm_optimise"}
    assert main | {"machine_code", "load"} <= set(names)
    assert all(seconds >= 0 for seconds in report.stage_times.values())
    total = sum(report.stage_times.values())
    assert total == pytest.approx(report.compile_time_s, rel=1e-6, abs=1e-9)
    passes = sum(r.time_s for r in report.pass_records)
    assert passes <= report.stage_times["passes"] + 1e-9  # the pass records are inside it
    assert report.to_dict()["stage_times"] == dict(report.stage_times)


@pytest.mark.cuda_sim
def test_the_cuda_backend_times_its_llvm_stages_too():
    ti.init(arch=ti.cuda, cuda_sim=True, offline_cache=False)
    names = set(_fill().stage_times)
    assert {"tracing", "passes", "llvm_ir", "llvm_optimise", "machine_code"} <= names


def test_nothing_is_recorded_outside_a_compile():
    from ti_notebook.runtime.stage_clock import stage

    with stage("llvm_optimise"):  # the JIT's other users (the thread pool) pay nothing
        pass
    ti.init(arch=ti.cpu, offline_cache=False)
    assert "llvm_optimise" in _fill().stage_times
