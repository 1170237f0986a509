"""ti.Vector / ti.Matrix values in kernels and ti.Vector.field / ti.Matrix.field.

Every expectation was checked against real Taichi 1.7.4 (the shim in /tmp/tishim).

Taichi 1.7.4 facts relied on (observed):
- ``ti.Vector.field(3, ti.f32, shape=8)``: ``shape == (8,)``, ``n == 3``, ``m == 1``,
  ``dtype == ti.f32``, ``to_numpy().shape == (8, 3)``; ``ti.Matrix.field(2, 2, ti.f32,
  shape=4)``: ``shape == (4,)``, ``n == m == 2``, ``to_numpy().shape == (4, 2, 2)``.
- Python scope: ``v[i]`` is a ``ti.Vector`` (``m[i]`` a ``ti.Matrix``) whose elements are
  Python floats; ``v[i][k]`` reads one component, ``v[i][k] = s`` writes it through to the
  field, ``v[i] = [1, 2, 3]`` writes a whole vector, ``m[i][r, c]`` reads a matrix entry
  (``m[i][r]`` with one index is an AssertionError in Taichi, so not used).
- In kernels: ``v[0]``, ``v.x/.y/.z``, ``+ - *`` with scalars (either side) and
  vectors (elementwise), ``@`` matrix-vector and matrix-matrix, ``a.dot(b)``,
  ``a.norm()``, ``a.outer_product(b)`` (a 3x3 matrix, ``[r, c] = a[r] * b[c]``),
  ``M.transpose()``, ``M.trace()``, ``ti.Matrix.identity(ti.f32, 3)``, ``ti.zero(a)``,
  comparisons give elementwise 0/1 vectors (``(a > 1.5) == [0, 1, 1]``) whose
  elements are ``u1`` (scalar comparisons too): ``c[0] + c[1]`` of two true elements is 0
  in Taichi 1.7.4 (u1 + u1 wraps), ``c[0] * 10`` and ``ti.cast(c[0], ti.i32)`` are i32;
  ``v[i] += ti.Vector([...])`` and ``v[i][0] += s`` in a parallel loop.
- ``ti.root.dense(ti.i, 8).place(v)`` for ``v = ti.Vector.field(3, ti.f32)`` and
  ``place(s, v)`` next to a scalar field work like ``shape=8``.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_vector_and_matrix_field_shapes():
    v = ti.Vector.field(3, ti.f32, shape=8)
    m = ti.Matrix.field(2, 2, ti.f32, shape=4)
    assert v.shape == (8,)
    assert v.n == 3
    assert v.dtype == ti.f32
    assert m.shape == (4,)
    assert (m.n, m.m) == (2, 2)
    a = v.to_numpy()
    b = m.to_numpy()
    assert a.shape == (8, 3) and a.dtype == np.float32
    assert b.shape == (4, 2, 2) and b.dtype == np.float32
    assert not a.any() and not b.any()

    w = ti.Vector.field(2, ti.i32, shape=(3, 5))
    assert w.shape == (3, 5)
    assert w.to_numpy().shape == (3, 5, 2)
    assert w.to_numpy().dtype == np.int32


def test_vector_element_access_and_arithmetic():
    r = ti.field(ti.f32, shape=16)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0])
        b = ti.Vector([4.0, 5.0, 6.0])
        r[0] = a[0]
        r[1] = a.x
        r[2] = a.y
        r[3] = a.z
        c = a + b * 2.0 - 1.0
        r[4] = c[2]  # 3 + 12 - 1
        r[5] = (a * b)[1]  # elementwise
        r[6] = (b - a)[0]
        r[7] = (-a)[0]
        r[8] = (a / 2)[1]
        r[9] = (2 * a)[2]
        r[10] = (a + 1)[0]
        r[11] = (10 - a)[2]

    run()
    assert r.to_numpy()[:12].tolist() == [1, 1, 2, 3, 14, 10, 3, -1, 1, 6, 2, 7]


def test_vector_dot_norm_outer_product():
    r = ti.field(ti.f32, shape=4)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0])
        b = ti.Vector([4.0, 5.0, 6.0])
        r[0] = a.dot(b)
        r[1] = a.norm()
        o = a.outer_product(b)
        r[2] = o[1, 2]
        r[3] = o[2, 0]

    run()
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = np.array([4.0, 5.0, 6.0], np.float32)
    out = r.to_numpy()
    assert out[0] == np.dot(a, b) == 32.0
    assert out[1] == pytest.approx(float(np.linalg.norm(a)), rel=1e-6)
    assert out[2] == np.outer(a, b)[1, 2] == 12.0
    assert out[3] == np.outer(a, b)[2, 0] == 12.0


def test_vector_comparisons_are_elementwise():
    # Taichi 1.7.4 comparison results are u1: each element is 0 or 1. (Adding two u1
    # values wraps mod 2 there, so the elements are stored one by one.)
    ri = ti.field(ti.i32, shape=10)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0])
        b = ti.Vector([4.0, 5.0, 6.0])
        gt = a > 1.5
        ri[0] = gt[0]
        ri[1] = gt[1]
        ri[2] = gt[2]
        le = a <= b - 3.0  # [1 <= 1, 2 <= 2, 3 <= 3]
        ri[3] = le[0]
        ri[4] = le[1]
        ri[5] = le[2]
        eq = a == ti.Vector([1.0, 0.0, 3.0])
        ri[6] = eq[0] * 100 + eq[1] * 10 + eq[2]
        ri[7] = (a != 2.0)[1]
        ri[8] = (1.5 < a)[0]  # noqa: SIM300 (scalar on the left: reflected operator)
        ri[9] = (a >= b)[2]

    run()
    assert ri.to_numpy().tolist() == [0, 1, 1, 1, 1, 1, 101, 0, 0, 0]


def test_vector_static_loop_and_zero():
    r = ti.field(ti.f32, shape=2)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0])
        s = 0.0
        for k in ti.static(range(3)):
            s += a[k] * (k + 1)
        r[0] = s  # 1 + 4 + 9
        z = ti.zero(a)
        r[1] = z[0] + z[1] + z[2] + 7.0

    run()
    assert r.to_numpy().tolist() == [14.0, 7.0]


def test_local_vector_element_assignment_on_a_copy():
    r = ti.field(ti.f32, shape=2)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0])
        d = a
        d[1] = 20.0  # a copy: a is unchanged
        r[0] = d[1] + a[1]
        for k in ti.static(range(3)):
            d[k] *= 2.0
        r[1] = d[0] + d[1] + d[2]

    run()
    assert r.to_numpy().tolist() == [22.0, 2.0 + 40.0 + 6.0]


def test_matrix_kernel_operations():
    r = ti.field(ti.f32, shape=16)
    ri = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run():
        M = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        r[0] = M[1, 0]
        r[1] = M.transpose()[0, 1]
        r[2] = M.trace()
        w = M @ ti.Vector([1.0, 1.0])
        r[3] = w[0]
        r[4] = w[1]
        MM = M @ M
        r[5] = MM[0, 0]
        r[6] = MM[1, 0]
        a = ti.Vector([1.0, 2.0, 3.0])
        eye = ti.Matrix.identity(ti.f32, 3)
        r[7] = (eye @ a)[2]
        r[8] = eye[0, 0] + eye[0, 1] + eye[2, 2]
        N = M * 2.0 + ti.Matrix.identity(ti.f32, 2)
        r[9] = N[0, 0] + N[1, 1] * 10  # (2+1) + (8+1)*10
        P = M.transpose() @ M  # [[10, 14], [14, 20]]
        r[10] = P[0, 1] + P[1, 1]
        Mi = ti.Matrix([[1, 2], [3, 4]])
        ri[0] = Mi[1, 1]
        ri[1] = Mi.trace()
        cmp = M > 2.0
        ri[2] = cmp[0, 0] + cmp[0, 1] * 10 + cmp[1, 0] * 100 + cmp[1, 1] * 1000
        s = 0.0
        for i, j in ti.static(ti.ndrange(2, 2)):
            s += M[i, j] * (i * 2 + j + 1)
        r[11] = s  # 1 + 4 + 9 + 16
        o = ti.Vector([1.0, 2.0]).outer_product(ti.Vector([3.0, 4.0, 5.0]))
        r[12] = o[1, 2]  # 2 * 5
        Z = ti.zero(M)
        r[13] = Z[0, 0] + Z[1, 1]

    run()
    M = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = r.to_numpy()
    assert out[0] == 3.0
    assert out[1] == M.T[0, 1] == 3.0
    assert out[2] == np.trace(M) == 5.0
    assert out[3:5].tolist() == (M @ np.ones(2, np.float32)).tolist() == [3.0, 7.0]
    assert out[5] == (M @ M)[0, 0] == 7.0
    assert out[6] == (M @ M)[1, 0] == 15.0
    assert out[7] == 3.0
    assert out[8] == 2.0
    assert out[9] == 93.0
    assert out[10] == (M.T @ M)[0, 1] + (M.T @ M)[1, 1] == 34.0
    assert out[11] == 30.0
    assert out[12] == 10.0
    assert out[13] == 0.0
    assert ri.to_numpy()[:3].tolist() == [4, 5, 1100]


def test_vector_field_in_kernels_against_numpy():
    n = 8
    v = ti.Vector.field(3, ti.f32, shape=n)
    lengths = ti.field(ti.f32, shape=n)
    m = ti.Matrix.field(2, 2, ti.f32, shape=4)

    @ti.kernel
    def fill():
        for i in v:
            v[i] = ti.Vector([i, i * 2.0 + 1.0, -i])
            lengths[i] = v[i].norm()
        for i in m:
            m[i] = ti.Matrix([[i, 1.0], [0.0, i + 1.0]])

    fill()
    expect = np.stack([np.arange(n), np.arange(n) * 2 + 1, -np.arange(n)], axis=1)
    np.testing.assert_array_equal(v.to_numpy(), expect.astype(np.float32))
    np.testing.assert_allclose(lengths.to_numpy(), np.linalg.norm(expect, axis=1), rtol=1e-6)
    mexp = np.array([[[i, 1.0], [0.0, i + 1.0]] for i in range(4)], np.float32)
    np.testing.assert_array_equal(m.to_numpy(), mexp)

    @ti.kernel
    def transform(k: ti.f32):
        for i in v:
            R = ti.Matrix([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
            v[i] = R @ v[i] * k
        for i in m:
            m[i] = m[i] @ m[i].transpose()

    transform(2.0)
    R = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], np.float32)
    np.testing.assert_allclose(v.to_numpy(), (expect @ R.T) * 2, rtol=1e-6)
    np.testing.assert_allclose(m.to_numpy(), mexp @ mexp.transpose(0, 2, 1), rtol=1e-6)


def test_vector_atomic_adds():
    v = ti.Vector.field(3, ti.f32, shape=8)
    acc = ti.Vector.field(2, ti.i32, shape=())

    @ti.kernel
    def accumulate():
        for i in v:
            v[i] += ti.Vector([1.0, 2.0, 3.0])
            v[i][0] += 10.0
            v[i] += ti.Vector([0.5, 0.5, 0.5])
        for i in range(100):
            acc[None] += ti.Vector([1, i])

    accumulate()
    np.testing.assert_array_equal(
        v.to_numpy(), np.tile(np.array([11.5, 2.5, 3.5], np.float32), (8, 1))
    )
    assert acc[None][0] == 100
    assert acc[None][1] == sum(range(100))


def test_python_scope_vector_and_matrix_access():
    v = ti.Vector.field(3, ti.f32, shape=8)
    m = ti.Matrix.field(2, 2, ti.f32, shape=4)
    v[1] = [1, 2, 3]
    assert [v[1][k] for k in range(3)] == [1.0, 2.0, 3.0]
    assert v[1][2] == 3.0
    v[2] = [0, 7, 0]
    assert [v[2][k] for k in range(3)] == [0.0, 7.0, 0.0]
    v[3] = ti.Vector([4.0, 5.0, 6.0])
    m[0] = [[1, 2], [3, 4]]
    assert m[0][1, 0] == 3.0
    assert m[0][0, 1] == 2.0
    m[3] = ti.Matrix([[0.5, 0.0], [0.0, -0.5]])

    arr = v.to_numpy()
    assert arr[1].tolist() == [1.0, 2.0, 3.0]
    assert arr[2].tolist() == [0.0, 7.0, 0.0]
    assert arr[3].tolist() == [4.0, 5.0, 6.0]
    marr = m.to_numpy()
    assert marr[0].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert marr[3].tolist() == [[0.5, 0.0], [0.0, -0.5]]

    @ti.kernel
    def probe() -> ti.f32:
        return v[1].dot(v[3]) + m[0][1, 1] + m[3].trace()

    assert probe() == 4.0 + 10.0 + 18.0 + 4.0 + 0.0


def test_vector_matrix_from_numpy_and_fill():
    v = ti.Vector.field(3, ti.f32, shape=8)
    src = np.arange(24, dtype=np.float32).reshape(8, 3)
    v.from_numpy(src)
    np.testing.assert_array_equal(v.to_numpy(), src)
    assert [v[2][k] for k in range(3)] == [6.0, 7.0, 8.0]

    @ti.kernel
    def sum_y() -> ti.f32:
        s = 0.0
        for i in v:
            s += v[i].y
        return s

    assert sum_y() == float(src[:, 1].sum())

    m = ti.Matrix.field(2, 2, ti.f32, shape=4)
    msrc = np.arange(16, dtype=np.float32).reshape(4, 2, 2)
    m.from_numpy(msrc)
    np.testing.assert_array_equal(m.to_numpy(), msrc)
    assert m[1][0, 1] == 5.0
    m.fill(1.5)
    np.testing.assert_array_equal(m.to_numpy(), np.full((4, 2, 2), 1.5, np.float32))

    w = ti.Vector.field(2, ti.i32, shape=(2, 3))
    wsrc = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    w.from_numpy(wsrc)
    np.testing.assert_array_equal(w.to_numpy(), wsrc)
    assert w[1, 2][1] == 11
    w.fill(-2)
    np.testing.assert_array_equal(w.to_numpy(), np.full((2, 3, 2), -2, np.int32))


def test_vector_field_placed_with_root_dense():
    v = ti.Vector.field(3, ti.f32)
    ti.root.dense(ti.i, 8).place(v)
    assert v.shape == (8,)
    assert v.to_numpy().shape == (8, 3)

    s = ti.field(ti.f32)
    b = ti.Vector.field(2, ti.i32)
    ti.root.dense(ti.i, 4).place(s, b)  # AoS: a scalar and a vector in one cell
    assert b.shape == (4,)
    assert b.to_numpy().shape == (4, 2)

    h = ti.Matrix.field(2, 2, ti.f32)
    ti.root.dense(ti.ij, (2, 2)).dense(ti.ij, (2, 2)).place(h)  # hierarchical
    assert h.shape == (4, 4)
    assert h.to_numpy().shape == (4, 4, 2, 2)

    @ti.kernel
    def fill():
        for i in v:
            v[i] = ti.Vector([i, i + 0.5, -1.0])
        for i in b:
            b[i] = ti.Vector([i, i * i])
            s[i] = b[i][0] + b[i][1]
        for i, j in h:
            h[i, j] = ti.Matrix([[i, j], [i * j, 1.0]])

    fill()
    np.testing.assert_array_equal(
        v.to_numpy(),
        np.stack([np.arange(8), np.arange(8) + 0.5, -np.ones(8)], axis=1).astype(np.float32),
    )
    np.testing.assert_array_equal(b.to_numpy(), np.array([[i, i * i] for i in range(4)], np.int32))
    np.testing.assert_array_equal(s.to_numpy(), np.array([i + i * i for i in range(4)], np.float32))
    hexp = np.array(
        [[[[i, j], [i * j, 1.0]] for j in range(4)] for i in range(4)], dtype=np.float32
    )
    np.testing.assert_array_equal(h.to_numpy(), hexp)
    assert h[3, 2][1, 0] == 6.0
    b[2] = [7, 8]
    assert b.to_numpy()[2].tolist() == [7, 8]
    assert s[2] == 6.0  # the scalar sharing the cell is untouched


def test_vector_field_soa_by_separate_place():
    # one vector field and one scalar field placed separately (SoA) behave the same as AoS
    results = []
    for aos in (True, False):
        v = ti.Vector.field(3, ti.f32)
        s = ti.field(ti.f32)
        if aos:
            ti.root.dense(ti.i, 6).place(v, s)
        else:
            ti.root.dense(ti.i, 6).place(v)
            ti.root.dense(ti.i, 6).place(s)

        @ti.kernel
        def run(v: ti.template(), s: ti.template()):
            for i in v:
                v[i] = ti.Vector([i, 1.0, 2.0]) * 0.5
                s[i] = v[i].norm()

        run(v, s)
        results.append((v.to_numpy(), s.to_numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_sparse_vector_field():
    v = ti.Vector.field(2, ti.f32)
    blk = ti.root.pointer(ti.i, 4)
    blk.dense(ti.i, 4).place(v)
    v[5] = [1.0, 2.0]

    @ti.kernel
    def count() -> ti.i32:
        n = 0
        for _i in v:
            n += 1
        return n

    assert count() == 4
    expect = np.zeros((16, 2), np.float32)
    expect[5] = [1.0, 2.0]
    np.testing.assert_array_equal(v.to_numpy(), expect)
    assert v[12][1] == 0.0


def test_vector_field_m_is_1():
    v = ti.Vector.field(3, ti.f32, shape=8)
    assert (v.n, v.m) == (3, 1)


def test_python_scope_component_write_goes_through():
    # Taichi 1.7.4: ``v[i]`` from Python is a proxy, ``v[i][k] = s`` writes the field
    v = ti.Vector.field(3, ti.f32, shape=4)
    v[2][1] = 7
    assert [v[2][k] for k in range(3)] == [0.0, 7.0, 0.0]
    assert v.to_numpy()[2].tolist() == [0.0, 7.0, 0.0]


def test_component_attribute_augmented_assign_and_atomic_add_on_vectors():
    v = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def run():
        for i in v:
            v[i].y += 1.0
            v[i].z = i
            ti.atomic_add(v[i], ti.Vector([0.5, 0.5, 0.5]))

    run()
    expect = np.array([[0.5, 1.5, i + 0.5] for i in range(4)], np.float32)
    np.testing.assert_array_equal(v.to_numpy(), expect)


def test_vector_cast_accepts_python_and_ti_types():
    out = ti.Vector.field(3, ti.f32, shape=())
    idx = ti.Vector.field(3, ti.i32, shape=())

    @ti.kernel
    def run():
        p = ti.Vector([1.7, -2.2, 3.5])
        base = (p * 2.0 - 0.5).cast(int)  # the MPM idiom: Python int means default_ip
        idx[None] = base
        out[None] = base.cast(float) + p.cast(ti.i32).cast(ti.f32)

    run()
    assert idx[None].tolist() == [2, -4, 6]
    assert out[None].tolist() == [3.0, -6.0, 9.0]


def test_int_and_float_of_vectors_and_compile_time_values():
    out = ti.Vector.field(3, ti.i32, shape=())
    back = ti.Vector.field(3, ti.f32, shape=())
    block = "4"  # a compile-time Python value converted in the kernel

    @ti.kernel
    def run():
        ti.loop_config(block_dim=int(block))
        for _ in range(1):
            v = ti.Vector([1.7, -2.2, 3.9])
            out[None] = int(v - 0.5)  # Taichi's mpm3d idiom: per component, truncating
            back[None] = float(out[None]) + float("0.5")

    run()
    assert out[None].tolist() == [1, -2, 3]
    assert back[None].tolist() == [1.5, -1.5, 3.5]
