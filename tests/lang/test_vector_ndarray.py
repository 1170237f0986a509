"""Ndarrays of vectors and matrices: ti.Vector.ndarray, ti.Matrix.ndarray, ti.ndarray(vec3, ...)
and ``ti.types.ndarray(dtype=vec3, ndim=2)`` arguments, against NumPy."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError

pytestmark = pytest.mark.cpu


def test_python_scope_shapes_and_items():
    a = ti.Vector.ndarray(3, ti.f32, shape=(2, 4))
    assert a.shape == (2, 4) and a.element_shape == (3,) and a.ndim == 2
    a[1, 2] = [1, 2, 3]
    assert a[1, 2].tolist() == [1.0, 2.0, 3.0]
    assert a.to_numpy().shape == (2, 4, 3)
    m = ti.Matrix.ndarray(2, 3, ti.i32, shape=5)
    assert m.to_numpy().shape == (5, 2, 3) and m.dtype is ti.i32
    v = ti.ndarray(ti.types.vector(2, ti.f64), shape=3)
    v.from_numpy(np.arange(6.0).reshape(3, 2))
    w = ti.ndarray(ti.types.vector(2, ti.f64), 3)
    w.copy_from(v)
    assert w.to_numpy().tolist() == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TiValueError, match=r"shape \(3,\) != ndarray shape \(3, 2\)"):
        v.from_numpy(np.zeros(3))


def test_vector_elements_read_written_and_updated_in_a_kernel():
    vec3 = ti.types.vector(3, ti.f32)

    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=vec3, ndim=2)):
        for i, j in a:
            a[i, j] = ti.Vector([i, j, 1.0])
            a[i, j].z += 2
            a[i, j] += ti.Vector([0.5, 0.5, 0.5])

    a = ti.Vector.ndarray(3, ti.f32, shape=(4, 5))
    fill(a)
    i, j = np.meshgrid(np.arange(4), np.arange(5), indexing="ij")
    expected = np.stack([i + 0.5, j + 0.5, np.full_like(i, 3.5, dtype=float)], axis=-1)
    np.testing.assert_allclose(a.to_numpy(), expected)
    raw = np.zeros((2, 3, 3), np.float32)  # a NumPy array with the element innermost
    fill(raw)
    np.testing.assert_allclose(raw, expected[:2, :3])


def test_matrix_elements_and_shape_in_a_kernel():
    @ti.kernel
    def traces(b: ti.types.ndarray(dtype=ti.types.matrix(2, 2, ti.f32), ndim=1)) -> ti.f32:
        s = 0.0
        for i in b:
            b[i][0, 1] = i
            s += b[i].trace() + b[i][0, 1]
        return s + b.shape[0] * 100

    b = ti.Matrix.ndarray(2, 2, ti.f32, shape=3)
    b.fill(1)
    assert traces(b) == pytest.approx(6 + 3 + 300)
    assert b.to_numpy()[2].tolist() == [[1, 2], [1, 1]]


def test_unannotated_parameter_takes_the_element_shape_of_a_ti_ndarray():
    @ti.kernel
    def corner(a: ti.types.ndarray()) -> ti.f32:
        return a[1, 2].x + a[1, 2][2]

    a = ti.Vector.ndarray(3, ti.f32, shape=(2, 3))
    a[1, 2] = [1.5, 0, 3.5]
    assert corner(a) == 5.0
    plain = np.zeros((2, 3), np.float32)  # scalar elements: a new specialisation
    plain[1, 2] = 7

    @ti.kernel
    def scalar(a: ti.types.ndarray()) -> ti.f32:
        return a[1, 2]

    assert scalar(plain) == 7.0


def test_wrong_element_shape_is_refused_with_the_expected_shape():
    @ti.kernel
    def touch(a: ti.types.ndarray(dtype=ti.types.vector(3, ti.f32), ndim=1)):
        for i in a:
            a[i].x = 1

    with pytest.raises(TiValueError, match=r"elements of shape \(3,\).*\(5, 4\)") as caught:
        touch(np.zeros((5, 4), np.float32))
    assert "(..., 3)" in caught.value.hint
    with pytest.raises(TiValueError):
        touch(ti.Vector.ndarray(2, ti.f32, shape=5))


def test_bad_element_type_is_a_type_error():
    with pytest.raises(TiTypeError, match="not an ndarray element type"):
        ti.types.ndarray(dtype="vec3")


def test_ndim_counts_the_element_grid_of_a_vector_ndarray():
    @ti.kernel
    def first(a: ti.types.ndarray(ndim=1)) -> ti.f32:
        return a[1].y

    a = ti.Vector.ndarray(2, ti.f32, shape=3)
    a[1] = [4, 5]
    assert first(a) == 5.0
    with pytest.raises(TiValueError, match="must be 1-D, got 2-D"):
        first(ti.Vector.ndarray(2, ti.f32, shape=(3, 3)))


def test_element_shape_is_known_in_the_kernel():
    @ti.kernel
    def components(a: ti.types.ndarray()) -> ti.i32:
        total = 0
        for k in ti.static(range(a.element_shape[0])):
            total += k + 1
        return total + len(a.element_shape) * 100

    assert components(ti.Vector.ndarray(3, ti.f32, shape=2)) == 106


def test_element_shape_called_as_taichi_code_does():
    @ti.func
    def width(a: ti.template()) -> ti.i32:
        result = 1
        if ti.static(a.element_shape() == [2]):
            result = 2
        return result

    @ti.kernel
    def probe(a: ti.types.ndarray(), b: ti.types.ndarray()) -> ti.i32:
        return width(a) * 10 + width(b)

    assert probe(ti.Vector.ndarray(2, ti.f32, shape=2), ti.ndarray(ti.f32, 2)) == 21
