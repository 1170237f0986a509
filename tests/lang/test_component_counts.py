"""Vector/matrix fields, ndarrays and types need at least one component: ``n`` or
``m`` below 1 is a TiValueError at the call naming the argument (a field of no or a
negative number of components used to fail much later with an IndexError)."""

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: ti.Vector.field(0, ti.f32, shape=2), "ti.Vector.field: n=0"),
        (lambda: ti.Vector.field(-2, ti.f32, shape=2), "ti.Vector.field: n=-2"),
        (lambda: ti.Vector.field(-2, ti.f32), "ti.Vector.field: n=-2"),
        (lambda: ti.Matrix.field(2, 0, ti.f32, shape=2), "ti.Matrix.field: m=0"),
        (lambda: ti.Matrix.field(0, 2, ti.f32, shape=2), "ti.Matrix.field: n=0"),
        (lambda: ti.types.vector(0, ti.f32), "ti.types.vector: n=0"),
        (lambda: ti.types.matrix(2, -1, ti.f32), "ti.types.matrix: m=-1"),
        (lambda: ti.Vector.ndarray(0, ti.f32, shape=2), "ti.Vector.ndarray: n=0"),
        (lambda: ti.Matrix.ndarray(1, 0, ti.f32, shape=2), "ti.Matrix.ndarray: m=0"),
    ],
)
def test_no_components_is_a_value_error_naming_the_argument(make, message):
    with pytest.raises(TiValueError, match=message + " must be at least 1"):
        make()


def test_non_integer_counts_are_type_errors():
    with pytest.raises(TiTypeError, match="n=2.5 must be a positive int"):
        ti.Vector.field(2.5, ti.f32, shape=2)
    with pytest.raises(TiTypeError, match="m=True"):
        ti.types.matrix(2, True, ti.f32)


def test_one_component_is_fine():
    v = ti.Vector.field(1, ti.i32, shape=2)
    v[1] = [7]
    assert v.to_numpy().tolist() == [[0], [7]]
    assert ti.types.matrix(1, 1, ti.f32)(2).tolist() == [[2.0]]
