"""print / str / repr of fields and ndarrays: name, shape and dtype (n and m for vector
and matrix fields), then the values of a small, allocated field."""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_scalar_field_shows_name_shape_dtype_and_values():
    counts = ti.field(ti.i32, shape=(2, 3))
    counts.fill(7)
    assert repr(counts) == "<ti.field 'counts': shape=(2, 3), dtype=i32>"
    text = str(counts)
    assert text.splitlines()[0] == repr(counts)
    assert "[[7 7 7]\n [7 7 7]]" in text


def test_vector_matrix_struct_fields_and_ndarrays():
    vel = ti.Vector.field(3, ti.f32, shape=4)
    rot = ti.Matrix.field(2, 3, ti.f64, shape=(5, 5))
    parts = ti.Struct.field({"mass": ti.f32, "id": ti.i32}, shape=2)
    arr = ti.ndarray(ti.types.vector(2, ti.i32), shape=3)
    assert repr(vel) == "<ti.Vector.field 'vel': n=3, shape=(4,), dtype=f32>"
    assert repr(rot) == "<ti.Matrix.field 'rot': n=2, m=3, shape=(5, 5), dtype=f64>"
    assert repr(parts).startswith("<ti.Struct.field 'parts': shape=(2,), dtype=")
    assert "mass=f32" in repr(parts) and "id=i32" in repr(parts)
    assert repr(arr) == "<ti.ndarray: shape=(3,), dtype=i32, element_shape=(2,)>"
    vel.fill(1.5)
    assert "[[1.5 1.5 1.5]" in str(vel)
    parts.mass.fill(2.0)
    assert "mass: [2. 2.]" in str(parts)
    arr.fill(4)
    assert str(arr).endswith("[[4 4]\n [4 4]\n [4 4]]")


def test_large_or_unplaced_fields_print_without_values_or_errors():
    big = ti.field(ti.f32, shape=(100, 100))
    big.fill(0)
    assert str(big) == "<ti.field 'big': shape=(100, 100), dtype=f32>"
    loose = ti.field(ti.f32)  # declared, never placed: printing still works
    assert repr(loose) == "<ti.field 'loose': shape=? (not placed yet), dtype=f32>"
