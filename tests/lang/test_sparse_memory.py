"""Sparse nodes: memory measured through the OS, in-kernel deactivation, misuse errors.

Memory use is read with ``mincore`` (``SNodeTree.resident_bytes()``): what the kernel
actually committed, not what the code believes it allocated.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

MIB = 1 << 20


def _big_pointer_grid():
    fb = ti.FieldsBuilder()
    x = ti.field(ti.f32)
    blk = fb.pointer(ti.ij, 4096 // 16)
    blk.dense(ti.ij, 16).place(x)
    return fb.finalize(), x, blk


def test_mostly_empty_4096_pointer_grid_commits_only_its_active_blocks():
    tree, x, blk = _big_pointer_grid()
    assert x.shape == (4096, 4096)
    dense_bytes = 4096 * 4096 * 4
    assert tree.resident_bytes() < MIB

    @ti.kernel
    def touch():
        x[0, 0] = 1.0
        x[2000, 17] = 2.0
        x[4095, 4095] = 3.0

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i, j in x:
            s += x[i, j]
        return s

    touch()
    assert total() == 6.0
    resident = tree.resident_bytes()
    # three 16x16 f32 blocks (1 KiB each) land on at most three rows of pages each;
    # the 8 KiB bitmask and a few page-table neighbours are all that may come with them
    assert 0 < resident < MIB, resident
    assert resident < dense_bytes / 64

    @ti.kernel
    def fill_row(i: ti.i32):
        for j in range(4096):
            x[i, j] = 1.0

    fill_row(100)  # one row of 256 blocks, each 16 rows x 64 B: 64 KiB of data
    grown = tree.resident_bytes()
    assert resident < grown < 16 * MIB
    blk.deactivate_all()
    assert tree.resident_bytes() < grown
    assert total() == 0.0
    tree.destroy()


def test_dense_grid_of_the_same_size_commits_on_write():
    # the control for the test above: the same measurement sees dense memory
    fb = ti.FieldsBuilder()
    y = ti.field(ti.f32)
    fb.dense(ti.ij, (1024, 1024)).place(y)
    tree = fb.finalize()

    @ti.kernel
    def fill():
        for i, j in y:
            y[i, j] = 1.0

    fill()
    assert tree.resident_bytes() >= 4 * MIB
    tree.destroy()


def test_in_kernel_deactivate_of_upper_pointer_clears_the_cells_below():
    q = ti.field(ti.i32)
    p1 = ti.root.pointer(ti.i, 4)
    p2 = p1.pointer(ti.i, 4)
    p2.dense(ti.i, 2).place(q)

    @ti.kernel
    def fill_all():
        for i in range(32):
            q[i] = i + 1

    @ti.kernel
    def drop(k: ti.i32):
        ti.deactivate(p1, k)

    @ti.kernel
    def wake(k: ti.i32):
        ti.activate(p1, k)

    @ti.kernel
    def leaves() -> ti.i32:
        n = 0
        for k in range(16):
            n += ti.is_active(p2, k)
        return n

    @ti.kernel
    def visits() -> ti.i32:
        n = 0
        for _i in q:
            n += 1
        return n

    fill_all()
    assert leaves() == 16 and visits() == 32
    drop(1)  # q[8..15] lived there
    assert leaves() == 12 and visits() == 24
    wake(1)  # a fresh block: its four leaves are inactive, its values zero
    assert leaves() == 12 and visits() == 24
    expect = np.arange(1, 33, dtype=np.int32)
    expect[8:16] = 0
    np.testing.assert_array_equal(q.to_numpy(), expect)


def test_in_kernel_deactivate_clears_a_2d_block_of_bits_only():
    z = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.ij, (2, 3))
    bits = ptr.bitmasked(ti.ij, (2, 2))
    bits.place(z)
    assert z.shape == (4, 6)

    @ti.kernel
    def fill_all():
        for i, j in ti.ndrange(4, 6):
            z[i, j] = 1

    @ti.kernel
    def drop(i: ti.i32, j: ti.i32):
        ti.deactivate(ptr, [i, j])

    @ti.kernel
    def bit_map() -> ti.i64:
        code = ti.i64(0)
        for i, j in ti.ndrange(4, 6):
            if ti.is_active(bits, [i, j]):
                code |= ti.i64(1) << (i * 6 + j)
        return code

    fill_all()
    drop(1, 2)  # cells [2..3] x [4..5]
    expect = np.ones((4, 6), np.int32)
    expect[2:4, 4:6] = 0
    code = bit_map()
    got = np.array([(code >> (i * 6 + j)) & 1 for i in range(4) for j in range(6)])
    np.testing.assert_array_equal(got.reshape(4, 6), expect)
    np.testing.assert_array_equal(z.to_numpy(), expect)
    ti.root  # noqa: B018 - the default tree stays usable


def test_struct_for_over_bitmasked_node_gives_its_indices():
    y = ti.field(ti.i32)
    bm = ti.root.bitmasked(ti.ij, (8, 8))
    bm.place(y)
    y[1, 2] = 1
    y[7, 0] = 1
    seen = ti.field(ti.i32, shape=(8, 8))

    @ti.kernel
    def mark():
        for i, j in bm:
            seen[i, j] += 1

    mark()
    expect = np.zeros((8, 8), np.int32)
    expect[1, 2] = expect[7, 0] = 1
    np.testing.assert_array_equal(seen.to_numpy(), expect)


def test_is_active_on_a_dense_node_is_a_compile_error():
    x = ti.field(ti.i32)
    blk = ti.root.pointer(ti.i, 4)
    cell = blk.dense(ti.i, 4)
    cell.place(x)

    @ti.kernel
    def ask() -> ti.i32:
        return ti.is_active(cell, 0)

    with pytest.raises(ti.errors.TiTypeError) as info:
        ask()
    message = str(info.value)
    assert "dense" in message and "ask" in message and "^" in message

    @ti.kernel
    def wrong_rank() -> ti.i32:
        return ti.is_active(blk, [0, 0])

    with pytest.raises(ti.errors.TiTypeError, match="1-D node"):
        wrong_rank()


def test_sparse_builtins_work_from_python_too():
    # Taichi allows them in kernels only; here Python scope computes on the bits
    # (tests/lang/test_snode_helpers.py has the rest)
    blk = ti.root.pointer(ti.i, 4)
    blk.place(ti.field(ti.i32))
    assert ti.is_active(blk, 0) == 0
    ti.activate(blk, 0)
    assert ti.is_active(blk, 0) == 1


def test_destroying_a_tree_twice_raises():
    fb = ti.FieldsBuilder()
    fb.dense(ti.i, 4).place(ti.field(ti.i32))
    tree = fb.finalize()
    tree.destroy()
    with pytest.raises(RuntimeError, match="already destroyed"):
        tree.destroy()
