"""Dense SNode layouts: ti.root.dense/place, row/column-major, AoS/SoA, hierarchical blocks.

The snippets of the "Fields (advanced)" page (shared/seeds/003) appear verbatim where
they run (only ``import taichi as ti`` is changed, and the indentation the page lost is
restored); every other expectation compares kernel results with NumPy / plain Python.
Every test was checked against real Taichi 1.7.4 (the shim in /tmp/tishim).

Taichi 1.7.4 facts relied on (observed):
- ``x.shape`` of a field placed under nested ``dense`` nodes is the product of the extents
  per axis, ordered by axis (i, j, k, l), not by the order of the ``dense`` calls:
  ``ti.root.dense(ti.i, 2).dense(ti.j, 4).dense(ti.i, 4)`` -> (8, 4), the outer ``i``
  index being the high part; ``ti.root.dense(ti.k, 2).dense(ti.ij, (2, 3))`` -> (2, 3, 2).
- ``SNode.shape`` is the cumulative shape of the node (``ti.root.dense(ti.i, 3)`` -> (3,),
  its child ``.dense(ti.j, 4)`` -> (3, 4)), ``ti.root.shape == ()``.
- ``ti.root.place(s)`` gives a 0-D field: ``s.shape == ()``, ``s.to_numpy().shape == ()``.
"""

import numpy as np
import pytest
from snode_helpers import kernels, linear

import ti_notebook as ti

pytestmark = pytest.mark.cpu


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


M, N = 16, 24  # multiples of 8, not square, so i/j mix-ups show


def _place_2d(layout: str, x, other=None) -> None:
    """Places ``x`` (shape (M, N)) with the named layout; ``other`` shares its cell (AoS)."""
    fields = (x,) if other is None else (x, other)
    if layout == "dense_ij":
        ti.root.dense(ti.ij, (M, N)).place(*fields)
    elif layout == "row_major":
        ti.root.dense(ti.i, M).dense(ti.j, N).place(*fields)
    elif layout == "column_major":
        ti.root.dense(ti.j, N).dense(ti.i, M).place(*fields)
    elif layout == "hierarchical":
        ti.root.dense(ti.ij, (M // 8, N // 8)).dense(ti.ij, (8, 8)).place(*fields)
    elif layout == "hierarchical_column_blocks":
        ti.root.dense(ti.j, N // 8).dense(ti.i, M // 8).dense(ti.ij, (8, 8)).place(*fields)
    elif layout == "depth3":
        ti.root.dense(ti.i, 2).dense(ti.j, N).dense(ti.i, M // 2).place(*fields)
    else:
        raise AssertionError(layout)


LAYOUTS_2D = [
    "dense_ij",
    "row_major",
    "column_major",
    "hierarchical",
    "hierarchical_column_blocks",
    "depth3",
]


# --------------------------------------------------------------------------------------
# Row-major vs column-major, hierarchical and deeper nestings: one accessor for all
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_2d_layout_kernel_struct_for_and_python_access(layout):
    x = ti.field(ti.i32)
    _place_2d(layout, x)
    assert x.shape == (M, N)
    hits = ti.field(ti.i32, shape=(M, N))
    write_linear, count_visits = kernels()

    write_linear(x)
    expect = linear((M, N))
    np.testing.assert_array_equal(x.to_numpy(), expect)

    # struct-for visits every cell exactly once
    assert count_visits(x, hits) == M * N
    np.testing.assert_array_equal(hits.to_numpy(), np.ones((M, N), np.int32))

    # Python-scope get / set
    for i, j in [(0, 0), (M - 1, N - 1), (9, 2), (3, 17), (8, 8), (7, 15)]:
        assert x[i, j] == expect[i, j]
        x[i, j] = -1 - i * 100 - j
        expect[i, j] = -1 - i * 100 - j
        assert x[i, j] == expect[i, j]
    np.testing.assert_array_equal(x.to_numpy(), expect)

    @ti.kernel
    def read_back(i: ti.i32, j: ti.i32) -> ti.i32:
        return x[i, j]

    assert read_back(9, 2) == -1 - 902
    assert read_back(10, 3) == 10 * N + 3


def test_row_major_and_column_major_identical_results():
    row = ti.field(ti.i32)
    col = ti.field(ti.i32)
    ti.root.dense(ti.i, M).dense(ti.j, N).place(row)
    ti.root.dense(ti.j, N).dense(ti.i, M).place(col)
    assert row.shape == col.shape == (M, N)

    @ti.kernel
    def own_index(x: ti.template()):
        for i, j in x:
            x[i, j] = i * N + j

    own_index(row)
    own_index(col)
    np.testing.assert_array_equal(row.to_numpy(), col.to_numpy())
    np.testing.assert_array_equal(row.to_numpy(), linear((M, N)))


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_2d_layout_fill_from_numpy_to_numpy(layout):
    x = ti.field(ti.f32)
    _place_2d(layout, x)
    x.fill(2.5)
    arr = x.to_numpy()
    assert arr.shape == (M, N)
    assert arr.dtype == np.float32
    np.testing.assert_array_equal(arr, np.full((M, N), 2.5, np.float32))

    src = np.random.default_rng(3).standard_normal((M, N)).astype(np.float32)
    x.from_numpy(src)
    np.testing.assert_array_equal(x.to_numpy(), src)
    assert x[5, 7] == src[5, 7]
    assert x[M - 1, 0] == src[M - 1, 0]

    @ti.kernel
    def total() -> ti.f64:
        s = ti.f64(0.0)
        for i, j in x:
            s += ti.cast(x[i, j], ti.f64)
        return s

    assert total() == pytest.approx(float(src.astype(np.float64).sum()), rel=1e-9, abs=1e-9)

    # wrong shape: ValueError naming both shapes, the field unchanged
    with pytest.raises(ValueError) as info:
        x.from_numpy(np.zeros((N, M), np.float32))
    assert str((M, N)) in str(info.value)
    assert str((N, M)) in str(info.value)
    np.testing.assert_array_equal(x.to_numpy(), src)


def test_depth3_nesting_index_split():
    # i is split over two dense levels with j in between: i = outer * 4 + inner
    x = ti.field(ti.i32)
    outer = ti.root.dense(ti.i, 2)
    middle = outer.dense(ti.j, 4)
    inner = middle.dense(ti.i, 4)
    inner.place(x)
    assert outer.shape == (2,)
    assert middle.shape == (2, 4)
    assert inner.shape == (8, 4)
    assert x.shape == (8, 4)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 4 + j

    fill()
    np.testing.assert_array_equal(x.to_numpy(), linear((8, 4)))
    x[5, 3] = 99
    assert x.to_numpy()[5, 3] == 99


def test_snode_shapes_are_cumulative():
    x = ti.field(ti.f32)
    a = ti.root.dense(ti.i, 3)
    b = a.dense(ti.j, 4)
    b.place(x)
    assert ti.root.shape == ()
    assert a.shape == (3,)
    assert b.shape == (3, 4)
    assert x.snode.shape == (3, 4)
    assert x.snode.parent() == b
    assert x.snode.parent(2) == a

    h = ti.field(ti.f32)
    blocks = ti.root.dense(ti.ij, (2, 3))
    cells = blocks.dense(ti.ij, (8, 8))
    cells.place(h)
    assert blocks.shape == (2, 3)
    assert cells.shape == (16, 24)
    assert h.shape == (16, 24)


@pytest.mark.parametrize(
    "build, shape",
    [
        (lambda x: ti.root.dense(ti.ijk, (2, 3, 4)).place(x), (2, 3, 4)),
        (lambda x: ti.root.dense(ti.ijkl, (2, 3, 2, 2)).place(x), (2, 3, 2, 2)),
        (
            lambda x: ti.root.dense(ti.ij, (2, 3)).dense(ti.k, 2).dense(ti.l, 4).place(x),
            (2, 3, 2, 4),
        ),
        (lambda x: ti.root.dense(ti.k, 2).dense(ti.ij, (2, 3)).place(x), (2, 3, 2)),
        (lambda x: ti.root.dense(ti.l, 2).dense(ti.ijk, (2, 2, 3)).place(x), (2, 2, 3, 2)),
        (lambda x: ti.root.dense(ti.ijk, (1, 2, 2)).dense(ti.ijk, (2, 2, 4)).place(x), (2, 4, 8)),
    ],
    ids=["ijk", "ijkl", "ij_k_l", "k_then_ij", "l_then_ijk", "ijk_blocks"],
)
def test_mixed_axes(build, shape):
    x = ti.field(ti.i32)
    build(x)
    assert x.shape == shape
    hits = ti.field(ti.i32, shape=shape)
    write_linear, count_visits = kernels()
    write_linear(x)
    expect = linear(shape)
    np.testing.assert_array_equal(x.to_numpy(), expect)
    assert count_visits(x, hits) == expect.size
    np.testing.assert_array_equal(hits.to_numpy(), np.ones(shape, np.int32))

    last = tuple(s - 1 for s in shape)
    assert x[last] == expect.size - 1
    x[last] = -5
    assert x[last] == -5
    src = -expect
    x.from_numpy(src)
    np.testing.assert_array_equal(x.to_numpy(), src)
    x.fill(7)
    np.testing.assert_array_equal(x.to_numpy(), np.full(shape, 7, np.int32))


def test_mixed_axes_struct_for_unpacked_indices():
    x = ti.field(ti.i32)
    ti.root.dense(ti.k, 2).dense(ti.ij, (3, 4)).place(x)
    assert x.shape == (3, 4, 2)

    @ti.kernel
    def fill():
        for i, j, k in x:
            x[i, j, k] = i * 100 + j * 10 + k

    fill()
    i, j, k = np.meshgrid(np.arange(3), np.arange(4), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(x.to_numpy(), (i * 100 + j * 10 + k).astype(np.int32))
    assert x[2, 3, 1] == 231


# --------------------------------------------------------------------------------------
# AoS vs SoA
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("aos", [True, False], ids=["aos", "soa"])
def test_aos_and_soa_1d(aos):
    n = 10
    x = ti.field(ti.i32)
    y = ti.field(ti.f32)
    if aos:
        ti.root.dense(ti.i, n).place(x, y)
    else:
        ti.root.dense(ti.i, n).place(x)
        ti.root.dense(ti.i, n).place(y)
    assert x.shape == y.shape == (n,)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * i
            y[i] = x[i] * 0.5

    fill()
    sq = np.arange(n, dtype=np.int32) ** 2
    np.testing.assert_array_equal(x.to_numpy(), sq)
    np.testing.assert_array_equal(y.to_numpy(), sq.astype(np.float32) * 0.5)
    assert x.to_numpy().dtype == np.int32
    assert y.to_numpy().dtype == np.float32

    # writing one field never touches its neighbour in the cell
    x.fill(-3)
    np.testing.assert_array_equal(y.to_numpy(), sq.astype(np.float32) * 0.5)
    y.from_numpy(np.linspace(0, 1, n).astype(np.float32))
    np.testing.assert_array_equal(x.to_numpy(), np.full(n, -3, np.int32))
    x[4] = 44
    y[4] = 4.25
    assert (x[4], y[4]) == (44, 4.25)
    assert (x[3], x[5]) == (-3, -3)


@pytest.mark.parametrize("layout", ["dense_ij", "column_major", "hierarchical", "depth3"])
def test_aos_2d_mixed_dtypes(layout):
    a = ti.field(ti.i32)
    b = ti.field(ti.f64)
    _place_2d(layout, a, b)
    assert a.shape == b.shape == (M, N)

    @ti.kernel
    def fill():
        for i, j in a:
            a[i, j] = i - j
            b[i, j] = (i + j) * 0.25

    fill()
    i, j = np.meshgrid(np.arange(M), np.arange(N), indexing="ij")
    np.testing.assert_array_equal(a.to_numpy(), (i - j).astype(np.int32))
    np.testing.assert_array_equal(b.to_numpy(), (i + j) * 0.25)
    assert b.to_numpy().dtype == np.float64


def test_three_fields_in_one_cell_and_a_separate_one():
    n = 8
    p, q, r, s = (ti.field(ti.i32) for _ in range(4))
    ti.root.dense(ti.i, n).place(p, q, r)
    ti.root.dense(ti.i, n).place(s)

    @ti.kernel
    def fill():
        for i in p:
            p[i] = i
            q[i] = i * 2
            r[i] = i * 3
            s[i] = p[i] + q[i] + r[i]

    fill()
    np.testing.assert_array_equal(s.to_numpy(), np.arange(n, dtype=np.int32) * 6)
    np.testing.assert_array_equal(q.to_numpy(), np.arange(n, dtype=np.int32) * 2)


# --------------------------------------------------------------------------------------
# 0-D and field(shape=...) sugar
# --------------------------------------------------------------------------------------


def test_root_place_0d_kernel_and_numpy():
    s = ti.field(ti.f64)
    t = ti.field(ti.i32)
    ti.root.place(s, t)
    assert s.shape == () and t.shape == ()

    @ti.kernel
    def bump(v: ti.f64):
        s[None] += v
        t[None] += 1

    bump(1.25)
    bump(2.0)
    assert s[None] == 3.25
    assert t[None] == 2
    arr = s.to_numpy()
    assert arr.shape == ()
    assert arr.dtype == np.float64
    assert float(arr) == 3.25
    s.from_numpy(np.array(-0.5))
    assert s[None] == -0.5
    t.fill(9)
    assert t[None] == 9
    s[None] = 7.0
    assert s.to_numpy() == 7.0


def test_root_holds_0d_and_dense_fields_together():
    total = ti.field(ti.i32)
    x = ti.field(ti.i32)
    ti.root.place(total)
    ti.root.dense(ti.i, 12).place(x)

    @ti.kernel
    def run():
        for i in x:
            x[i] = i + 1
        for i in x:
            total[None] += x[i]

    run()
    assert total[None] == sum(range(1, 13))


def test_shape_sugar_equals_root_dense():
    a = ti.field(ti.i32, shape=(4, 6))
    b = ti.field(ti.i32)
    ti.root.dense(ti.ij, (4, 6)).place(b)
    write_linear, _ = kernels()
    write_linear(a)
    write_linear(b)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    assert a.shape == b.shape


def test_fields_declared_after_a_kernel_ran():
    x = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).place(x)

    @ti.kernel
    def fill(f: ti.template(), v: ti.i32):
        for i in f:
            f[i] = v + i

    fill(x, 10)
    y = ti.field(ti.i32)
    ti.root.dense(ti.i, 2).dense(ti.i, 4).place(y)
    fill(y, 20)
    fill(x, 30)
    assert x.to_numpy().tolist() == [30, 31, 32, 33]
    assert y.to_numpy().tolist() == list(range(20, 28))


def test_placing_a_field_twice_raises():
    x = ti.field(ti.f32)
    ti.root.dense(ti.i, 3).place(x)
    with pytest.raises(RuntimeError):  # Taichi 1.7.4: "This variable has been placed."
        ti.root.dense(ti.i, 4).place(x)
    assert x.shape == (3,)


def test_scalar_extent_applies_to_every_axis():
    x = ti.field(ti.i32)
    ti.root.dense(ti.ij, 3).dense(ti.ij, 2).place(x)
    assert x.shape == (6, 6)
    write_linear, _ = kernels()
    write_linear(x)
    np.testing.assert_array_equal(x.to_numpy(), linear((6, 6)))
