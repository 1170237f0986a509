"""Particle kernels: MLS-MPM particle-to-grid and grid-to-particle (2-D and 3-D), and
n-body forces.

The MPM pair follows the 88-line MLS-MPM of the Taichi examples (quadratic B-spline
weights, APIC affine velocity ``C``), without stress: ``p2g`` scatters each particle's
mass and momentum into the 3x3 (3x3x3) grid cells around it; ``g2p`` gathers the grid
velocity back into the particle's velocity and ``C`` and moves it by ``dt``. The grid
is ``grid_m`` (mass) and ``grid_v`` (momentum, then velocity: the caller divides by mass
between the two, see :func:`grid_velocity`). Positions are in [0, 1); ``inv_dx`` is the
grid's cells per unit.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.Vector.field(2, ti.f32, 4)
    >>> v = ti.Vector.field(2, ti.f32, 4)
    >>> C = ti.Matrix.field(2, 2, ti.f32, 4)
    >>> grid_v, grid_m = ti.Vector.field(2, ti.f32, (8, 8)), ti.field(ti.f32, (8, 8))
    >>> x.from_numpy(np.full((4, 2), 0.5, np.float32))
    >>> p2g_2d(x, v, C, grid_v, grid_m, 8.0, 1.0)
    >>> round(float(grid_m.to_numpy().sum()), 4)  # every particle's weights add up to 1
    4.0
"""

from __future__ import annotations

import ti_notebook as ti


@ti.func
def _weights(fx):
    return [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]


@ti.kernel
def p2g_2d(
    x: ti.template(),
    v: ti.template(),
    C: ti.template(),
    grid_v: ti.template(),
    grid_m: ti.template(),
    inv_dx: ti.f32,
    p_mass: ti.f32,
):
    """Adds each 2-D particle's mass and APIC momentum into the grid (atomic adds)."""
    for p in x:
        base = ti.cast(x[p] * inv_dx - 0.5, ti.i32)
        fx = x[p] * inv_dx - ti.cast(base, ti.f32)
        w = _weights(fx)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (ti.cast(offset, ti.f32) - fx) / inv_dx
            weight = w[i][0] * w[j][1]
            grid_v[base + offset] += weight * p_mass * (v[p] + C[p] @ dpos)
            grid_m[base + offset] += weight * p_mass


@ti.kernel
def p2g_3d(
    x: ti.template(),
    v: ti.template(),
    C: ti.template(),
    grid_v: ti.template(),
    grid_m: ti.template(),
    inv_dx: ti.f32,
    p_mass: ti.f32,
):
    """:func:`p2g_2d` in 3-D: 27 grid cells per particle."""
    for p in x:
        base = ti.cast(x[p] * inv_dx - 0.5, ti.i32)
        fx = x[p] * inv_dx - ti.cast(base, ti.f32)
        w = _weights(fx)
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            offset = ti.Vector([i, j, k])
            dpos = (ti.cast(offset, ti.f32) - fx) / inv_dx
            weight = w[i][0] * w[j][1] * w[k][2]
            grid_v[base + offset] += weight * p_mass * (v[p] + C[p] @ dpos)
            grid_m[base + offset] += weight * p_mass


@ti.kernel
def grid_velocity(grid_v: ti.template(), grid_m: ti.template()):
    """Momentum to velocity: ``grid_v /= grid_m`` where the cell has mass."""
    for cell in ti.grouped(grid_m):
        if grid_m[cell] > 0:
            grid_v[cell] /= grid_m[cell]


@ti.kernel
def g2p_2d(
    x: ti.template(),
    v: ti.template(),
    C: ti.template(),
    grid_v: ti.template(),
    inv_dx: ti.f32,
    dt: ti.f32,
):
    """Gathers 2-D grid velocities into each particle's ``v`` and ``C``, then moves it."""
    for p in x:
        base = ti.cast(x[p] * inv_dx - 0.5, ti.i32)
        fx = x[p] * inv_dx - ti.cast(base, ti.f32)
        w = _weights(fx)
        new_v = ti.Vector.zero(ti.f32, 2)
        new_C = ti.Matrix.zero(ti.f32, 2, 2)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = ti.cast(offset, ti.f32) - fx
            g_v = grid_v[base + offset]
            weight = w[i][0] * w[j][1]
            new_v += weight * g_v
            new_C += 4 * inv_dx * weight * g_v.outer_product(dpos)
        v[p], C[p] = new_v, new_C
        x[p] += dt * new_v


@ti.kernel
def g2p_3d(
    x: ti.template(),
    v: ti.template(),
    C: ti.template(),
    grid_v: ti.template(),
    inv_dx: ti.f32,
    dt: ti.f32,
):
    """:func:`g2p_2d` in 3-D."""
    for p in x:
        base = ti.cast(x[p] * inv_dx - 0.5, ti.i32)
        fx = x[p] * inv_dx - ti.cast(base, ti.f32)
        w = _weights(fx)
        new_v = ti.Vector.zero(ti.f32, 3)
        new_C = ti.Matrix.zero(ti.f32, 3, 3)
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            offset = ti.Vector([i, j, k])
            dpos = ti.cast(offset, ti.f32) - fx
            g_v = grid_v[base + offset]
            weight = w[i][0] * w[j][1] * w[k][2]
            new_v += weight * g_v
            new_C += 4 * inv_dx * weight * g_v.outer_product(dpos)
        v[p], C[p] = new_v, new_C
        x[p] += dt * new_v


@ti.kernel
def nbody_forces(pos: ti.template(), force: ti.template(), softening: ti.f32):
    """``force[i]`` = the sum over ``j != i`` of ``d / (|d|^2 + softening)^1.5``, ``d =
    pos[j] - pos[i]`` (unit masses, G = 1), for 2-D or 3-D ``Vector.field`` s."""
    for i in pos:
        total = pos[i] * 0.0
        for j in range(pos.shape[0]):
            if i != j:
                d = pos[j] - pos[i]
                r2 = d.dot(d) + softening
                total += d / (r2 * ti.sqrt(r2))
        force[i] = total
