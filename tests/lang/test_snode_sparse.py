"""Sparse SNodes: pointer and bitmasked cells, activation, struct-for over active cells.

Every expectation was checked against real Taichi 1.7.4 (the shim in /tmp/tishim).

Taichi 1.7.4 facts relied on (observed):
- ``ti.is_active(snode, indices)`` takes the node itself and indices in *that node's*
  index space (its ``shape``): for ``blk = ti.root.pointer(ti.ij, 8)`` with a
  ``dense(ti.ij, 4)`` child, ``ti.is_active(blk, [4, 7])`` asks about the block holding
  cells [16..19] x [28..31]. A scalar works for 1-D nodes (``ti.is_active(bm, i)``) as
  well as a one-element list. ``ti.activate`` / ``ti.deactivate`` take the same
  arguments. ``ti.is_active`` on a dense node is a compile error (not tested here).
- ``x.snode`` is the place node, ``x.snode.parent()`` the node above it (the dense
  block for pointer+dense), ``x.snode.parent(2)`` the pointer; SNodes compare with ``==``.
- ``snode.deactivate_all()`` is a method of the (pointer / bitmasked) SNode, called from
  Python.
- Writing a cell (kernel or Python scope) activates its pointer block / bitmask bit;
  reading an inactive cell gives 0 and does not activate it.
- A struct-for over the field visits (active pointer blocks) x (dense block size) cells;
  over a bitmasked field only the active cells. ``for i, j in blk`` over the pointer
  node visits each active block once, with block indices.
- Deactivating a pointer block frees it: reactivated, its cells read 0 again.
- ``fill`` and ``from_numpy`` write only the cells that are active (they do not activate
  anything); ``to_numpy`` gives 0 for every inactive cell.
- A bitmasked cell keeps its old value when deactivated (Taichi does not clear it; reading
  it from Python or a kernel gives the stale value) - so nothing here reads deactivated
  bitmasked cells except through ``to_numpy``, which gives 0 for them.
"""

import numpy as np
import pytest
from snode_helpers import visit_counter

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _pointer_dense():
    x = ti.field(ti.i32)
    blk = ti.root.pointer(ti.ij, 8)
    blk.dense(ti.ij, 4).place(x)
    return x, blk


def _active_mask_2d(blk, n: int):
    """Kernel filling an (n, n) field with ti.is_active(blk, [i, j])."""
    mask = ti.field(ti.i32, shape=(n, n))

    @ti.kernel
    def fill_mask():
        for i, j in mask:
            mask[i, j] = ti.is_active(blk, [i, j])

    def get():
        fill_mask()
        return mask.to_numpy()

    return get


# --------------------------------------------------------------------------------------
# pointer + dense
# --------------------------------------------------------------------------------------


def test_pointer_dense_write_activates_blocks():
    x, blk = _pointer_dense()
    assert x.shape == (32, 32)
    assert blk.shape == (8, 8)
    assert x.snode.parent().shape == (32, 32)
    assert x.snode.parent(2) == blk
    count = visit_counter(x)

    assert count() == 0
    np.testing.assert_array_equal(x.to_numpy(), np.zeros((32, 32), np.int32))

    @ti.kernel
    def write():
        x[1, 2] = 5
        x[17, 30] = 7
        x[18, 31] = 8  # same block as [17, 30]

    write()
    assert count() == 2 * 16  # active blocks x dense block size

    expect = np.zeros((32, 32), np.int32)
    expect[1, 2], expect[17, 30], expect[18, 31] = 5, 7, 8
    arr = x.to_numpy()
    assert arr.shape == (32, 32) and arr.dtype == np.int32
    np.testing.assert_array_equal(arr, expect)
    assert (x[1, 2], x[17, 30], x[18, 31], x[0, 0]) == (5, 7, 8, 0)


def test_is_active_reports_written_blocks():
    x, blk = _pointer_dense()
    mask = _active_mask_2d(blk, 8)
    np.testing.assert_array_equal(mask(), np.zeros((8, 8), np.int32))

    @ti.kernel
    def write():
        x[1, 2] = 5
        x[17, 30] = 7
        x[18, 31] = 8

    write()
    expect_mask = np.zeros((8, 8), np.int32)
    expect_mask[0, 0] = expect_mask[4, 7] = 1  # block indices, not cell indices
    np.testing.assert_array_equal(mask(), expect_mask)
    x[30, 1] = 4  # a Python-scope write activates block (7, 0)
    expect_mask[7, 0] = 1
    np.testing.assert_array_equal(mask(), expect_mask)
    blk.deactivate_all()
    np.testing.assert_array_equal(mask(), np.zeros((8, 8), np.int32))


def test_pointer_reading_inactive_gives_zero_and_does_not_activate():
    x, blk = _pointer_dense()
    count = visit_counter(x)
    x[1, 2] = 5  # Python-scope write activates block (0, 0)
    assert count() == 16

    @ti.kernel
    def read(i: ti.i32, j: ti.i32) -> ti.i32:
        return x[i, j]

    assert read(1, 2) == 5
    assert read(9, 9) == 0
    assert read(31, 31) == 0
    assert x[20, 3] == 0
    assert x[3, 3] == 0  # active block, never written
    assert count() == 16

    @ti.kernel
    def sum_reads() -> ti.i32:
        s = 0
        for i, j in ti.ndrange(32, 32):
            s += x[i, j]
        return s

    assert sum_reads() == 5
    assert count() == 16


def test_pointer_struct_for_sees_values_of_active_cells():
    x, _ = _pointer_dense()
    cells = [(0, 0), (3, 3), (4, 0), (31, 31), (12, 20), (13, 21)]
    for k, (i, j) in enumerate(cells):
        x[i, j] = k + 1
    visited = ti.field(ti.i32, shape=(32, 32))

    @ti.kernel
    def walk() -> ti.i32:
        s = 0
        for i, j in x:
            visited[i, j] += 1
            s += x[i, j] * (i * 32 + j)
        return s

    expect_sum = sum((k + 1) * (i * 32 + j) for k, (i, j) in enumerate(cells))
    assert walk() == expect_sum
    blocks = {(i // 4, j // 4) for i, j in cells}
    assert len(blocks) == 4
    expect_visited = np.zeros((32, 32), np.int32)
    for bi, bj in blocks:
        expect_visited[bi * 4 : bi * 4 + 4, bj * 4 : bj * 4 + 4] = 1
    np.testing.assert_array_equal(visited.to_numpy(), expect_visited)


def test_pointer_grouped_struct_for():
    x, _ = _pointer_dense()
    x[30, 1] = 2
    x[7, 7] = 3

    @ti.kernel
    def count_and_sum() -> ti.i32:
        n = 0
        s = 0
        for I in ti.grouped(x):  # noqa: E741
            n += 1
            s += x[I]
        return n * 1000 + s

    assert count_and_sum() == 32 * 1000 + 5


def test_struct_for_over_pointer_node_visits_blocks():
    x, blk = _pointer_dense()
    x[1, 2] = 1
    x[17, 30] = 1
    x[18, 29] = 1

    @ti.kernel
    def blocks() -> ti.i32:
        n = 0
        for i, j in blk:
            n += 1000 + i * 10 + j
        return n

    assert blocks() == 2000 + (0 * 10 + 0) + (4 * 10 + 7)


def test_pointer_deactivate_all():
    x, blk = _pointer_dense()
    count = visit_counter(x)
    for i, j in [(0, 0), (5, 9), (31, 0), (20, 20)]:
        x[i, j] = 9
    assert count() == 4 * 16
    blk.deactivate_all()
    assert count() == 0
    np.testing.assert_array_equal(x.to_numpy(), np.zeros((32, 32), np.int32))
    assert x[5, 9] == 0
    # the same node reached through the field
    x[2, 2] = 1
    assert count() == 16
    x.snode.parent(2).deactivate_all()
    assert count() == 0
    # writing again activates a fresh block that reads 0 except the written cell
    x[5, 9] = 3
    assert count() == 16
    block = x.to_numpy()[4:8, 8:12]
    assert block.sum() == 3 and block[1, 1] == 3


def test_activate_and_deactivate_in_kernels():
    x, blk = _pointer_dense()
    count = visit_counter(x)
    mask = _active_mask_2d(blk, 8)

    @ti.kernel
    def activate(i: ti.i32, j: ti.i32):
        ti.activate(blk, [i, j])

    @ti.kernel
    def deactivate(i: ti.i32, j: ti.i32):
        ti.deactivate(blk, [i, j])

    @ti.kernel
    def is_active(i: ti.i32, j: ti.i32) -> ti.i32:
        return ti.is_active(blk, [i, j])

    x[1, 2] = 5
    activate(3, 3)
    assert count() == 2 * 16
    assert is_active(3, 3) == 1 and is_active(0, 0) == 1 and is_active(3, 4) == 0
    assert x[12, 12] == 0  # an activated block reads 0
    activate(3, 3)  # activating an active block changes nothing
    assert count() == 2 * 16

    deactivate(0, 0)
    assert is_active(0, 0) == 0
    assert count() == 16
    assert x[1, 2] == 0
    expect_mask = np.zeros((8, 8), np.int32)
    expect_mask[3, 3] = 1
    np.testing.assert_array_equal(mask(), expect_mask)

    activate(0, 0)  # reactivated: the old value is gone
    assert count() == 2 * 16
    assert x[1, 2] == 0
    deactivate(6, 6)  # deactivating an inactive block changes nothing
    assert count() == 2 * 16


def test_is_active_in_a_struct_for_over_the_field():
    x, blk = _pointer_dense()
    x[0, 0] = 1
    x[31, 31] = 1

    @ti.kernel
    def all_active() -> ti.i32:
        ok = 1
        for i, j in x:
            if ti.is_active(blk, [i // 4, j // 4]) == 0:
                ok = 0
        return ok

    assert all_active() == 1


def test_pointer_fill_from_numpy_touch_only_active_cells():
    x, _ = _pointer_dense()
    count = visit_counter(x)
    x[5, 6] = 1  # block (1, 1)
    x[30, 0] = 2  # block (7, 0)
    x.fill(9)
    assert count() == 2 * 16
    expect = np.zeros((32, 32), np.int32)
    expect[4:8, 4:8] = 9
    expect[28:32, 0:4] = 9
    np.testing.assert_array_equal(x.to_numpy(), expect)

    src = np.arange(32 * 32, dtype=np.int32).reshape(32, 32) + 1
    x.from_numpy(src)
    assert count() == 2 * 16
    expect = np.zeros((32, 32), np.int32)
    expect[4:8, 4:8] = src[4:8, 4:8]
    expect[28:32, 0:4] = src[28:32, 0:4]
    np.testing.assert_array_equal(x.to_numpy(), expect)

    with pytest.raises(ValueError):
        x.from_numpy(np.zeros((32, 16), np.int32))


def test_sparse_aos_cell_shares_activation():
    x = ti.field(ti.i32)
    y = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 4).place(x, y)
    assert x.shape == y.shape == (16,)
    count_y = visit_counter(y)
    x[5] = 1  # activates the block holding x[4..7] and y[4..7]
    assert count_y() == 4
    y[6] = 2.5
    assert count_y() == 4
    np.testing.assert_array_equal(y.to_numpy(), np.array([0] * 6 + [2.5] + [0] * 9, np.float32))
    ptr.deactivate_all()
    assert count_y() == 0
    assert x[5] == 0


def _nested_pointers():
    q = ti.field(ti.i32)
    p1 = ti.root.pointer(ti.i, 4)
    p2 = p1.pointer(ti.i, 4)
    p2.dense(ti.i, 2).place(q)

    @ti.kernel
    def write():
        q[0] = 1
        q[3] = 2
        q[9] = 3
        q[31] = 4

    return q, p1, p2, write


def test_nested_pointers():
    q, p1, p2, write = _nested_pointers()
    assert q.shape == (32,)
    assert p2.shape == (16,)
    count = visit_counter(q)
    write()
    assert count() == 4 * 2  # four active leaf blocks of 2 cells
    expect_arr = np.zeros(32, np.int32)
    expect_arr[[0, 3, 9, 31]] = [1, 2, 3, 4]
    np.testing.assert_array_equal(q.to_numpy(), expect_arr)
    p2.deactivate_all()
    assert count() == 0
    np.testing.assert_array_equal(q.to_numpy(), np.zeros(32, np.int32))
    write()
    assert count() == 8
    p1.deactivate_all()
    assert count() == 0
    q[20] = 5
    assert count() == 2


def test_nested_pointers_is_active_per_level():
    q, p1, p2, write = _nested_pointers()

    @ti.kernel
    def active(k: ti.i32) -> ti.i32:
        # p1 is asked in its own index space (0..3), p2 in its own (0..15)
        return ti.is_active(p1, k // 4) * 10 + ti.is_active(p2, k)

    write()
    got = [active(k) for k in range(16)]
    expect = [0] * 16
    for cell in (0, 1, 4, 15):  # p2 cells holding q[0], q[3], q[9], q[31]
        expect[cell] = 1
    for k in range(16):
        if k // 4 in (0, 1, 3):
            expect[k] += 10
    assert got == expect

    p2.deactivate_all()  # the leaves go, the upper pointer cells stay
    assert [active(k) for k in range(0, 16, 4)] == [10, 10, 0, 10]
    write()
    p1.deactivate_all()
    assert [active(k) for k in range(16)] == [0] * 16
