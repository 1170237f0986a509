"""``FieldLayout.visit_order()`` is the order compiled struct-fors visit cells in.

A serialised struct-for stores a running counter into each cell it visits; the cells
sorted by that counter must be exactly ``visit_order()`` (the plan's data), for dense,
blocked and sparse layouts, and for packed layouts that order is memory order.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.lang import sparse

pytestmark = pytest.mark.cpu


def _one_d(x):
    ti.root.dense(ti.i, 37).place(x)


def _row_major(x):
    ti.root.dense(ti.ij, (5, 7)).place(x)


def _column_major(x):
    ti.root.dense(ti.j, 7).dense(ti.i, 5).place(x)


def _blocked(x):
    ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (8, 8)).place(x)


def _three_d(x):
    ti.root.dense(ti.ijk, (3, 4, 5)).place(x)


def _three_d_nested(x):
    ti.root.dense(ti.k, 2).dense(ti.ij, (3, 2)).dense(ti.jk, (2, 3)).place(x)


def _pointer_dense(x):
    ti.root.pointer(ti.ij, (3, 2)).dense(ti.ij, (4, 4)).place(x)


def _pointer_row(x):
    ti.root.pointer(ti.i, 6).dense(ti.i, 8).place(x)


def _bitmasked_leaf(x):
    ti.root.dense(ti.i, 4).bitmasked(ti.i, 8).place(x)


def _pointer_bitmasked(x):
    ti.root.pointer(ti.ij, (2, 2)).bitmasked(ti.ij, (4, 4)).place(x)


DENSE = [_one_d, _row_major, _column_major, _blocked, _three_d, _three_d_nested]
SPARSE = [_pointer_dense, _pointer_row, _bitmasked_leaf, _pointer_bitmasked]


def _field(build):
    x = ti.field(ti.i32)
    build(x)
    return x


@pytest.mark.parametrize("build", DENSE, ids=lambda f: f.__name__.strip("_"))
def test_dense_struct_for_visits_in_plan_order(build, serialised_visit_order):
    x = _field(build)
    layout = x.layout()
    order = layout.visit_order()
    assert order.shape == (int(np.prod(layout.shape)), len(layout.shape))
    np.testing.assert_array_equal(serialised_visit_order(x)[0], order)
    assert x.to_numpy()[tuple(order.T)].tolist() == list(range(1, len(order) + 1))


@pytest.mark.parametrize("build", DENSE, ids=lambda f: f.__name__.strip("_"))
def test_visit_order_is_memory_order_for_packed_layouts(build):
    x = _field(build)
    layout = x.layout()
    addresses = [layout.address(tuple(index)) for index in layout.visit_order()]
    assert np.all(np.diff(addresses) > 0)
    assert sorted(map(tuple, layout.visit_order())) == sorted(np.ndindex(*layout.shape))


@pytest.mark.parametrize("build", SPARSE, ids=lambda f: f.__name__.strip("_"))
def test_sparse_struct_for_visits_active_cells_in_plan_order(build, serialised_visit_order):
    x = _field(build)
    layout = x.layout()
    rng = np.random.default_rng(13)
    cells = np.argwhere(np.ones(layout.shape, dtype=bool))
    for index in cells[rng.choice(len(cells), size=len(cells) // 5, replace=False)]:
        x[tuple(int(i) for i in index)] = -1  # activates the cell's path
    active = sparse.active_elements(x)
    expected = layout.visit_order(active)
    assert 0 < len(expected) < len(cells)
    np.testing.assert_array_equal(serialised_visit_order(x)[0], expected)
    # the unfiltered order lists every cell once, in the order of the loop's counter
    full = layout.visit_order()
    assert sorted(map(tuple, full)) == sorted(np.ndindex(*layout.shape))
    np.testing.assert_array_equal(full[active[tuple(full.T)]], expected)


def test_visit_order_mirrors_struct_indices_cell_by_cell():
    from ti_notebook.plan import visit

    x = _field(_three_d_nested)
    layout = x.layout()
    order = layout.visit_order()
    np.testing.assert_array_equal(visit.cell_indices(layout, np.arange(len(order))), order)
