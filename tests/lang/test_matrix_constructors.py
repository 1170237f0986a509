"""Kernel-scope vector/matrix constructors against NumPy, and their misuse.

Taichi 1.7.4's semantics (taichi/lang/matrix.py, matrix_ops.py): ``zero/one(dt, n,
m=None)`` (a vector without m), ``unit(n, i, dt=None)`` (int by default), ``identity(dt,
n)``, ``diag(dim, val)``, ``rows``/``cols`` of vectors or lists; ``dt`` may be a ti type or
Python's ``float``/``int`` (``ti.Matrix.identity(float, 2)`` in mpm99); a literal's
elements share their promoted type (``ti.Vector([1, 2.5])`` is a float vector).
"""

import numpy as np
import pytest
from kernel_errors import raises_at

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError, TiTypeError, TiValueError

pytestmark = pytest.mark.cpu


@pytest.mark.parametrize("dt", [ti.f32, ti.f64, float])
def test_zero_one_identity_diag_against_numpy(dt):
    np_type = np.float64 if dt is ti.f64 else np.float32
    out = ti.field(np_type, shape=(4, 3, 3))

    @ti.kernel
    def build(val: ti.f32):
        z = ti.Matrix.zero(dt, 3, 3)
        o = ti.Matrix.one(dt, 3, 3) * 2
        e = ti.Matrix.identity(dt, 3)
        d = ti.Matrix.diag(3, val)
        for i, j in ti.static(ti.ndrange(3, 3)):
            out[0, i, j] = z[i, j]
            out[1, i, j] = o[i, j]
            out[2, i, j] = e[i, j]
            out[3, i, j] = d[i, j]

    build(1.5)
    got = out.to_numpy()
    np.testing.assert_array_equal(got[0], np.zeros((3, 3)))
    np.testing.assert_array_equal(got[1], np.full((3, 3), 2.0))
    np.testing.assert_array_equal(got[2], np.eye(3))
    np.testing.assert_array_equal(got[3], np.diag([1.5] * 3))


def test_vector_zero_one_unit_and_their_types():
    out = ti.field(ti.f32, shape=12)

    @ti.kernel
    def build():
        z = ti.Vector.zero(int, 3)
        z[0] = 1.75  # an int vector keeps 1
        o = ti.Vector.one(ti.f32, 2)
        o[1] = 0.25
        u = ti.Vector.unit(3, 2)  # int by default
        uf = ti.Vector.unit(3, 0, float) / 4
        m = ti.Matrix.zero(float, 2)  # no m: a vector
        for k in ti.static(range(3)):
            out[k] = z[k]
            out[3 + k] = u[k]
            out[6 + k] = uf[k]
        out[9] = o[0] + o[1]
        out[10] = len(m)
        out[11] = u.sum() / 2  # int / int is a float division

    with pytest.warns(ti.errors.TiPrecisionWarning):
        build()
    np.testing.assert_array_equal(out.to_numpy(), [1, 0, 0, 0, 0, 1, 0.25, 0, 0, 1.25, 2, 0.5])


def test_default_fp_f64_makes_float_constructors_f64():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    out = ti.field(ti.f64, shape=2)

    @ti.kernel
    def third():
        v = ti.Vector.zero(float, 2)
        v[0] = 1 / 3
        e = ti.Matrix.identity(float, 2) / 3
        out[0] = v[0]
        out[1] = e[1, 1]

    third()
    np.testing.assert_array_equal(out.to_numpy(), [1 / 3, 1 / 3])


def test_rows_and_cols_from_vectors_and_lists():
    out = ti.field(ti.f32, shape=(3, 2, 3))

    @ti.kernel
    def build(a: ti.f32):
        v1 = ti.Vector([1.0, 2.0, a])
        v2 = ti.Vector([4, 5, 6])
        r = ti.Matrix.rows([v1, v2])
        c = ti.Matrix.cols([v1, v2])
        lists = ti.Matrix.rows([[1, 2, 3], [a, a, a]])
        for i, j in ti.static(ti.ndrange(2, 3)):
            out[0, i, j] = r[i, j]
            out[1, i, j] = c[j, i]
            out[2, i, j] = lists[i, j]

    build(3.5)
    rows = np.array([[1, 2, 3.5], [4, 5, 6]])
    got = out.to_numpy()
    np.testing.assert_array_equal(got[0], rows)
    np.testing.assert_array_equal(got[1], rows)  # cols(...)[j, i] == rows(...)[i, j]
    np.testing.assert_array_equal(got[2], [[1, 2, 3], [3.5, 3.5, 3.5]])


def test_literals_share_one_promoted_type_or_their_dt():
    out = ti.field(ti.f64, shape=6)

    @ti.kernel
    def build(n: ti.i32, x: ti.f64):
        v = ti.Vector([1, 2.5])  # float: 1 stays 1.0 and takes 0.75
        v[0] = 0.75
        w = ti.Vector([n, x])  # f64 for both
        w[0] = x / 3  # an f64 slot keeps f64 precision
        i = ti.Vector([1.7, 2.2], dt=ti.i32)
        f = ti.Matrix([[1, 2], [3, 4]], ti.f64)
        out[0] = v[0]
        out[1] = w[0]
        out[2] = i[0] + i[1]
        out[3] = f[1, 1] / 3
        out[4] = ti.zero(w)[1] + ti.one(x)
        out[5] = ti.one(ti.Vector([2, 3])).sum()

    build(2, 0.5)
    np.testing.assert_array_equal(out.to_numpy(), [0.75, 0.5 / 3, 3, 4 / 3, 1, 2])


def test_an_alias_of_a_python_scope_constructor_still_compiles():
    eye = ti.Matrix.identity

    @ti.kernel
    def trace() -> ti.f32:
        return eye(ti.f32, 3).trace()

    assert trace() == 3.0


# -- misuse ---------------------------------------------------------------------------------------
def test_a_size_known_only_at_run_time_is_refused():
    @ti.kernel
    def dynamic_size(n: ti.i32) -> ti.f32:
        return ti.Matrix.zero(float, n, 2).sum()

    err = raises_at(TiTypeError, dynamic_size, "ti.Matrix.zero(float, n, 2)", 2)
    assert "must be an integer known at compile time" in str(err)


def test_unit_beyond_the_size_and_a_non_type_are_refused():
    @ti.kernel
    def too_far() -> ti.i32:
        return ti.Vector.unit(3, 5).sum()

    @ti.kernel
    def not_a_type() -> ti.i32:
        return ti.Matrix.identity("f32", 2).sum()

    assert "i=5" in str(raises_at(TiValueError, too_far, "ti.Vector.unit(3, 5)"))
    assert "is not a type" in str(raises_at(TiTypeError, not_a_type, 'identity("f32", 2)'))


def test_rows_of_scalars_and_missing_arguments_are_refused():
    @ti.kernel
    def scalars() -> ti.f32:
        return ti.Matrix.rows([1.0, 2.0]).sum()

    @ti.kernel
    def missing() -> ti.f32:
        return ti.Matrix.identity(ti.f32).sum()

    assert "vectors or lists" in str(raises_at(TiTypeError, scalars, "ti.Matrix.rows("))
    assert "needs 'n'" in str(raises_at(TiTypeError, missing, "ti.Matrix.identity("))


def test_ragged_rows_and_non_numbers_are_refused():
    x = ti.field(ti.f32, shape=2)

    @ti.kernel
    def ragged() -> ti.f32:
        return ti.Matrix([[1.0, 2.0], [3.0]]).sum()

    @ti.kernel
    def field_item() -> ti.f32:
        return ti.Vector([x, 1.0]).sum()

    assert "same length" in str(raises_at(TiTypeError, ragged, "ti.Matrix([[1.0"))
    assert "field 'x'" in str(raises_at(TiTypeError, field_item, "ti.Vector([x, 1.0])"))


def test_python_scope_call_of_a_kernel_only_function_says_so():
    with pytest.raises(TiSyntaxError, match="inside a kernel"):
        ti.svd(np.eye(2))
