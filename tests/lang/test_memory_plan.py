"""The memory plan (``field.layout()``, ``snode.plan()``) follows the page's formulas,
and kernels store every element exactly where the plan says.

"Fields (advanced)": a row-major M x N field puts ``x[i, j]`` at ``base + i*N + j``, a
column-major one at ``base + j*M + i``, ``place(x, y)`` interleaves x and y, and a
hierarchical field is stored block after block.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

M, N = 12, 16


def _raw(field) -> np.ndarray:
    """What the tree's memory holds at each element's planned address."""
    layout = field.layout()
    memory = field._tree.memory.buffer
    dtype = np.dtype(layout.dtype_name.replace("f", "float").replace("i", "int"))
    out = np.empty(layout.shape, dtype)
    for index in np.ndindex(*layout.shape):
        start = layout.address(index)
        out[index] = np.frombuffer(memory[start : start + dtype.itemsize], dtype)[0]
    return out


def _fill_with_index(field):
    @ti.kernel
    def fill():
        for i, j in field:
            field[i, j] = i * N + j

    fill()


def _offset(field) -> int:
    return field.layout().offset


def test_row_major_address_is_base_plus_i_n_plus_j():
    x = ti.field(ti.i32)
    ti.root.dense(ti.i, M).dense(ti.j, N).place(x)
    layout = x.layout()
    base = _offset(x)
    for i, j in [(0, 0), (0, 1), (1, 0), (5, 7), (M - 1, N - 1)]:
        assert layout.address((i, j)) == base + (i * N + j) * 4
    assert layout.strides == (N * 4, 4)


def test_column_major_address_is_base_plus_j_m_plus_i():
    x = ti.field(ti.i32)
    ti.root.dense(ti.j, N).dense(ti.i, M).place(x)
    layout = x.layout()
    base = _offset(x)
    for i, j in [(0, 0), (0, 1), (1, 0), (5, 7), (M - 1, N - 1)]:
        assert layout.address((i, j)) == base + (j * M + i) * 4
    assert layout.strides == (4, M * 4)


def test_place_two_fields_interleaves_them():
    x = ti.field(ti.f32)
    y = ti.field(ti.i32)
    ti.root.dense(ti.i, M).place(x, y)
    xb, yb = _offset(x), _offset(y)
    assert yb == xb + 4
    for i in range(M):
        assert x.layout().address((i,)) == xb + 8 * i
        assert y.layout().address((i,)) == yb + 8 * i
    assert x.layout().cell_size == 8


def test_separate_places_are_separate_arrays():
    x = ti.field(ti.f32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, M).place(x)
    ti.root.dense(ti.i, M).place(y)
    assert abs(_offset(y) - _offset(x)) >= M * 4
    assert x.layout().strides == y.layout().strides == (4,)


def test_hierarchical_blocks_are_stored_block_after_block():
    x = ti.field(ti.i32)
    ti.root.dense(ti.ij, (M // 4, N // 4)).dense(ti.ij, (4, 4)).place(x)
    layout = x.layout()
    base = _offset(x)
    for i, j in [(0, 0), (0, 3), (0, 4), (3, 3), (4, 0), (M - 1, N - 1)]:
        block = (i // 4) * (N // 4) + j // 4
        inside = (i % 4) * 4 + j % 4
        assert layout.address((i, j)) == base + (block * 16 + inside) * 4
    assert layout.strides is None  # two levels split each axis
    assert layout.block_shapes() == [(M, N), (4, 4)]


LAYOUTS = {
    "row-major": lambda x: ti.root.dense(ti.i, M).dense(ti.j, N).place(x),
    "column-major": lambda x: ti.root.dense(ti.j, N).dense(ti.i, M).place(x),
    "2d-dense": lambda x: ti.root.dense(ti.ij, (M, N)).place(x),
    "blocked": lambda x: ti.root.dense(ti.ij, (M // 4, N // 4)).dense(ti.ij, 4).place(x),
    "aos": lambda x: ti.root.dense(ti.ij, (M, N)).place(x, ti.field(ti.f64)),
    "pointer": lambda x: ti.root.pointer(ti.ij, (M // 4, N // 4)).dense(ti.ij, 4).place(x),
    "bitmasked": lambda x: ti.root.bitmasked(ti.ij, (M, N)).place(x),
    "three-level": lambda x: ti.root.dense(ti.i, 3).dense(ti.j, 4).dense(ti.ij, 4).place(x),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_kernel_writes_land_where_the_plan_says(name):
    x = ti.field(ti.i32)
    LAYOUTS[name](x)
    assert x.shape == (M, N)
    expect = np.arange(M * N, dtype=np.int32).reshape(M, N)
    if name in ("pointer", "bitmasked"):
        _fill_with_index(x)  # nothing is active yet: the struct-for visits nothing
        np.testing.assert_array_equal(x.to_numpy(), np.zeros((M, N), np.int32))

        @ti.kernel
        def activate_everything():
            for i, j in ti.ndrange(M, N):
                x[i, j] = 0

        activate_everything()
    _fill_with_index(x)
    np.testing.assert_array_equal(x.to_numpy(), expect)
    np.testing.assert_array_equal(_raw(x), expect)


def test_every_layout_gives_the_same_numbers():
    results = []
    for name in sorted(LAYOUTS):
        x = ti.field(ti.i32)
        LAYOUTS[name](x)

        @ti.kernel
        def write(f: ti.template()):
            for i, j in ti.ndrange(M, N):
                f[i, j] = i * 1000 + j * 7

        write(x)
        results.append(x.to_numpy())
    for got in results[1:]:
        np.testing.assert_array_equal(got, results[0])


def test_snode_plan_describes_the_tree():
    x = ti.field(ti.f32)
    y = ti.field(ti.i32)
    blk = ti.root.pointer(ti.ij, (2, 3))
    blk.dense(ti.ij, 4).place(x, y)
    plan = blk.plan()
    assert (plan.kind, plan.extents, plan.num_cells) == ("pointer", (2, 3), 6)
    assert plan.cell_size == 16 * 8
    assert plan.mask_offset is not None
    (cell,) = plan.children
    assert cell.kind == "dense" and cell.cell_size == 8 and cell.strides == (32, 8)
    assert [f[0] for f in cell.fields] == ["x", "y"]
    assert [f[2] for f in cell.fields] == [0, 4]
    text = str(plan)
    assert "pointer(ij)" in text and "bits at" in text and "y: i32 at +4" in text
    with pytest.raises(AttributeError):
        plan.kind = "dense"  # read-only


def test_layout_describe_names_every_level():
    x = ti.field(ti.f32)
    ti.root.dense(ti.ij, (3, 4)).dense(ti.ij, 2).place(x)
    text = x.layout().describe()
    assert "field x" in text and text.count("dense(ij") == 2
