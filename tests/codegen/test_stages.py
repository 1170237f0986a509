"""Every compiled kernel keeps its stages and a report; simple loops vectorise at O3."""

import re

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

STAGES = {"ast", "ir", "ir_optimized", "llvm", "llvm_optimized", "asm", "report"}


def test_all_stages_present_and_nonempty():
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def double(a: ti.f32):
        for i in x:
            x[i] = x[i] * a

    double(2.0)
    stages = double.stages()
    assert set(stages) >= STAGES
    for name in STAGES - {"report"}:
        assert isinstance(stages[name], str) and stages[name].strip(), name
    assert "FunctionDef" in stages["ast"]
    assert "struct_for" in stages["ir"] and "offloaded struct_for" in stages["ir_optimized"]
    assert "tin_parallel_for" in stages["llvm"]


def test_saxpy_vectorises_with_packed_simd():
    n = 4096
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    x.from_numpy(np.arange(n, dtype=np.float32))
    y.fill(1.0)
    saxpy(2.0)
    np.testing.assert_allclose(y.to_numpy(), 2 * np.arange(n, dtype=np.float32) + 1)
    asm = saxpy.stages()["asm"]
    # Packed single-precision ops on xmm/ymm/zmm registers: the loop was vectorised.
    assert re.search(r"\bv?(mulps|fmadd\w*ps|addps)\b", asm), asm[:2000]


def test_report_lists_tasks_and_loop_config():
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def k() -> ti.i32:
        total = 0
        ti.loop_config(block_dim=16, parallelize=2)
        for i in range(64):
            x[i] = i
        ti.loop_config(serialize=True)
        for i in range(64):
            total += x[i]
        return total

    assert k() == sum(range(64))
    report = k.stages()["report"]
    kinds = [t["kind"] for t in report["tasks"]]
    assert kinds == ["serial", "range_for", "serial"]
    assert report["tasks"][1]["loop_config"] == {"block_dim": 16, "parallelize": 2}
    assert report["compile_time_s"] > 0
    assert "offload" in report["passes"]


def test_thread_local_reduction_is_reported_and_correct():
    x = ti.field(ti.f32, shape=10000)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        for i in x:
            s[None] += x[i]

    x.fill(0.5)
    total()
    assert s[None] == pytest.approx(5000.0)
    report = total.stages()["report"]
    assert report["thread_local"] == [{"destination": "s[None]", "operation": "add", "task": 0}]
    assert "tls_" in total.stages()["ir_optimized"]


def test_thread_local_off_keeps_atomics():
    ti.init(arch=ti.cpu, make_thread_local=False)
    x = ti.field(ti.f32, shape=1000)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        for i in x:
            s[None] += x[i]

    x.fill(1.0)
    total()
    assert s[None] == 1000.0
    assert total.stages()["report"]["thread_local"] == []
    assert "atomicrmw" in total.stages()["llvm"]


def test_specialisations_keep_their_own_stages():
    a = ti.field(ti.f32, shape=4)
    b = ti.field(ti.f64, shape=4)

    @ti.kernel
    def fill(f: ti.template()):
        for i in f:
            f[i] = i

    fill(a)
    fill(b)
    assert "float" in fill.stages(a)["llvm_optimized"]
    assert "double" in fill.stages(b)["llvm_optimized"]
