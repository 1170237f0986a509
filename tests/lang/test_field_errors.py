"""Clear errors for SNode-laid-out fields: from_numpy shapes, debug bounds, unplaced fields.

ti_notebook-only: the whole module is skipped where ``ti_notebook.errors`` does not exist
(the test shim over real Taichi 1.7.4). What Taichi 1.7.4 does instead (observed):
- ``from_numpy`` with a wrong shape on a scalar field raises ValueError "ti.field shape
  (32, 32) does not match the numpy array shape (32, 31)", but on a Vector/Matrix field it
  accepts e.g. an (8, 2) array for a 3-vector field of shape (8,) (no check) or raises a
  bare AssertionError.
- with ``debug=True`` an out-of-range index in a kernel raises TaichiAssertionError (a
  RuntimeError and AssertionError, not IndexError) "Accessing field (S3place<f32>) of size
  (16, 16) with indices (16, 0)": no field name; a later bad access can segfault.
- a field that is declared but never placed makes *every* kernel launch raise
  RuntimeError "These field(s) are not placed: ... Please consider specifying a shape".
ti_notebook raises TiIndexError (an IndexError) naming the field, the index and the
shape, ValueError for every wrong shape, and RuntimeError with a hint about place().
"""

import numpy as np
import pytest

import ti_notebook as ti

_errors = pytest.importorskip(
    "ti_notebook.errors", reason="ti_notebook-only (the Taichi shim has no ti_notebook.errors)"
)
TiIndexError = _errors.TiIndexError

pytestmark = pytest.mark.cpu


def _index_named(msg: str, index) -> bool:
    """The index appears as a tuple ``(3, 24)`` or a list ``[3, 24]``."""
    return str(tuple(index)) in msg or str(list(index)) in msg


def _assert_still_works() -> None:
    y = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fresh(v: ti.i32) -> ti.i32:
        s = 0
        for i in y:
            y[i] = i * v
            s += i * v
        return s

    assert fresh(3) == 18


# --------------------------------------------------------------------------------------
# from_numpy shape checks
# --------------------------------------------------------------------------------------


def _hierarchical():
    x = ti.field(ti.f32)
    ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (8, 8)).place(x)
    return x


def _column_major():
    x = ti.field(ti.f32)
    ti.root.dense(ti.j, 24).dense(ti.i, 16).place(x)
    return x


def _aos():
    x = ti.field(ti.f32)
    other = ti.field(ti.i32)
    ti.root.dense(ti.ij, (16, 24)).place(x, other)
    return x


def _sparse():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.ij, (4, 6)).dense(ti.ij, 4).place(x)
    return x


@pytest.mark.parametrize("make", [_hierarchical, _column_major, _aos, _sparse])
@pytest.mark.parametrize("bad", [(24, 16), (16, 23), (16 * 24,), (16, 24, 1)])
def test_from_numpy_wrong_shape_names_both_shapes(make, bad):
    x = make()
    assert x.shape == (16, 24)
    x[1, 2] = 5.0
    with pytest.raises(ValueError) as info:
        x.from_numpy(np.zeros(bad, np.float32))
    msg = str(info.value)
    assert "(16, 24)" in msg, msg
    assert str(bad) in msg, msg
    assert x[1, 2] == 5.0  # unchanged


def test_from_numpy_wrong_shape_vector_and_matrix_fields():
    v = ti.Vector.field(3, ti.f32, shape=8)
    m = ti.Matrix.field(2, 2, ti.f32, shape=4)
    for bad in [(8, 2), (8,), (3, 8), (8, 3, 1), (7, 3)]:
        with pytest.raises(ValueError) as info:
            v.from_numpy(np.zeros(bad, np.float32))
        msg = str(info.value)
        assert str(bad) in msg, msg
        assert "(8, 3)" in msg or "(8,)" in msg, msg
    for bad in [(4, 4), (4, 2, 3), (2, 2, 4), (4, 2)]:
        with pytest.raises(ValueError) as info:
            m.from_numpy(np.zeros(bad, np.float32))
        msg = str(info.value)
        assert str(bad) in msg, msg
        assert "(4, 2, 2)" in msg or "(4,)" in msg, msg
    v.from_numpy(np.ones((8, 3), np.float32))  # the right shape still works
    assert v.to_numpy().sum() == 24.0


# --------------------------------------------------------------------------------------
# Out-of-range indices with debug=True
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", [(16, 0), (3, 24), (-1, 5), (0, -1), (40, 40)])
def test_debug_out_of_range_write_on_hierarchical_field(index):
    ti.init(arch=ti.cpu, debug=True)
    tiles = ti.field(ti.f32)
    ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (8, 8)).place(tiles)

    @ti.kernel
    def poke(i: ti.i32, j: ti.i32):
        tiles[i, j] = 1.0

    poke(15, 23)  # the last cell is fine
    assert tiles[15, 23] == 1.0
    with pytest.raises(IndexError) as info:
        poke(*index)
    err = info.value
    assert isinstance(err, TiIndexError)
    msg = str(err)
    assert "tiles" in msg, msg
    assert _index_named(msg, index), msg
    assert "(16, 24)" in msg, msg
    _assert_still_works()


@pytest.mark.parametrize(
    "build, shape, index",
    [
        # j = 5 would land in row i + 1 of a row-major buffer without the check
        (lambda f: ti.root.dense(ti.i, 4).dense(ti.j, 5).place(f), (4, 5), (1, 5)),
        # i = 4 would land in column j + 1 of a column-major buffer
        (lambda f: ti.root.dense(ti.j, 5).dense(ti.i, 4).place(f), (4, 5), (4, 1)),
        # i split over two levels with j between them
        (lambda f: ti.root.dense(ti.i, 2).dense(ti.j, 4).dense(ti.i, 4).place(f), (8, 4), (8, 0)),
        (lambda f: ti.root.pointer(ti.ij, 4).dense(ti.ij, 2).place(f), (8, 8), (2, 8)),
        (lambda f: ti.root.bitmasked(ti.ij, (2, 3)).place(f), (2, 3), (0, 3)),
    ],
    ids=["row_major", "column_major", "depth3", "pointer", "bitmasked"],
)
def test_debug_out_of_range_read_on_layouts(build, shape, index):
    ti.init(arch=ti.cpu, debug=True)
    grid = ti.field(ti.i32, name="grid")
    build(grid)
    assert grid.shape == shape

    @ti.kernel
    def read(i: ti.i32, j: ti.i32) -> ti.i32:
        return grid[i, j]

    assert read(shape[0] - 1, shape[1] - 1) == 0
    with pytest.raises(IndexError) as info:
        read(*index)
    msg = str(info.value)
    assert "grid" in msg, msg
    assert _index_named(msg, index), msg
    assert str(shape) in msg, msg
    _assert_still_works()


def test_debug_out_of_range_in_struct_for_neighbour_read():
    ti.init(arch=ti.cpu, debug=True)
    heat = ti.field(ti.f32)
    ti.root.dense(ti.ij, (2, 2)).dense(ti.ij, (4, 4)).place(heat)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def smear():
        for i, j in heat:
            total[None] += heat[i + 1, j]  # i + 1 == 8 on the last row

    with pytest.raises(IndexError) as info:
        smear()
    msg = str(info.value)
    assert "heat" in msg, msg
    assert "(8, 8)" in msg, msg
    _assert_still_works()


def test_python_scope_out_of_range_on_layouts():
    x = _hierarchical()
    col = _column_major()
    for f in (x, col):
        f[15, 23] = 2.0
        assert f[15, 23] == 2.0
        for bad in [(16, 0), (0, 24), (-1, 0), (3, 40)]:
            with pytest.raises(IndexError):
                f[bad]
            with pytest.raises(IndexError):
                f[bad] = 1.0


# --------------------------------------------------------------------------------------
# Fields that were never placed
# --------------------------------------------------------------------------------------


def test_unplaced_field_in_kernel_raises_with_place_hint():
    lonely = ti.field(ti.f32)

    @ti.kernel
    def use():
        lonely[0] = 1.0

    with pytest.raises(RuntimeError) as info:
        use()
    msg = str(info.value)
    assert "lonely" in msg, msg
    assert ".place(" in msg, msg  # the hint shows the call, e.g. ti.root.dense(...).place(x)


def test_unplaced_field_python_access_raises_with_place_hint():
    lonely = ti.field(ti.i32)
    with pytest.raises(RuntimeError) as info:
        lonely[0]
    assert ".place(" in str(info.value)
    with pytest.raises(RuntimeError) as info:
        lonely.to_numpy()
    assert ".place(" in str(info.value)


def test_unplaced_vector_field_in_kernel_raises():
    vel = ti.Vector.field(2, ti.f32)

    @ti.kernel
    def use():
        vel[0] = ti.Vector([1.0, 2.0])

    with pytest.raises(RuntimeError) as info:
        use()
    assert "vel" in str(info.value)
    assert ".place(" in str(info.value)
