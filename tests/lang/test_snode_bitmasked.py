"""Bitmasked SNodes (one activity bit per cell), alone and under pointers, and the BLS
example's sparse field (seed 001). Checked against real Taichi 1.7.4; the facts relied
on are listed in ``test_snode_sparse.py``.
"""

import numpy as np
import pytest
from snode_helpers import visit_counter

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_bitmasked_fill_and_from_numpy_touch_only_active_cells():
    y = ti.field(ti.f32)
    bm = ti.root.bitmasked(ti.i, 16)
    bm.place(y)
    count = visit_counter(y)
    y[3] = 1.5
    y[10] = 2.0
    y.fill(4)
    assert count() == 2
    expect = np.zeros(16, np.float32)
    expect[[3, 10]] = 4
    np.testing.assert_array_equal(y.to_numpy(), expect)
    y.from_numpy(np.arange(16, dtype=np.float32) + 1)
    assert count() == 2
    expect[[3, 10]] = [4, 11]
    np.testing.assert_array_equal(y.to_numpy(), expect)


# --------------------------------------------------------------------------------------
# bitmasked
# --------------------------------------------------------------------------------------


def test_bitmasked_per_cell_activation():
    y = ti.field(ti.f32)
    bm = ti.root.bitmasked(ti.i, 16)
    bm.place(y)
    assert y.shape == (16,)
    assert y.snode.parent() == bm
    count = visit_counter(y)

    @ti.kernel
    def write():
        y[3] = 1.5
        y[10] = 2.0

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in y:
            s += y[i]
        return s

    assert count() == 0
    write()
    assert count() == 2
    assert total() == 3.5
    assert y[4] == 0.0  # never written: 0
    np.testing.assert_array_equal(
        y.to_numpy(), np.array([0, 0, 0, 1.5] + [0] * 6 + [2.0] + [0] * 5, np.float32)
    )
    y[15] = 4.0  # Python write activates
    assert count() == 3
    assert total() == 7.5

    bm.deactivate_all()
    assert count() == 0
    np.testing.assert_array_equal(y.to_numpy(), np.zeros(16, np.float32))


def test_bitmasked_is_active_activate_deactivate():
    y = ti.field(ti.f32)
    bm = ti.root.bitmasked(ti.i, 16)
    bm.place(y)
    count = visit_counter(y)

    @ti.kernel
    def active(i: ti.i32) -> ti.i32:
        return ti.is_active(bm, i) + ti.is_active(bm, [i]) * 10

    @ti.kernel
    def deactivate(i: ti.i32):
        ti.deactivate(bm, i)

    @ti.kernel
    def activate(i: ti.i32):
        ti.activate(bm, [i])

    y[3] = 1.5
    y[10] = 2.0
    assert [i for i in range(16) if active(i)] == [3, 10]
    assert active(3) == 11

    deactivate(3)
    assert count() == 1
    assert active(3) == 0
    assert y.to_numpy()[3] == 0.0  # inactive cells read as 0 in to_numpy
    activate(7)
    assert count() == 2
    assert active(7) == 11
    assert y[7] == 0.0
    bm.deactivate_all()
    assert [i for i in range(16) if active(i)] == []


def test_bitmasked_2d_with_dense_children():
    z = ti.field(ti.i32)
    bm = ti.root.bitmasked(ti.ij, (4, 4))
    bm.dense(ti.ij, (2, 2)).place(z)
    assert z.shape == (8, 8)
    count = visit_counter(z)

    @ti.kernel
    def write():
        z[0, 0] = 1
        z[7, 7] = 2
        z[7, 6] = 3
        z[2, 5] = 4

    write()
    assert count() == 3 * 4  # 3 active bits x 2x2 cells
    expect = np.zeros((8, 8), np.int32)
    expect[0, 0], expect[7, 7], expect[7, 6], expect[2, 5] = 1, 2, 3, 4
    np.testing.assert_array_equal(z.to_numpy(), expect)


def test_pointer_over_bitmasked():
    q = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    bits = ptr.bitmasked(ti.i, 4)
    bits.place(q)
    count = visit_counter(q)

    @ti.kernel
    def write():
        q[1] = 1
        q[2] = 1
        q[9] = 1

    write()
    assert count() == 3  # only the set bits, not whole pointer blocks
    np.testing.assert_array_equal(q.to_numpy(), np.isin(np.arange(16), [1, 2, 9]).astype(np.int32))
    ptr.deactivate_all()
    assert count() == 0

    @ti.kernel
    def active(i: ti.i32) -> ti.i32:
        return ti.is_active(ptr, i // 4) * 10 + ti.is_active(bits, i)

    write()
    got = [active(i) for i in range(16)]
    expect = [10 * (i // 4 in (0, 2)) + (i in (1, 2, 9)) for i in range(16)]
    assert got == expect


# --------------------------------------------------------------------------------------
# The BLS example's sparse field (seed 001)
# --------------------------------------------------------------------------------------


def test_bls_example_sparse_field_written_and_summed():
    a = ti.field(ti.f32)
    # `a` has a block size of 4x4
    ti.root.pointer(ti.ij, 32).dense(ti.ij, 4).place(a)
    # (the page's `b = ti.field(ti.f32)` is left out: Taichi refuses to run any kernel
    # while a declared field is not placed)
    assert a.shape == (128, 128)

    @ti.kernel
    def write():
        for k in range(10):
            a[k * 13, (k * 29) % 128] = k + 0.5
        a[127, 127] = 100.0

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i, j in a:
            s += a[i, j]
        return s

    @ti.kernel
    def stencil_like() -> ti.f32:
        # reads neighbours, inactive ones included, as the BLS example's loop does
        s = 0.0
        for i, j in a:
            if i > 0 and j < 126:
                s += a[i - 1, j] + a[i, j + 2]
        return s

    write()
    cells = {(k * 13, (k * 29) % 128): k + 0.5 for k in range(10)}
    cells[(127, 127)] = 100.0
    expect = np.zeros((128, 128), np.float32)
    for (i, j), v in cells.items():
        expect[i, j] = v
    assert total() == pytest.approx(float(expect.sum()))
    np.testing.assert_array_equal(a.to_numpy(), expect)
    blocks = {(i // 4, j // 4) for i, j in cells}
    count = visit_counter(a)
    assert count() == len(blocks) * 16

    ref = 0.0
    for bi, bj in blocks:
        for i in range(bi * 4, bi * 4 + 4):
            for j in range(bj * 4, bj * 4 + 4):
                if i > 0 and j < 126:
                    ref += expect[i - 1, j] + expect[i, j + 2]
    assert stencil_like() == pytest.approx(ref)
    assert count() == len(blocks) * 16  # the neighbour reads activated nothing
