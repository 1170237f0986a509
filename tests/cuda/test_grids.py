"""The launcher's grids (``cuda_launch.grid_dims``) for the device of the compile are the
launch table's own: every kind of entry ``codegen/nvptx/module.py`` makes."""

from __future__ import annotations

import dataclasses

import pytest

import ti_notebook as ti
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.ir.launch_abi import Launch, grid_dim
from ti_notebook.runtime.cuda.launch import grid_dims

pytestmark = pytest.mark.ptx


def kernels():
    dense = ti.field(ti.f32, shape=(300, 200))
    sparse = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 8).dense(ti.ij, 16).place(sparse)
    bls_in, bls_out = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 16).place(bls_in, bls_out)

    @ti.kernel
    def mixed(n: ti.i32) -> ti.f32:
        s = 0.0
        for i, j in dense:
            dense[i, j] = i + j
        for i in range(n):
            s += dense[i, 0]
        for i, j in sparse:
            sparse[i, j] += 1
        for i, j in sparse:
            if sparse[i, j] > 3:
                ti.deactivate(sparse.parent(2), [i // 16, j // 16])
        return s

    @ti.kernel
    def blocked():
        ti.block_local(bls_in)
        for i, j in bls_in:
            bls_out[i, j] = bls_in[i, j] + bls_in[i, j + 1] if j < 63 else 0.0

    @ti.kernel
    def configured():
        ti.loop_config(block_dim=64)
        for i in range(5000):
            dense[i % 300, 0] = 1.0

    return [(mixed, (7,)), (blocked, ()), (configured, ())]


@pytest.mark.parametrize("capability", ["sm_80", "sm_90"])
def test_grids_match_the_compiled_launch_table(capability):
    seen = set()
    for kernel, args in kernels():
        report = kernel.stages(*args, arch="cuda", compute_capability=capability)["report"]
        launches = [Launch.from_dict(launch) for launch in report.launches]
        seen.update(launch.kind for launch in launches)
        device = CudaDevice.for_capability(capability)
        assert grid_dims(launches, device) == [launch.grid_dim for launch in launches]
    assert {"serial", "range_for", "struct_for", "snapshot", "list_clear", "list"} <= seen


def test_a_smaller_gpu_gets_smaller_grids():
    launches = [
        Launch("a", "range_for", 128, None),
        Launch("b", "range_for", 128, 300),
        Launch("c_list", "list", 128, 500),
        Launch("c", "struct_for", 128, 8000, block_list=True),
        Launch("d_list_clear", "list_clear", 1, None),
        Launch("e", "serial", 1, None),
    ]
    small = CudaDevice("sm_86", multiprocessors=2, blocks_per_multiprocessor=16)
    assert grid_dims(launches, small) == [64, 3, 4, 64, 1, 1]


def test_a_task_reducing_across_warps_gets_the_smaller_reduction_grid():
    device = CudaDevice.for_capability("sm_90")
    reduce = Launch("k_task0", "range_for", 128, None, warp_reduction=True)
    assert grid_dim(reduce, device) == device.reduction_grid == device.saturating_grid // 4
    short = dataclasses.replace(reduce, iterations=1000)
    assert grid_dim(short, device) == 8  # a block per 128 iterations still caps it


def test_the_compiled_launch_table_and_the_launcher_agree_on_a_reduction():
    x = ti.field(ti.f32, shape=1 << 22)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        for i in x:
            s[None] += x[i]

    stages = total.stages(arch="cuda", compute_capability="sm_90")
    (entry,) = stages["report"].launches
    launch = Launch.from_dict(dict(entry))
    device = CudaDevice.for_capability("sm_90")
    assert launch.warp_reduction and launch.grid_dim == device.reduction_grid
    assert grid_dims([launch], device) == [launch.grid_dim]
