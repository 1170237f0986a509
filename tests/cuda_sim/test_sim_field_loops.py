"""Sparse fields' Python-scope methods on the GPU: compiled loops that run where the field
lives, interleaved with host writes and kernels, must give the CPU's results, and on a
device they read and write the device copy without bringing the tree back to the host.
"""

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti

N = 8


def _sparse_fields():
    x = ti.field(ti.f32)
    blocks = ti.root.pointer(ti.ij, 4)
    blocks.dense(ti.ij, 2).place(x)
    v = ti.Vector.field(2, ti.f32)
    ti.root.pointer(ti.ij, 2).bitmasked(ti.ij, 4).place(v)
    d = ti.field(ti.i32)
    lists = ti.root.dense(ti.i, N).dynamic(ti.j, N, chunk_size=4)
    lists.place(d)
    return x, blocks, v, d, lists


def test_sparse_methods_match_the_cpu(gpu):
    def build():
        x, blocks, v, d, lists = _sparse_fields()
        dense = ti.field(ti.f32, shape=(N, N))

        @ti.kernel
        def touch():
            for i, j in ti.ndrange(N, N):
                if (i + 2 * j) % 5 == 0:
                    x[i, j] += 1.0
                    v[i, j] += ti.Vector([1.0, 2.0])
                    d[i, j] += 3

        out = []
        x[0, 0], v[7, 7], d[1, 4] = 4.0, [5.0, 6.0], 7  # host writes, then a kernel
        touch()
        x.fill(2.0)
        v.fill([3.0, 4.0])
        d.fill(5)
        out += [x.to_numpy(), v.to_numpy(), d.to_numpy()]
        grid = np.arange(N * N, dtype=np.float32).reshape(N, N)
        x.from_numpy(grid)
        v.from_numpy(np.stack([grid, -grid], axis=-1))
        d.from_numpy(grid.astype(np.int32))
        out += [x.to_numpy(), v.to_numpy(), d.to_numpy(), x[2, 1], v[7, 7][1]]
        ti.deactivate(blocks, [0, 0])
        ti.deactivate(lists, 0)
        v.parent(2).deactivate_all()  # the inner bitmasked cells, by a compiled loop
        out += [x.to_numpy(), v.to_numpy(), d.to_numpy()]
        touch()
        dense.from_numpy(grid + 0.5)
        x.copy_from(dense)  # every cell active afterwards
        d.copy_from(d)
        v.fill(1.0)
        out += [x.to_numpy(), v.to_numpy(), d.to_numpy(), x[5, 6]]
        blocks.deactivate_all()
        x.fill(9.0)
        out.append(x.to_numpy())
        return out

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert expected[-2] == 46.5 and not expected[-1].any()


def test_on_a_device_the_loops_leave_the_tree_there(gpu):
    if not gpu.on_emulator or gpu.name == "cuda_sim":
        pytest.skip("counts the transfers of the device runtime (the fake device)")
    gpu.init()
    x, blocks, _v, _d, _lists = _sparse_fields()

    @ti.kernel
    def touch():
        for i, j in ti.ndrange(N, N):
            if i == j:
                x[i, j] = 1.0

    touch()
    device = x.tree.memory.device
    before = device.downloads
    x.fill(3.0)
    x.from_numpy(np.ones((N, N), np.float32))
    values = x.to_numpy()
    assert device.downloads == before  # the kernels ran on the device copy
    assert values.sum() == 2 * N and x[1, 1] == 1.0  # (2x2 blocks on the diagonal)
