"""Python-scope ``ti.Vector`` / ``ti.Matrix`` values, against NumPy and hand values.

Taichi 1.7.4 facts relied on (observed with taichi 1.7.4 in /work/main/.venv):
- ``ti.Vector([1.0, 2.0, 3.0])`` prints ``[1. 2. 3.]`` (str and repr); ``ti.Vector([1, 1])
  @ ti.Matrix([[1, 2], [3, 4]])`` is ``[4 6]``; vector @ vector is the dot product ``5``;
- ``v == w`` is element-wise (a matrix); ``hash(v) == id(v)``; ``v.xy`` is a
  ``ti.Vector``; ``ti.math.vec3(1, 2, 3)`` stores float32;
- ``ti.Vector([1, 2, 3]) / 2`` is ``[0.5 1. 1.5]``, ``// 2`` is ``[0 1 1]``.
Differences on purpose: comparisons give i32 0/1 (as kernel comparisons), not NumPy
bools; ``bool(v)`` of several components raises instead of being always ``True``;
``m[i]`` of a matrix is its row (Taichi asserts); ``cast``/``determinant``/``zero``...
work in Python scope (Taichi allows them only in kernels).
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiAttributeError, TiIndexError, TiTypeError, TiValueError

pytestmark = pytest.mark.unit


# -- construction and types -------------------------------------------------------------------
def test_construction_shapes_and_inferred_types():
    v = ti.Vector([1.0, 2.0, 3.0])
    assert isinstance(v, ti.Vector) and isinstance(v, ti.Matrix)
    assert (v.n, v.m, v.ndim, v.shape, v.dtype) == (3, 1, 1, (3,), ti.f32)
    m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
    assert not isinstance(m, ti.Vector)
    assert (m.n, m.m, m.ndim, m.shape, m.dtype) == (2, 3, 2, (2, 3), ti.i32)
    assert ti.Vector([1, 2.5]).dtype == ti.f32  # one float makes a float vector
    assert ti.Vector([True, False]).dtype == ti.i32
    assert ti.Matrix([1, 2]).shape == (2,)  # a flat list is a vector, as in Taichi
    assert ti.Matrix([ti.Vector([1, 2]), [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ti.Vector(np.array([1.5, 2.5])).tolist() == [1.5, 2.5]
    assert ti.Vector(v).tolist() == [1.0, 2.0, 3.0]
    assert len(v) == 3 and len(m) == 2 and m.get_shape() == (2, 3)


def test_explicit_dtype_casts_and_stores_that_type():
    v = ti.Vector([1.7, -2.2], ti.i32)
    assert v.dtype == ti.i32 and v.tolist() == [1, -2]
    assert ti.Vector([1, 2], dt=ti.f64).to_numpy().dtype == np.float64
    assert ti.Vector([1, 2], dtype=ti.f16).dtype == ti.f16
    assert ti.Vector([1, 2], float).dtype == ti.f32
    # f32 storage rounds as a kernel would
    assert ti.Vector([0.1], ti.f32)[0] == float(np.float32(0.1))


def test_weak_types_follow_init_defaults():
    v = ti.Vector([1.0, 2.0])
    i = ti.Vector([1, 2])
    ti.init(arch=ti.cpu, default_fp=ti.f64, default_ip=ti.i64)
    assert v.dtype == ti.f64 and i.dtype == ti.i64
    assert (ti.Vector([1, 2], ti.f32) * 2.0).dtype == ti.f64  # promoted with default_fp


def test_element_types_follow_the_kernel_rules():
    i32 = ti.Vector([1, 2, 3], ti.i32)
    f32 = ti.Vector([1.0, 2.0, 3.0], ti.f32)
    assert (i32 + 1).dtype == ti.i32
    assert (i32 * 1.5).dtype == ti.f32 and (i32 * 1.5).tolist() == [1.5, 3.0, 4.5]
    assert (i32 / 2).dtype == ti.f32 and (i32 / 2).tolist() == [0.5, 1.0, 1.5]
    assert (i32 // 2).tolist() == [0, 1, 1]
    assert (f32 + ti.Vector([1, 1, 1], ti.f64)).dtype == ti.f64
    assert (i32 + ti.Vector([1, 1, 1], ti.u32)).dtype == ti.u32
    assert (i32 < 2).dtype == ti.i32 and (i32 < 2).tolist() == [1, 0, 0]
    assert (i32 << 2).tolist() == [4, 8, 12]
    assert (ti.Vector([5, 6]) & 3).tolist() == [1, 2]
    # weak values keep float64 precision, as Taichi's Python scope does
    assert (ti.Vector([0.1]) + 0.2)[0] == 0.1 + 0.2


@pytest.mark.parametrize(
    "bad, error",
    [
        (3, TiTypeError),
        ([[1, 2], [3]], TiValueError),
        ([[[1]]], TiValueError),
        (["a", "b"], TiTypeError),
        ([None], TiTypeError),
    ],
)
def test_construction_errors(bad, error):
    with pytest.raises(error):
        ti.Matrix(bad)


def test_vector_of_rows_is_refused():
    with pytest.raises(TiValueError, match="use ti.Matrix"):
        ti.Vector([[1, 2], [3, 4]])
    with pytest.raises(TiTypeError, match="unexpected keyword"):
        ti.Vector([1], shape=3)


# -- components ----------------------------------------------------------------------------
def test_indexing_get_and_set():
    m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    assert m[1, 0] == 3.0 and isinstance(m[1, 0], float)
    assert m[1].tolist() == [3.0, 4.0] and isinstance(m[1], ti.Vector)
    assert m[:, 1].tolist() == [2.0, 4.0]
    m[0, 1] = 7
    m[1] = [5, 6]
    assert m.tolist() == [[1.0, 7.0], [5.0, 6.0]]
    v = ti.Vector([1, 2, 3])
    v[0] = 2.9  # an int vector truncates, as NumPy and Taichi
    assert v.tolist() == [2, 2, 3] and v[-1] == 3 and v[1:].tolist() == [2, 3]
    assert list(v) == [2, 2, 3] and list(m) == [[1.0, 7.0], [5.0, 6.0]]


@pytest.mark.parametrize("index", [3, (0, 0), 1.5, "x"])
def test_bad_indices(index):
    v = ti.Vector([1, 2, 3])
    with pytest.raises(TiIndexError, match="shape \\(3,\\)"):
        v[index]
    with pytest.raises(TiIndexError):
        v[index] = 1


def test_swizzles_read_and_write():
    v = ti.Vector([1.0, 2.0, 3.0, 4.0])
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0)
    assert (v.r, v.g, v.b, v.a) == (1.0, 2.0, 3.0, 4.0)
    assert (v.s, v.t, v.p, v.q) == (1.0, 2.0, 3.0, 4.0)
    assert v.xy.tolist() == [1.0, 2.0] and isinstance(v.xy, ti.Vector)
    assert v.wzyx.tolist() == [4.0, 3.0, 2.0, 1.0]
    assert v.xxx.tolist() == [1.0, 1.0, 1.0] and v.bgr.tolist() == [3.0, 2.0, 1.0]
    v.x = 9
    v.zw = (7, 8)
    v.rg = ti.Vector([5, 6])
    assert v.tolist() == [5.0, 6.0, 7.0, 8.0]


def test_swizzle_errors():
    v = ti.Vector([1, 2])
    assert not hasattr(v, "z") and not hasattr(v, "xyz") and hasattr(v, "yx")
    with pytest.raises(TiAttributeError, match=r"only has the components \('x', 'y'\)"):
        v.z  # noqa: B018
    with pytest.raises(TiValueError, match="names 2 components, got 3"):
        v.xy = (1, 2, 3)
    with pytest.raises(TiAttributeError, match="swizzles name vector components"):
        ti.Matrix([[1, 2], [3, 4]]).x  # noqa: B018


# -- operators --------------------------------------------------------------------------
OPS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__"]


@pytest.mark.parametrize("op", OPS)
def test_arithmetic_matches_numpy(op):
    a = np.array([[1.5, -2.0], [3.25, 4.0]])
    b = np.array([[2.0, 3.0], [-1.5, 0.5]])
    ma, mb = ti.Matrix(a), ti.Matrix(b)
    np.testing.assert_allclose(getattr(ma, op)(mb).to_numpy(), getattr(a, op)(b))
    np.testing.assert_allclose(getattr(ma, op)(2.0).to_numpy(), getattr(a, op)(2.0))
    reflected = op.replace("__", "__r", 1)
    np.testing.assert_allclose(getattr(ma, reflected)(3.0).to_numpy(), getattr(a, reflected)(3.0))
    np.testing.assert_allclose(getattr(ma, op)(b).to_numpy(), getattr(a, op)(b))  # ndarray
    np.testing.assert_allclose(getattr(ma, op)(b.tolist()).to_numpy(), getattr(a, op)(b))


def test_integer_floordiv_and_mod_follow_python_signs():
    v = ti.Vector([-7, 7, -7, 7])
    w = ti.Vector([2, -2, -2, 2])
    assert (v // w).tolist() == [-4, -4, 3, 3] == [-7 // 2, 7 // -2, -7 // -2, 7 // 2]
    assert (v % w).tolist() == [1, -1, -1, 1]
    assert (ti.Vector([1, 2]) // 0).tolist() == [0, 0]  # as a kernel, no exception
    with pytest.raises(TiValueError, match="negative"):
        ti.Vector([2, 3]) ** -1


def test_numpy_and_scalars_on_the_left_give_values():
    v = ti.Vector([1.0, 2.0])
    assert isinstance(np.array([1.0, 1.0]) + v, ti.Vector)
    assert (np.array([1.0, 1.0]) - v).tolist() == [0.0, -1.0]
    assert isinstance(np.float32(2) * v, ti.Vector) and (np.float32(2) * v).tolist() == [2, 4]
    assert (10 - v).tolist() == [9.0, 8.0]


def test_unary_operators():
    v = ti.Vector([1, -2, 3])
    assert (-v).tolist() == [-1, 2, -3] and (+v).tolist() == [1, -2, 3]
    assert abs(v).tolist() == [1, 2, 3] and (~v).tolist() == [-2, 1, -4]
    with pytest.raises(TiTypeError, match="needs an integer"):
        ~ti.Vector([1.0])


def test_comparisons_are_element_wise():
    a, b = ti.Vector([1, 2, 3]), ti.Vector([3, 2, 1])
    assert (a == b).tolist() == [0, 1, 0] and (a != b).tolist() == [1, 0, 1]
    assert (a < b).tolist() == [1, 0, 0] and (a >= 2).tolist() == [0, 1, 1]
    assert (2 < a).tolist() == [0, 0, 1]  # noqa: SIM300 - the reflected comparison
    assert (a == [1, 2, 3]).all() and not (a == b).all() and (a == b).any()
    assert (a == "abc") is False and (a != None) is True  # noqa: E711
    with pytest.raises(TiValueError, match="ambiguous"):
        bool(a == b)
    assert bool(ti.Vector([5])) is True  # one component: its truth


def test_hash_is_by_identity():
    a, b = ti.Vector([1, 2]), ti.Vector([1, 2])
    assert hash(a) == object.__hash__(a) and hash(a) != hash(b)
    assert {a: 1}[a] == 1


def test_shape_mismatch_errors():
    with pytest.raises(TiTypeError, match=r"shape \(3,\) and one of shape \(2,\)"):
        ti.Vector([1, 2, 3]) + ti.Vector([1, 2])
    with pytest.raises(TiTypeError, match=r"shape \(2,\) with one of shape \(3,\)"):
        ti.Vector([1, 2]) + [1, 2, 3]
    with pytest.raises(TypeError):
        ti.Vector([1, 2]) + "ab"
    with pytest.raises(TiTypeError, match="needs integers"):
        ti.Vector([1.0]) & 1


def test_matmul_matches_numpy():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = np.array([[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]])
    x = np.array([1.0, -1.0, 2.0])
    ma, mb, vx = ti.Matrix(a), ti.Matrix(b), ti.Vector(x)
    np.testing.assert_allclose((ma @ mb).to_numpy(), a @ b)
    np.testing.assert_allclose((ma @ vx).to_numpy(), a @ x)
    assert isinstance(ma @ vx, ti.Vector)
    np.testing.assert_allclose((ti.Vector([1.0, 2.0]) @ ma).to_numpy(), np.array([1, 2]) @ a)
    assert vx @ vx == 6.0
    np.testing.assert_allclose((a @ mb).to_numpy(), a @ b)  # NumPy on the left
    with pytest.raises(TiTypeError, match=r"shape \(2, 3\) by one of shape \(2,\)"):
        ma @ ti.Vector([1, 2])
    with pytest.raises(TiTypeError, match="two vectors/matrices"):
        ma @ 2


# -- methods -----------------------------------------------------------------------------------
def test_vector_methods_match_numpy():
    a, b = np.array([1.0, -2.0, 2.5]), np.array([0.5, 4.0, -1.0])
    va, vb = ti.Vector(a), ti.Vector(b)
    assert va.dot(vb) == pytest.approx(a @ b)
    np.testing.assert_allclose(va.cross(vb).to_numpy(), np.cross(a, b))
    assert ti.Vector([1.0, 2.0]).cross(ti.Vector([3.0, 4.0])) == -2.0
    assert va.norm() == pytest.approx(np.linalg.norm(a))
    assert va.norm(eps=1.0) == pytest.approx(np.sqrt(a @ a + 1.0))
    assert va.norm_sqr() == pytest.approx(a @ a)
    assert va.norm_inv() == pytest.approx(1 / np.linalg.norm(a))
    np.testing.assert_allclose(va.normalized().to_numpy(), a / np.linalg.norm(a))
    np.testing.assert_allclose(va.normalized(eps=1.0).to_numpy(), a / (np.linalg.norm(a) + 1.0))
    np.testing.assert_allclose(va.outer_product(vb).to_numpy(), np.outer(a, b))
    assert (va.sum(), va.max(), va.min()) == (a.sum(), a.max(), a.min())
    assert ti.Vector([0, 0, 1]).any() is True and ti.Vector([0, 0, 1]).all() is False
    assert ti.Vector([3, 4]).norm() == 5.0 and isinstance(ti.Vector([3, 4]).norm(), float)
    assert np.isnan(ti.Vector([0.0, 0.0]).normalized().to_numpy()).all()  # as Taichi


def test_matrix_methods_match_numpy():
    a = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.0, 2.0, 4.0]])
    m = ti.Matrix(a)
    np.testing.assert_allclose(m.transpose().to_numpy(), a.T)
    np.testing.assert_allclose(m.T.to_numpy(), a.T)
    assert m.trace() == pytest.approx(np.trace(a))
    assert m.determinant() == pytest.approx(np.linalg.det(a))
    np.testing.assert_allclose(m.inverse().to_numpy(), np.linalg.inv(a), rtol=1e-6)
    assert ti.Matrix([[1, 2], [3, 4]]).determinant() == -2  # exact for integers
    assert ti.Matrix([[1, 2], [3, 4]]).inverse().dtype == ti.f32
    five = np.arange(25).reshape(5, 5) ** 2 % 7
    assert ti.Matrix(five).determinant() == round(np.linalg.det(five))  # any size here
    f32 = ti.Matrix([[4.0, 0.0], [0.0, 2.0]], ti.f32)
    assert f32.inverse().dtype == ti.f32 and f32.inverse().tolist() == [[0.25, 0.0], [0.0, 0.5]]


def test_cast_fill_and_conversions():
    v = ti.Vector([1.7, -2.5, 3.0])
    c = v.cast(ti.i32)
    assert c.dtype == ti.i32 and c.tolist() == [1, -2, 3] and v.dtype == ti.f32
    assert ti.Vector([1, 2]).cast(float).dtype == ti.f32
    v.fill(4)
    assert v.tolist() == [4.0, 4.0, 4.0]
    array = v.to_numpy()
    array[0] = 0  # a copy
    assert v[0] == 4.0 and np.asarray(v).tolist() == [4.0, 4.0, 4.0]
    assert np.asarray(v, dtype=np.int64).dtype == np.int64
    assert v.to_list() == v.tolist() == [4.0, 4.0, 4.0]
    assert repr(ti.Vector([1.0, 2.0, 3.0])) == str(ti.Vector([1.0, 2.0, 3.0])) == "[1. 2. 3.]"
    assert str(ti.Matrix([[1, 2], [3, 4]])) == "[[1 2]\n [3 4]]"


def test_method_misuse_errors():
    v4 = ti.Vector([1, 2, 3, 4])
    with pytest.raises(TiTypeError, match="two 2-D or two 3-D vectors, got 4-D"):
        v4.cross(v4)
    with pytest.raises(TiTypeError, match="needs a square matrix, got a value of shape"):
        ti.Matrix([[1, 2, 3], [4, 5, 6]]).inverse()
    with pytest.raises(TiTypeError, match="square"):
        ti.Matrix([[1, 2, 3], [4, 5, 6]]).determinant()
    with pytest.raises(TiTypeError, match="square"):
        v4.trace()
    with pytest.raises(TiValueError, match="singular"):
        ti.Matrix([[1, 2], [2, 4]]).inverse()
    with pytest.raises(TiTypeError, match="cannot apply to a vector"):
        v4.transpose()
    with pytest.raises(TiTypeError, match="one size, got 4 and 3"):
        v4.dot(ti.Vector([1, 2, 3]))
    with pytest.raises(TiTypeError, match="needs a vector"):
        ti.Matrix([[1, 2], [3, 4]]).normalized()
    with pytest.raises(TiTypeError, match="vector argument"):
        v4.dot(3)
    with pytest.raises(TiTypeError, match="not a type"):
        v4.cast("f32")


# -- constructors ------------------------------------------------------------------------------
def test_python_scope_constructors():
    z = ti.Vector.zero(ti.f32, 3)
    assert isinstance(z, ti.Vector) and z.dtype == ti.f32 and z.tolist() == [0, 0, 0]
    assert ti.Matrix.zero(ti.i32, 2, 3).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert ti.Matrix.one(ti.f64, 2).dtype == ti.f64 and ti.Vector.one(int, 2).tolist() == [1, 1]
    assert ti.Vector.unit(3, 1).tolist() == [0, 1, 0] and ti.Vector.unit(3, 1).dtype == ti.i32
    assert ti.Vector.unit(2, 0, ti.f32).tolist() == [1.0, 0.0]
    assert ti.Matrix.identity(ti.f32, 3).tolist() == np.eye(3).tolist()
    assert ti.Matrix.identity(float, 2).dtype == ti.f32
    assert ti.Matrix.diag(2, 5.0).tolist() == [[5.0, 0.0], [0.0, 5.0]]
    rows = ti.Matrix.rows([ti.Vector([1, 2]), [3, 4]])
    assert rows.tolist() == [[1, 2], [3, 4]]
    assert ti.Matrix.cols([ti.Vector([1, 2]), ti.Vector([3, 4])]).tolist() == [[1, 3], [2, 4]]
    with pytest.raises(TiIndexError):
        ti.Vector.unit(3, 3)
    with pytest.raises(TiValueError, match="different lengths"):
        ti.Matrix.rows([[1, 2], [3]])


# -- field elements ----------------------------------------------------------------------------
def test_field_elements_are_live_values():
    v = ti.Vector.field(3, ti.f32, shape=4)
    m = ti.Matrix.field(2, 2, ti.i32, shape=2)
    v[1] = ti.Vector([1, 2, 3])
    e = v[1]
    assert isinstance(e, ti.Vector) and e.dtype == ti.f32 and e.n == 3
    e.y = 7
    e[2] = 8
    assert v.to_numpy()[1].tolist() == [1.0, 7.0, 8.0]
    v[1].xz = (5, 6)
    assert v[1].tolist() == [5.0, 7.0, 6.0]
    v[2] = [1, 1, 1]
    assert e.tolist() == [5.0, 7.0, 6.0]  # reads are live: still element 1
    doubled = e * 2
    doubled[0] = 100  # a new value, not the field
    assert v[1][0] == 5.0 and doubled.tolist() == [100.0, 14.0, 12.0]
    assert (v[1] + v[2]).tolist() == [6.0, 8.0, 7.0] and v[1].norm_sqr() == 110.0
    v[3] += ti.Vector([1, 2, 3])  # read, add, write back
    assert v[3].tolist() == [1.0, 2.0, 3.0]
    m[0] = [[1, 2], [3, 4]]
    assert isinstance(m[0], ti.Matrix) and not isinstance(m[0], ti.Vector)
    assert m[0].determinant() == -2 and m[0][1, 0] == 3 and (m[0] @ m[0]).tolist()[0] == [7, 10]
    m[0].fill(9)
    assert m.to_numpy()[0].tolist() == [[9, 9], [9, 9]]
    with pytest.raises(TiIndexError, match="element of vector field"):
        v[1][3] = 0
    with pytest.raises(TiValueError, match="cannot write"):
        v[1][0:2] = [1, 2, 3]
