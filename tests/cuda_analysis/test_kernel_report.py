"""The ``resources`` stage of a kernel compiled for CUDA: ptxas's figures per task and
the theoretical occupancy per candidate block_dim, marked at the launch's block_dim."""

import shutil

import pytest

import ti_notebook as ti
from ti_notebook.cuda_analysis import theoretical_occupancy
from ti_notebook.cuda_analysis.kernel_report import BLOCK_DIMS, gpu_resources

pytestmark = [pytest.mark.ptx, pytest.mark.needs_ptxas]
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")


def _kernels():
    x = ti.field(ti.f32, shape=4096)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def tot():
        ti.loop_config(block_dim=256)
        for i in x:
            s[None] += x[i]
        s[None] *= 2.0

    return tot


@needs_ptxas
def test_resources_stage_has_every_task_with_occupancy_per_block_dim():
    ti.init(arch=ti.cpu)
    stages = _kernels().stages(arch="cuda")
    resources = stages["resources"]
    launches = stages["report"].launches
    assert [k.kernel for k in resources.kernels] == [launch["kernel"] for launch in launches]
    first = resources.kernels[0]
    assert first.block_dim == 256 and first.resources.registers > 0
    assert set(first.occupancy) == {"sm_90", "sm_80"}
    assert tuple(first.occupancy["sm_80"]) == BLOCK_DIMS
    # the warps' totals of the reduction meet in 32 f32 slots of shared memory
    assert first.resources.shared_bytes == 32 * 4
    expected = theoretical_occupancy(
        "sm_80",
        block_size=64,
        registers=first.resources.registers,
        shared_bytes=first.resources.shared_bytes,
        barriers=1,
    )
    assert first.occupancy["sm_80"][64] == expected
    assert "occupancy at block_dim 256" in str(resources)


@needs_ptxas
def test_shared_memory_limits_occupancy_when_it_is_the_bottleneck():
    ptx = "\n".join(
        [
            ".version 7.8",
            ".target sm_80",
            ".address_size 64",
            ".visible .entry k(.param .u64 p)",
            "{",
            "  .shared .align 4 .b8 tile[40000];",
            "  .reg .b64 %rd<2>;",
            "  mov.u64 %rd1, tile;",
            "  st.shared.u32 [%rd1], 1;",
            "  bar.sync 0;",
            "  ret;",
            "}",
        ]
    )
    report = gpu_resources(ptx, [{"kernel": "k", "block_dim": 128, "shared_bytes": 0}])
    (kernel,) = report.kernels
    assert report.ptxas_arch == "sm_80" and kernel.resources.shared_bytes == 40000
    assert kernel.occupancy["sm_80"][128].limiting == "shared memory"


def test_no_ptxas_means_no_resources(monkeypatch):
    import ti_notebook.cuda_analysis.kernel_report as kernel_report

    monkeypatch.setattr(kernel_report, "find_ptxas", lambda: None)
    assert kernel_report.gpu_resources(".target sm_80", []) is None
