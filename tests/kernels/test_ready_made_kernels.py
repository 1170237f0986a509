"""``ti_notebook.kernels`` against NumPy: reductions, stencils, MPM, n-body, layout walks."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.kernels import layout_walks, particles, reductions, stencils

pytestmark = pytest.mark.cpu


def _rng():
    return np.random.default_rng(11)


@ti.kernel
def _write(dst: ti.template(), src: ti.types.ndarray()):
    # a write from a kernel activates a sparse cell (from_numpy writes active cells only)
    for cell in ti.grouped(src):
        dst[cell] = src[cell]


@pytest.mark.parametrize("shape", [(1000,), (30, 40), (6, 7, 8)])
def test_reductions_match_numpy(shape):
    data = _rng().uniform(-5, 5, shape).astype(np.float32)
    x = ti.field(ti.f32, shape=shape)
    x.from_numpy(data)
    assert reductions.field_sum(x) == pytest.approx(data.astype(np.float64).sum(), rel=1e-9)
    assert reductions.field_max(x) == pytest.approx(float(data.max()))
    assert reductions.field_mean(x) == pytest.approx(data.astype(np.float64).mean(), rel=1e-9)
    counts = ti.field(ti.i32, shape=10)
    reductions.histogram(x, counts, -4.0, 4.0)
    want, _ = np.histogram(data[(data >= -4) & (data < 4)], bins=10, range=(-4, 4))
    np.testing.assert_array_equal(counts.to_numpy(), want)


def test_stencils_match_numpy_with_and_without_block_local():
    u_np = _rng().random((64, 64), dtype=np.float32)
    want = (
        u_np[:-2, 1:-1] + u_np[2:, 1:-1] + u_np[1:-1, :-2] + u_np[1:-1, 2:] - 4 * u_np[1:-1, 1:-1]
    )
    u, out = ti.field(ti.f32, (64, 64)), ti.field(ti.f32, (64, 64))
    u.from_numpy(u_np)
    stencils.laplace_2d(u, out)
    np.testing.assert_allclose(out.to_numpy()[1:-1, 1:-1], want, rtol=1e-5, atol=1e-5)
    ub, outb = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, 8).dense(ti.ij, 8).place(ub, outb)
    _write(ub, u_np)
    _write(outb, np.zeros_like(u_np))
    stencils.laplace_2d_block_local(ub, outb)
    np.testing.assert_allclose(outb.to_numpy()[1:-1, 1:-1], want, rtol=1e-5, atol=1e-5)
    assert stencils.laplace_2d_block_local.stages(ub, outb)["report"]["block_local"]


def test_3d_stencils_match_numpy():
    u_np = _rng().random((16, 16, 16), dtype=np.float32)
    c = u_np[1:-1, 1:-1, 1:-1]
    want = (
        u_np[:-2, 1:-1, 1:-1] + u_np[2:, 1:-1, 1:-1] + u_np[1:-1, :-2, 1:-1]
        + u_np[1:-1, 2:, 1:-1] + u_np[1:-1, 1:-1, :-2] + u_np[1:-1, 1:-1, 2:] - 6 * c
    )  # fmt: skip
    u, out = ti.field(ti.f32, (16, 16, 16)), ti.field(ti.f32, (16, 16, 16))
    u.from_numpy(u_np)
    stencils.laplace_3d(u, out)
    np.testing.assert_allclose(out.to_numpy()[1:-1, 1:-1, 1:-1], want, rtol=1e-5, atol=1e-5)
    ub, outb = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ijk, 4).dense(ti.ijk, 4).place(ub, outb)
    _write(ub, u_np)
    _write(outb, np.zeros_like(u_np))
    stencils.laplace_3d_block_local(ub, outb)
    np.testing.assert_allclose(outb.to_numpy()[1:-1, 1:-1, 1:-1], want, rtol=1e-5, atol=1e-5)


def _p2g_reference(x, v, inv_dx, grid):
    """Mass and momentum by the same quadratic weights, in float64 (C = 0)."""
    dim = x.shape[1]
    m = np.zeros((grid,) * dim)
    mv = np.zeros((grid,) * dim + (dim,))
    base = (x * inv_dx - 0.5).astype(int)
    fx = x * inv_dx - base
    w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
    for offset in np.ndindex(*(3,) * dim):
        weight = np.prod([w[o][:, a] for a, o in enumerate(offset)], axis=0)
        cells = tuple((base + np.array(offset))[:, a] for a in range(dim))
        np.add.at(m, cells, weight)
        np.add.at(mv, cells, weight[:, None] * v)
    return m, mv


@pytest.mark.parametrize("dim", [2, 3])
def test_mpm_transfers_match_numpy(dim):
    n, grid = 500, 16
    inv_dx = float(grid)
    rng = _rng()
    x_np = rng.uniform(0.2, 0.8, (n, dim)).astype(np.float32)
    v_np = rng.uniform(-1, 1, (n, dim)).astype(np.float32)
    x, v = ti.Vector.field(dim, ti.f32, n), ti.Vector.field(dim, ti.f32, n)
    C = ti.Matrix.field(dim, dim, ti.f32, n)
    grid_v = ti.Vector.field(dim, ti.f32, (grid,) * dim)
    grid_m = ti.field(ti.f32, (grid,) * dim)
    x.from_numpy(x_np)
    v.from_numpy(v_np)
    p2g = particles.p2g_2d if dim == 2 else particles.p2g_3d
    g2p = particles.g2p_2d if dim == 2 else particles.g2p_3d
    p2g(x, v, C, grid_v, grid_m, inv_dx, 1.0)
    m_ref, mv_ref = _p2g_reference(x_np.astype(np.float64), v_np.astype(np.float64), inv_dx, grid)
    np.testing.assert_allclose(grid_m.to_numpy(), m_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grid_v.to_numpy(), mv_ref, rtol=1e-4, atol=1e-4)
    particles.grid_velocity(grid_v, grid_m)
    g2p(x, v, C, grid_v, inv_dx, 0.0)
    # a uniform velocity field goes back unchanged: check total momentum instead
    assert v.to_numpy().sum(0) == pytest.approx(v_np.sum(0), rel=0.05, abs=0.5)


def test_nbody_forces_match_numpy():
    p = _rng().random((64, 3)).astype(np.float32)
    pos, force = ti.Vector.field(3, ti.f32, 64), ti.Vector.field(3, ti.f32, 64)
    pos.from_numpy(p)
    particles.nbody_forces(pos, force, 1e-2)
    d = p[None, :, :].astype(np.float64) - p[:, None, :]
    r2 = (d**2).sum(-1) + 1e-2
    np.fill_diagonal(r2, np.inf)
    want = (d / (r2 * np.sqrt(r2))[..., None]).sum(1)
    np.testing.assert_allclose(force.to_numpy(), want, rtol=1e-3, atol=1e-3)


def test_layout_walks_and_wave_step():
    a = ti.field(ti.f32)
    ti.root.dense(ti.j, 8).dense(ti.i, 8).place(a)
    layout_walks.row_major_walk(a, 1.0)
    layout_walks.column_major_walk(a, 2.0)
    layout_walks.struct_for_walk(a, 0.5)
    assert (a.to_numpy() == 3.5).all()
    pos, vel = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.dense(ti.i, 16).place(pos, vel)
    pos.from_numpy(np.ones(16, np.float32))
    layout_walks.wave_step(pos, vel, 0.1, 2.0)
    np.testing.assert_allclose(vel.to_numpy(), -0.2, rtol=1e-6)
    np.testing.assert_allclose(pos.to_numpy(), 1 - 0.02, rtol=1e-6)
