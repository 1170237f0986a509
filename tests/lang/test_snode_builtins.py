"""SNode builtins besides dynamic lists: one extent for every axis, ``ti.rescale_index``,
``ti.get_addr``, ``ti.is_active``/``activate``/``deactivate`` from Python,
``deactivate_all`` on any node, ``ti.deactivate_all_snodes`` and ``ti.no_activate``.

Checked against real Taichi 1.7.4 where Taichi has the feature:
- ``pointer(ti.ijk, [64])`` is 64 along every axis (algorithm/mgpcg.py);
- ``ti.rescale_index(x, block1, [9, 17])`` is ``[2, 4]`` for the blocks of
  features/sparse/explicit_activation.py (Python and kernel); Taichi's kernel version
  fails for a finer ``b`` (a division by zero while compiling), here it multiplies;
- ``ti.get_addr(a.snode, [i, j]) - ti.get_addr(a.snode, [0, 0])`` for
  algorithm/print_offset.py's nested layout gives the table printed below; for a node
  that holds no field it is the address of the block of cells holding cell ``I``
  (``ti.get_addr(a.parent(), [1, 3]) - base == 16``, ``a.parent(2), [1, 1]`` gives 0);
- ``SNode.deactivate_all()`` on a dense node deactivates the sparse nodes below it;
  ``ti.deactivate_all_snodes()`` those of every tree.
Taichi allows ``ti.is_active``/``activate``/``deactivate`` in kernels only; here they
also work from Python (a choice: they compute on the tree's bits).
"""

import numpy as np
import pytest
from snode_helpers import visit_counter

import ti_notebook as ti

pytestmark = pytest.mark.cpu


# -- one extent for every axis ------------------------------------------------------------
def test_a_single_extent_applies_to_every_axis():
    x, y, z = ti.field(ti.f32), ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ijk, [4]).dense(ti.ijk, 2).place(x)
    ti.root.dense(ti.ij, (3,)).place(y)
    ti.root.bitmasked(ti.ij, [5]).place(z)
    assert x.shape == (8, 8, 8) and y.shape == (3, 3) and z.shape == (5, 5)
    with pytest.raises(ti.errors.TiValueError, match="2 extents for 3 axes"):
        ti.root.dense(ti.ijk, [4, 4])


# -- ti.rescale_index -------------------------------------------------------------------
def _explicit_activation_blocks():
    x = ti.field(ti.i32)
    block1 = ti.root.pointer(ti.ij, (4, 4))
    block2 = block1.pointer(ti.ij, (2, 2))
    block2.dense(ti.ij, (2, 2)).place(x)
    return x, block1, block2


def test_rescale_index_in_kernels_and_python():
    x, block1, block2 = _explicit_activation_blocks()
    out = ti.field(ti.i32, shape=8)

    @ti.kernel
    def rescale():
        a = ti.rescale_index(x, block1, ti.Vector([9, 17]))
        b = ti.rescale_index(x, block1, [9, 17])
        c = ti.rescale_index(block2, block1, [5, 3])
        d = ti.rescale_index(block1, x, [1, 2])  # finer: multiplied
        out[0], out[1], out[2], out[3] = a[0], a[1], b[0], b[1]
        out[4], out[5], out[6], out[7] = c[0], c[1], d[0], d[1]

    rescale()
    assert out.to_numpy().tolist() == [2, 4, 2, 4, 2, 1, 4, 8]
    assert ti.rescale_index(x, block1, [9, 17]).tolist() == [2, 4]
    assert ti.rescale_index(x, block2, [9]).tolist() == [4]  # only the axes given
    with pytest.raises(ti.errors.TiTypeError, match="field or an SNode"):
        ti.rescale_index(np.zeros(3), block1, [1])


def test_explicit_activation_example(capfd):
    x, block1, block2 = _explicit_activation_blocks()

    @ti.kernel
    def demo():
        ti.activate(block1, [0, 1])
        ti.activate(block2, [1, 2])
        for i, j in x:
            print(i, j, x[i, j])
        for i, j in block2:
            print("block2", i, j)
        for j in range(4):
            print("activity", j, ti.is_active(block2, [1, j]))
        ti.deactivate(block2, [1, 2])
        for i, j in block2:
            print("still", i, j)

    demo()
    lines = capfd.readouterr().out.split("\n")
    assert sorted(lines[:4]) == ["2 4 0", "2 5 0", "3 4 0", "3 5 0"]
    assert lines[4] == "block2 1 2"
    assert sorted(lines[5:9]) == [f"activity {j} {int(j == 2)}" for j in range(4)]
    assert "still" not in "".join(lines)
    assert ti.is_active(block1, [0, 1]) == 1 and ti.is_active(block2, [1, 2]) == 0


# -- ti.get_addr ------------------------------------------------------------------------
def test_get_addr_follows_the_plan():
    a = ti.field(ti.i32)
    ti.root.dense(ti.ij, (1, 2)).dense(ti.ij, 2).dense(ti.ij, 2).place(a)

    @ti.kernel
    def fill():
        for i, j in a:
            base = ti.get_addr(a.snode, [0, 0])
            a[i, j] = int(ti.get_addr(a.snode, [i, j]) - base) // 4

    fill()
    expect = [
        [0, 1, 4, 5, 16, 17, 20, 21],
        [2, 3, 6, 7, 18, 19, 22, 23],
        [8, 9, 12, 13, 24, 25, 28, 29],
        [10, 11, 14, 15, 26, 27, 30, 31],
    ]
    assert a.to_numpy().tolist() == expect  # print_offset.py's table, as Taichi prints it
    layout = a.layout()
    assert (layout.addresses() - layout.offset).tolist() == (np.array(expect) * 4).tolist()

    @ti.kernel
    def blocks() -> ti.i64:
        base = ti.get_addr(a, [0, 0])
        first = ti.cast(ti.get_addr(a.parent(), [1, 3]) - base, ti.i64)
        second = ti.cast(ti.get_addr(a.parent(2), [1, 1]) - base, ti.i64)
        return first * 1000 + second

    assert blocks() == 16 * 1000 + 0


def test_get_addr_is_a_real_u64_address_of_the_tree():
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def where(i: ti.i32) -> ti.u64:
        return ti.get_addr(x, [i])

    assert where(5) - where(0) == 20
    assert where(0) == x.tree.memory.address + x.layout().offset


def test_get_addr_misuse():
    v = ti.Vector.field(2, ti.f32, shape=4)
    with pytest.raises(ti.errors.TiSyntaxError, match="only be used inside a kernel"):
        ti.get_addr(v, [0])

    @ti.kernel
    def vector_field() -> ti.u64:
        return ti.get_addr(v, [0])

    with pytest.raises(ti.errors.TiTypeError, match="scalar field or an SNode") as e:
        vector_field()
    assert "ti.get_addr(v, [0])" in str(e.value)


# -- activity from Python -------------------------------------------------------------------
def test_activity_from_python_matches_the_kernels():
    x = ti.field(ti.i32)
    outer = ti.root.pointer(ti.i, 4)
    inner = outer.bitmasked(ti.i, 4)
    inner.place(x)
    count = visit_counter(x)

    @ti.kernel
    def active(i: ti.i32) -> ti.i32:
        return ti.is_active(inner, i)

    ti.activate(inner, 5)  # activates outer cell 1 too
    assert (active(5), ti.is_active(outer, 1), ti.is_active(inner, 4)) == (1, 1, 0)
    assert count() == 1
    x[6] = 3
    ti.deactivate(outer, 1)  # the outer cell's storage and the bits inside it go
    assert (ti.is_active(outer, 1), active(5), active(6), x[6]) == (0, 0, 0, 0)
    assert count() == 0
    ti.deactivate(outer, 3)  # inactive already: nothing to do
    with pytest.raises(ti.errors.TiIndexError, match="outside shape"):
        ti.is_active(inner, 16)
    with pytest.raises(ti.errors.TiIndexError, match="got 2 index"):
        ti.activate(inner, [0, 0])
    with pytest.raises(ti.errors.TiTypeError, match="a dense node"):
        ti.is_active(ti.root.dense(ti.i, 2), 0)


def test_deactivate_all_on_dense_nodes_and_every_tree():
    x = ti.field(ti.i32)
    dense = ti.root.dense(ti.i, 2)
    dense.pointer(ti.j, 4).dense(ti.j, 2).place(x)
    fb = ti.FieldsBuilder()
    y = ti.field(ti.f32)
    fb.bitmasked(ti.i, 8).place(y)
    tree = fb.finalize()
    x[1, 3] = 5
    y[2] = 1.0
    dense.deactivate_all()
    assert not x.to_numpy().any() and visit_counter(x)() == 0
    x[0, 0] = 1
    ti.deactivate_all_snodes()
    assert visit_counter(x)() == 0 and visit_counter(y)() == 0
    assert not x.to_numpy().any() and not y.to_numpy().any()
    tree.destroy()
    ti.deactivate_all_snodes()  # a destroyed tree is skipped


# -- ti.no_activate -------------------------------------------------------------------
def test_no_activate_writes_to_active_cells_only():
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 2)
    block.dense(ti.i, 4).place(x)
    x[1] = 5
    olds = ti.field(ti.i32, shape=8)

    @ti.kernel
    def bump():
        ti.no_activate(x)
        for i in range(8):
            olds[i] = ti.atomic_add(x[i], 1)
            x[i] += 1

    bump()
    assert x.to_numpy().tolist() == [2, 7, 2, 2, 0, 0, 0, 0]
    assert olds.to_numpy().tolist() == [0, 5, 0, 0, 0, 0, 0, 0]
    assert ti.is_active(block, 1) == 0


def test_no_activate_in_a_struct_for_like_comet():
    x = ti.Vector.field(2, ti.f32)
    v = ti.Vector.field(2, ti.f32)
    ti.root.bitmasked(ti.i, 8).place(x, v)
    x[3] = [1.0, 2.0]
    v[3] = [0.5, 0.5]

    @ti.kernel
    def step():
        ti.no_activate(x)
        for i in x:
            x[i] += v[i]
            if x[i][0] > 10:
                ti.deactivate(x.snode.parent(), [i])

    step()
    assert x[3].tolist() == [1.5, 2.5] and visit_counter(x)() == 1


def test_no_activate_misuse():
    x = ti.field(ti.i32, shape=2)
    with pytest.raises(ti.errors.TiSyntaxError, match="only be used inside a kernel"):
        ti.no_activate(x)

    @ti.kernel
    def wrong():
        ti.no_activate(3)

    with pytest.raises(ti.errors.TiTypeError, match="fields or SNodes"):
        wrong()
