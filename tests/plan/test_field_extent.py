"""``FieldLayout.end``: the bytes from a tree's base that a kernel may read for a field
(codegen promises LLVM they are readable, so it may speculate loads): every element
lies below it and it never passes the tree's own size, for every kind of layout."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.unit


def _layouts(ti):
    dense = ti.field(ti.f32, (5, 7))
    column = ti.field(ti.f64)
    ti.root.dense(ti.j, 6).dense(ti.i, 3).place(column)
    aos_x, aos_y = ti.field(ti.f32), ti.field(ti.i16)
    ti.root.dense(ti.i, 9).place(aos_x, aos_y)
    blocked = ti.field(ti.f32)
    ti.root.dense(ti.ij, (4, 4)).dense(ti.ij, (8, 8)).place(blocked)
    sparse = ti.field(ti.f32)
    ti.root.pointer(ti.i, 4).bitmasked(ti.i, 4).dense(ti.i, 2).place(sparse)
    vectors = ti.Vector.field(3, ti.f32, 10)  # AoS: components side by side
    return [dense, column, aos_x, aos_y, blocked, sparse, *vectors.components]


def test_every_element_lies_below_the_end_and_the_end_inside_the_tree():
    ti.init(arch=ti.cpu)
    for field in _layouts(ti):
        layout = field.layout()
        addresses = layout.addresses()
        assert addresses.max() + layout.itemsize == layout.end, layout.name
        assert layout.end <= field._tree.memory.nbytes, layout.name
        assert np.all(addresses >= 0)
