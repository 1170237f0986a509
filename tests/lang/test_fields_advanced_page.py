"""The "Fields (advanced)" page (shared/seeds/003): its snippets, run as they stand.

Only ``import taichi as ti`` is changed (and the indentation the page lost restored);
checked against real Taichi 1.7.4. Other layout tests: ``test_snode_dense.py``.
"""

import numpy as np
import pytest
from snode_helpers import kernels, linear

import ti_notebook as ti

pytestmark = pytest.mark.cpu


# --------------------------------------------------------------------------------------
# The page's snippets, verbatim
# --------------------------------------------------------------------------------------


def test_page_0d_field():
    x = ti.field(ti.f32)
    ti.root.place(x)

    assert x.shape == ()
    assert x[None] == 0.0
    x[None] = 1.5
    assert x[None] == 1.5

    # is equivalent to:
    x = ti.field(ti.f32, shape=())
    assert x.shape == ()
    assert x[None] == 0.0


def test_page_1d_field_of_shape_3():
    x = ti.field(ti.f32)
    ti.root.dense(ti.i, 3).place(x)
    a = x

    # is equivalent to:
    x = ti.field(ti.f32, shape=3)
    b = x

    assert a.shape == b.shape == (3,)
    for f in (a, b):
        for i in range(3):
            f[i] = i + 0.5
        np.testing.assert_array_equal(f.to_numpy(), np.array([0.5, 1.5, 2.5], np.float32))


def test_page_2d_field_of_shape_3_4():
    x = ti.field(ti.f32)
    ti.root.dense(ti.ij, (3, 4)).place(x)
    a = x
    # is equivalent to:
    x = ti.field(ti.f32, shape=(3, 4))
    b = x

    x = ti.field(ti.f32)
    ti.root.dense(ti.i, 3).dense(ti.j, 4).place(x)
    # has the same shape with
    c = x

    write_linear, _ = kernels()
    for f in (a, b, c):
        assert f.shape == (3, 4)
        write_linear(f)
        np.testing.assert_array_equal(f.to_numpy(), linear((3, 4)).astype(np.float32))


def test_page_struct_for_traverses_nested_dense():
    A = ti.field(ti.f32)
    ti.root.dense(ti.i, 3).dense(ti.j, 4).place(A)

    @ti.kernel
    def add_one():
        for i, j in A:
            A[i, j] += 1

    add_one()
    add_one()
    np.testing.assert_array_equal(A.to_numpy(), np.full((3, 4), 2.0, np.float32))


def test_page_row_major_and_column_major():
    M, N = 3, 2  # the page's example is a (3, 2) field
    x = ti.field(ti.f32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, M).dense(ti.j, N).place(x)  # row-major
    ti.root.dense(ti.j, N).dense(ti.i, M).place(y)  # column-major

    assert x.shape == y.shape == (3, 2)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 10 + j
        for i, j in y:
            y[i, j] = i * 10 + j

    fill()
    expect = np.array([[0, 1], [10, 11], [20, 21]], np.float32)
    np.testing.assert_array_equal(x.to_numpy(), expect)
    np.testing.assert_array_equal(y.to_numpy(), expect)
    # one accessor for both layouts
    for i in range(M):
        for j in range(N):
            assert x[i, j] == y[i, j] == i * 10 + j


def test_page_soa_and_aos_declarations():
    M = 6
    x = ti.field(ti.f32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, M).place(x)
    ti.root.dense(ti.i, M).place(y)
    soa = (x, y)

    x = ti.field(ti.f32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, M).place(x, y)
    aos = (x, y)

    @ti.kernel
    def work(x: ti.template(), y: ti.template()):
        for i in x:
            x[i] = i * 1.5
            y[i] = x[i] + 100

    for x, y in (soa, aos):
        assert x.shape == y.shape == (M,)
        work(x, y)
        np.testing.assert_array_equal(x.to_numpy(), np.arange(M, dtype=np.float32) * 1.5)
        np.testing.assert_array_equal(y.to_numpy(), np.arange(M, dtype=np.float32) * 1.5 + 100)
    np.testing.assert_array_equal(soa[0].to_numpy(), aos[0].to_numpy())
    np.testing.assert_array_equal(soa[1].to_numpy(), aos[1].to_numpy())


def test_page_wave_equation_aos_and_soa_identical():
    # The page's `step` is not runnable as printed (i, dt and k are undefined); here it
    # loops over the field and takes dt and k as arguments. One kernel, both layouts.
    N = 1024
    pos = ti.field(ti.f32)
    vel = ti.field(ti.f32)
    # SoA placement
    ti.root.dense(ti.i, N).place(pos)
    ti.root.dense(ti.i, N).place(vel)
    soa = (pos, vel)

    pos = ti.field(ti.f32)
    vel = ti.field(ti.f32)
    # AoS placement
    ti.root.dense(ti.i, N).place(pos, vel)
    aos = (pos, vel)

    @ti.kernel
    def step(pos: ti.template(), vel: ti.template(), dt: ti.f32, k: ti.f32):
        for i in pos:
            pos[i] += vel[i] * dt
            vel[i] += -k * pos[i] * dt

    x0 = np.sin(np.linspace(0.0, 6.0, N)).astype(np.float32)
    v0 = np.cos(np.linspace(0.0, 3.0, N)).astype(np.float32)
    dt, k = np.float32(0.01), np.float32(4.0)
    for pos, vel in (soa, aos):
        pos.from_numpy(x0)
        vel.from_numpy(v0)
        for _ in range(10):
            step(pos, vel, dt, k)

    # the same numbers, bit for bit, for both layouts
    np.testing.assert_array_equal(soa[0].to_numpy(), aos[0].to_numpy())
    np.testing.assert_array_equal(soa[1].to_numpy(), aos[1].to_numpy())

    # and what NumPy computes in f32 (up to fused multiply-add rounding)
    x, v = x0.copy(), v0.copy()
    for _ in range(10):
        x = (x + v * dt).astype(np.float32)
        v = (v + (-k) * x * dt).astype(np.float32)
    np.testing.assert_allclose(aos[0].to_numpy(), x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(aos[1].to_numpy(), v, rtol=1e-5, atol=1e-6)


def test_page_flat_and_hierarchical_val():
    M, N = 32, 16
    # Flat field
    val = ti.field(ti.f32)
    ti.root.dense(ti.ij, (M, N)).place(val)
    flat = val
    # Hierarchical field
    val = ti.field(ti.f32)
    ti.root.dense(ti.ij, (M // 8, N // 8)).dense(ti.ij, (8, 8)).place(val)
    hier = val

    assert flat.shape == hier.shape == (M, N)
    write_linear, _ = kernels()
    write_linear(flat)
    write_linear(hier)
    np.testing.assert_array_equal(flat.to_numpy(), hier.to_numpy())
    np.testing.assert_array_equal(hier.to_numpy(), linear((M, N)).astype(np.float32))


def test_page_fields_builder_example():
    import ti_notebook as ti

    ti.init()

    @ti.kernel
    def func(v: ti.template()):
        for I in ti.grouped(v):  # noqa: E741
            v[I] += 1

    fb1 = ti.FieldsBuilder()
    x = ti.field(dtype=ti.f32)
    fb1.dense(ti.ij, (5, 5)).place(x)
    fb1_snode_tree = fb1.finalize()  # Finalizes the FieldsBuilder and returns a SNodeTree
    func(x)
    np.testing.assert_array_equal(x.to_numpy(), np.ones((5, 5), np.float32))
    fb1_snode_tree.destroy()  # Destruction

    fb2 = ti.FieldsBuilder()
    y = ti.field(dtype=ti.f32)
    fb2.dense(ti.i, 5).place(y)
    fb2_snode_tree = fb2.finalize()  # Finalizes the FieldsBuilder and returns a SNodeTree
    func(y)
    np.testing.assert_array_equal(y.to_numpy(), np.ones(5, np.float32))
    fb2_snode_tree.destroy()  # Destruction
