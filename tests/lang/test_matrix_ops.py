"""Vector and matrix methods and element-wise math in kernels, against NumPy (f32, f64).

Taichi 1.7.4's definitions (taichi/lang/matrix_ops.py): ``norm(eps) = sqrt(|v|^2 +
eps)``, ``norm_inv = 1 / norm``, ``normalized(eps) = v / (norm() + eps)``; ``inverse`` and
``determinant`` up to 4x4; ``cross`` of 2-vectors is a scalar, of 3-vectors a vector;
``any``/``all`` compare with 0; ``vector @ vector`` is the dot product and ``vector @
matrix`` is ``matrix.T @ vector``; ``transpose`` of a vector is an error.
"""

import numpy as np
import pytest
from kernel_errors import raises_at

import ti_notebook as ti
from ti_notebook.errors import TiNotImplementedError, TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu

DTYPES = [(ti.f32, np.float32, 2e-5), (ti.f64, np.float64, 1e-12)]


def _matrix(n: int, seed: int, np_type) -> np.ndarray:
    """A well-conditioned n x n matrix."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (n, n)) + n * np.eye(n)).astype(np_type)


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_inverse_determinant_transpose_trace(dt, np_type, tol, n):
    m = ti.Matrix.field(n, n, dt, shape=())
    inv = ti.Matrix.field(n, n, dt, shape=())
    tr = ti.Matrix.field(n, n, dt, shape=())
    scalars = ti.field(dt, shape=2)

    @ti.kernel
    def run():
        a = m[None]
        inv[None] = a.inverse()
        tr[None] = a.transpose() + a.T - a.T
        scalars[0] = a.determinant()
        scalars[1] = a.trace()

    a = _matrix(n, n, np_type)
    m.from_numpy(a)
    run()
    np.testing.assert_allclose(inv.to_numpy(), np.linalg.inv(a), rtol=tol * 10, atol=tol)
    np.testing.assert_array_equal(tr.to_numpy(), a.T)
    np.testing.assert_allclose(scalars.to_numpy(), [np.linalg.det(a), np.trace(a)], rtol=tol * 10)


def test_integer_matrices_keep_an_integer_determinant_and_invert_to_floats():
    out = ti.field(ti.f32, shape=5)

    @ti.kernel
    def run() -> ti.i32:
        m = ti.Matrix([[2, 1], [7, 4]])
        inv = m.inverse()
        for k in ti.static(range(4)):
            out[k] = inv[k // 2, k % 2]
        out[4] = ti.Matrix([[4]]).inverse()[0, 0]
        return m.determinant()

    assert run() == 1
    np.testing.assert_allclose(out.to_numpy(), [4, -1, -7, 2, 0.25])


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
def test_vector_methods(dt, np_type, tol):
    a = np.array([3.0, -4.0, 1.5], np_type)
    b = np.array([0.5, 2.0, -1.0], np_type)
    v = ti.Vector.field(3, dt, shape=2)
    out = ti.field(dt, shape=32)

    @ti.kernel
    def run():
        p, q = v[0], v[1]
        out[0] = p.norm()
        out[1] = p.norm(eps=0.25)
        out[2] = p.norm_sqr()
        out[3] = p.norm_inv()
        out[4] = p.dot(q)
        out[5] = p @ q
        out[6] = p.sum()
        out[7] = p.max()
        out[8] = p.min()
        c = p.cross(q)
        d = p.normalized()
        e = p.normalized(1.0)
        f = p.xy.cross(q.xy)
        for k in ti.static(range(3)):
            out[9 + k] = c[k]
            out[12 + k] = d[k]
            out[15 + k] = e[k]
        out[18] = f
        o = p.outer_product(q)
        for i, j in ti.static(ti.ndrange(3, 3)):
            out[19 + 3 * i + j] = o[i, j]

    v.from_numpy(np.stack([a, b]))
    run()
    norm = np.linalg.norm(a)
    want = [norm, np.sqrt(norm**2 + 0.25), norm**2, 1 / norm, a @ b, a @ b, a.sum(), a.max()]
    want += [a.min(), *np.cross(a, b), *(a / norm), *(a / (norm + 1))]
    want += [a[0] * b[1] - a[1] * b[0], *np.outer(a, b).ravel()]
    np.testing.assert_allclose(out.to_numpy()[:28], want, rtol=tol, atol=tol)


def test_matmul_shapes_follow_taichi():
    out = ti.field(ti.f32, shape=7)

    @ti.kernel
    def run():
        m = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        v2 = ti.Vector([1.0, -1.0])
        v3 = ti.Vector([1.0, 0.0, 2.0])
        mv = m @ v3  # (2,)
        vm = v2 @ m  # m.T @ v2: (3,)
        out[0], out[1] = mv[0], mv[1]
        out[2], out[3], out[4] = vm[0], vm[1], vm[2]
        out[5] = v3 @ v3
        out[6] = (m @ m.transpose())[1, 1]

    run()
    m = np.array([[1, 2, 3], [4, 5, 6.0]])
    want = [*(m @ [1, 0, 2]), *([1, -1] @ m), 5, (m @ m.T)[1, 1]]
    np.testing.assert_allclose(out.to_numpy(), want)


def test_any_all_and_vector_comparisons():
    out = ti.field(ti.i32, shape=8)

    @ti.kernel
    def run(x: ti.f32):
        v = ti.Vector([0.0, x, 2.0])
        gt = v > 1.0
        out[0] = v.any()
        out[1] = v.all()
        out[2] = gt.any()
        out[3] = gt.all()
        out[4] = (v >= 0).all()
        out[5] = ti.Vector([0, 0]).any()
        out[6] = gt[2] + gt[1] * 10  # i32 components, not wrapped booleans
        out[7] = (v == v).all()

    run(3.0)
    np.testing.assert_array_equal(out.to_numpy(), [1, 0, 1, 0, 1, 0, 11, 1])


@pytest.mark.parametrize("dt, np_type, tol", DTYPES)
def test_element_wise_math_on_vectors(dt, np_type, tol):
    a = np.array([1.5, -2.25, 3.0, 0.5], np_type)
    b = np.array([2.0, 1.0, -0.5, 4.0], np_type)
    v = ti.Vector.field(4, dt, shape=2)
    out = ti.Matrix.field(14, 4, dt, shape=())

    @ti.kernel
    def run():
        p, q = v[0], v[1]
        rows = [
            ti.sqrt(ti.abs(p)),
            ti.abs(p),
            ti.max(p, q),
            ti.min(p, 0.0),
            ti.floor(p),
            ti.ceil(p),
            ti.cast(p, ti.i32),
            ti.atan2(p, q),
            ti.exp(q),
            ti.log(ti.abs(p)),
            ti.sin(p) + ti.cos(q),
            p**2,
            ti.select(p > q, p, q * 10),
            ti.floor(p, int) + ti.round(q, ti.i32),
        ]
        for r in ti.static(range(14)):
            for k in ti.static(range(4)):
                out[None][r, k] = rows[r][k]

    v.from_numpy(np.stack([a, b]))
    run()
    want = [
        np.sqrt(np.abs(a)),
        np.abs(a),
        np.maximum(a, b),
        np.minimum(a, 0),
        np.floor(a),
        np.ceil(a),
        np.trunc(a),
        np.arctan2(a, b),
        np.exp(b),
        np.log(np.abs(a)),
        np.sin(a) + np.cos(b),
        a**2,
        np.where(a > b, a, b * 10),
        np.floor(a) + np.sign(b) * np.floor(np.abs(b) + 0.5),  # Taichi: half away from 0
    ]
    np.testing.assert_allclose(out.to_numpy()[()], np.array(want), rtol=tol * 10, atol=tol)


def test_select_with_a_vector_condition_and_scalars():
    out = ti.field(ti.f32, shape=(2, 3))

    @ti.kernel
    def run():
        v = ti.Vector([1.0, -2.0, 3.0])
        s = ti.select(v > 0, v, 0.0)
        t = ti.select(1, v * 2, -1.0)  # a scalar condition picks every component
        for k in ti.static(range(3)):
            out[0, k] = s[k]
            out[1, k] = t[k]

    run()
    np.testing.assert_array_equal(out.to_numpy(), [[1, 0, 3], [2, -4, 6]])


def test_cast_fill_and_compile_time_names():
    out = ti.field(ti.f32, shape=8)

    @ti.kernel
    def run(x: ti.f32):
        v = ti.Vector([x, -x, 2.5])
        i = v.cast(int)
        f = ti.Vector([1, 2]).cast(float) / 4
        d = v.cast(ti.f64)
        m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        m.fill(x)
        n = ti.static(m.n)  # a compile-time name
        total = 0.0
        for k in ti.static(range(n)):
            total += m[k, k]
        out[0], out[1], out[2] = i[0], i[1], f[1]
        out[3] = d[2]
        out[4] = total
        out[5] = m.sum()
        w = ti.Vector([0, 0, 0])
        w.fill(7)
        out[6] = w.sum()
        out[7] = len(ti.Matrix([[1, 2, 3], [4, 5, 6]]))

    run(1.75)
    np.testing.assert_allclose(out.to_numpy(), [1, -1, 0.5, 2.5, 3.5, 7, 21, 2])


def test_fill_changes_a_vector_field_element_in_place():
    x = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def run():
        for i in x:
            x[i].fill(i * 0.5)

    run()
    np.testing.assert_array_equal(x.to_numpy(), np.repeat(np.arange(4)[:, None] * 0.5, 3, 1))


def test_swizzles_and_matrices_print_like_taichi(capsys):
    @ti.kernel
    def run():
        v = ti.Vector([1, 2, 3, 4])
        print(v.wzyx, v.xy, v.rgb, v.s, ti.Matrix([[1, 2], [3, 4]]))

    run()
    assert capsys.readouterr().out == "[4, 3, 2, 1] [1, 2] [1, 2, 3] 1 [[1, 2], [3, 4]]\n"


# -- misuse -------------------------------------------------------------------------------------
def test_inverse_and_determinant_need_small_square_matrices():
    @ti.kernel
    def not_square() -> ti.f32:
        m = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        return m.inverse()[0, 0]

    @ti.kernel
    def too_large() -> ti.f32:
        return ti.Matrix.identity(ti.f32, 5).determinant()

    @ti.kernel
    def of_a_vector() -> ti.f32:
        return ti.Vector([1.0, 2.0]).trace()

    assert "square matrix, got shape (2, 3)" in str(
        raises_at(TiTypeError, not_square, "m.inverse()")
    )
    err = raises_at(TiNotImplementedError, too_large, ".determinant()")
    assert "5x5" in str(err)
    raises_at(TiTypeError, of_a_vector, ".trace()")


def test_cross_needs_2_or_3_vectors_of_one_size():
    @ti.kernel
    def four() -> ti.f32:
        a = ti.Vector([1.0, 2.0, 3.0, 4.0])
        return a.cross(a).sum()

    @ti.kernel
    def mixed() -> ti.f32:
        return ti.Vector([1.0, 2.0]).cross(ti.Vector([1.0, 2.0, 3.0]))

    assert "4-vectors" in str(raises_at(TiTypeError, four, "a.cross(a)"))
    assert "one size" in str(raises_at(TiTypeError, mixed, ".cross("))


def test_vector_only_methods_and_argument_counts():
    @ti.kernel
    def dot_scalar() -> ti.f32:
        return ti.Vector([1.0, 2.0]).dot(3.0)

    @ti.kernel
    def transposed_vector() -> ti.f32:
        return ti.Vector([1.0, 2.0]).transpose()[0, 0]

    @ti.kernel
    def no_argument() -> ti.f32:
        return ti.Vector([1.0, 2.0]).dot()

    @ti.kernel
    def normalized_matrix() -> ti.f32:
        return ti.Matrix.identity(ti.f32, 2).normalized()[0, 0]

    @ti.kernel
    def cast_to_nothing() -> ti.f32:
        return ti.Vector([1.0, 2.0]).cast("x")[0]

    assert "got a scalar" in str(raises_at(TiTypeError, dot_scalar, ".dot(3.0)"))
    assert "outer_product" in raises_at(TiTypeError, transposed_vector, ".transpose()").hint
    assert "takes 1 argument" in str(raises_at(TiTypeError, no_argument, ".dot()"))
    raises_at(TiTypeError, normalized_matrix, ".normalized()")
    assert "needs a type" in str(raises_at(TiTypeError, cast_to_nothing, '.cast("x")'))


def test_matmul_shape_mismatch_and_unknown_attributes():
    @ti.kernel
    def mismatch() -> ti.f32:
        return (ti.Matrix.identity(ti.f32, 2) @ ti.Vector([1.0, 2.0, 3.0]))[0]

    @ti.kernel
    def unknown() -> ti.f32:
        return ti.Vector([1.0, 2.0]).length()

    @ti.kernel
    def no_z() -> ti.f32:
        return ti.Vector([1.0, 2.0]).xyz.sum()

    assert "(2, 2)" in str(raises_at(TiTypeError, mismatch, "ti.Vector([1.0, 2.0, 3.0]))[0]"))
    raises_at(TiSyntaxError, unknown, ".length()")
    assert "x, y" in raises_at(TiSyntaxError, no_z, ".xyz").hint


def test_fill_of_a_temporary_and_select_of_mismatched_shapes():
    @ti.kernel
    def temporary():
        (ti.Vector([1.0]) * 2).fill(0.0)

    @ti.kernel
    def shapes() -> ti.f32:
        return ti.select(ti.Vector([1, 0]), ti.Vector([1.0, 2.0, 3.0]), 0.0).sum()

    raises_at(TiSyntaxError, temporary, ".fill(0.0)")
    assert "shapes" in str(raises_at(TiTypeError, shapes, "ti.select("))
