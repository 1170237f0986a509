"""A struct-for over a sparse field visits the cells that were active when it started,
even when its body activates or deactivates cells (Taichi builds its list of active
cells before the loop; we copy the activity bits at the task's start)."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _count_field():
    return ti.field(ti.i32, shape=())


def test_activating_later_cells_of_a_bitmasked_leaf_does_not_extend_the_loop():
    x = ti.field(ti.i32)
    ti.root.bitmasked(ti.i, 64).place(x)
    visited = _count_field()

    @ti.kernel
    def grow():
        for i in x:
            visited[None] += 1
            if i + 1 < 64:
                x[i + 1] = 1

    x[0] = 1
    for launch in range(1, 5):
        visited[None] = 0
        grow()
        assert visited[None] == launch  # one more cell active per launch, as in Taichi
    assert grow.stages()["report"]["tasks"][-1]["kind"] == "struct_for"


def test_activating_cells_in_new_pointer_blocks_does_not_extend_the_loop():
    x = ti.field(ti.i32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 4).place(x)
    visited = _count_field()

    @ti.kernel
    def spread():
        for i in x:
            visited[None] += 1
            if i + 4 < 32:
                x[i + 4] = x[i] + 1

    x[0] = 1
    spread()
    assert visited[None] == 4  # only the first block's cells were active
    values = x.to_numpy()
    np.testing.assert_array_equal(values[:8], [1, 0, 0, 0, 2, 1, 1, 1])
    assert not values[8:].any()


def test_deactivating_later_blocks_does_not_shrink_the_loop():
    y = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 16)
    block.bitmasked(ti.i, 4).place(y)
    visited = _count_field()

    @ti.kernel
    def shrink():
        for i in y:
            visited[None] += 1
            ti.deactivate(block, [(i // 4 + 1) % 16])

    for i in range(64):
        y[i] = 1
    shrink()
    assert visited[None] == 64


def test_loops_that_only_write_their_own_cells_take_no_snapshot():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 4).place(x)

    @ti.kernel
    def scale():
        for i in x:
            x[i] = x[i] * 2

    x[5] = 1.5
    scale()
    assert x[5] == 3.0
    assert "snapshot" not in scale.stages()["llvm"]


@pytest.mark.cpu_only(
    reason="the CPU copies the bits with llvm.memcpy; CUDA launches a copy kernel "
    "(tests/cuda_sim/test_sim_struct_for.py)"
)
def test_a_loop_that_activates_takes_a_snapshot_in_its_code():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 4).place(x)

    @ti.kernel
    def shift():
        for i in x:
            if i + 4 < 32:
                x[i + 4] = 1.0

    x[0] = 1.0
    shift()
    llvm = shift.stages()["llvm"]
    assert "snapshot" in llvm and "llvm.memcpy" in llvm
