"""Vector/matrix fields copy to and from NumPy in one strided view where the layout allows
(AoS and SoA alike), and component by component where it does not (sparse nodes)."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.lang.element_views import combined_view

pytestmark = pytest.mark.cpu


def _round_trip(field, shape):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    field.from_numpy(data)
    np.testing.assert_array_equal(field.to_numpy(), data)
    per_component = np.stack([c.to_numpy() for c in field.components], axis=-1)
    np.testing.assert_array_equal(per_component.reshape(shape), data)


def test_aos_vector_field_is_one_view():
    v = ti.Vector.field(3, ti.f32, shape=(4, 5))
    assert combined_view(v.components, (3,)) is not None
    _round_trip(v, (4, 5, 3))


def test_soa_vector_field_is_one_view():
    v = ti.Vector.field(2, ti.f32)
    for component in v.components:
        ti.root.dense(ti.i, 6).place(component)
    view = combined_view(v.components, (2,))
    assert view is not None and view.strides == (4, 24)
    _round_trip(v, (6, 2))


def test_matrix_field_row_major_elements():
    m = ti.Matrix.field(2, 3, ti.f32, shape=4)
    _round_trip(m, (4, 2, 3))

    @ti.kernel
    def corner() -> ti.f32:
        return m[3][1, 2]

    assert corner() == 3 * 6 + 1 * 3 + 2


def test_sparse_vector_field_falls_back_to_components():
    v = ti.Vector.field(2, ti.f32)
    ti.root.pointer(ti.i, 4).dense(ti.i, 2).place(v)
    assert combined_view(v.components, (2,)) is None

    @ti.kernel
    def touch():
        v[3] = [1, 2]

    touch()
    got = v.to_numpy()
    assert got.shape == (8, 2) and got[3].tolist() == [1, 2] and got.sum() == 3


def test_copies_do_not_alias_the_field():
    v = ti.Vector.field(2, ti.f32, shape=3)
    out = v.to_numpy()
    out[0] = [5, 6]
    assert v.to_numpy()[0].tolist() == [0, 0]
