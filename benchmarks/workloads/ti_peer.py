"""The Taichi-language workloads, written once and run with ``ti_notebook`` and ``taichi``.

Each ``run_*`` takes the ``ti`` module and a :class:`~workloads.measure.Timer`, calls
``ti.init(arch=ti.cpu, **INIT_OPTIONS)``, builds its fields, runs every kernel once and
checks the result against NumPy, then times it. Only the module differs between the two
peers (and ``ti_init.INIT_OPTIONS``: ``{"check_bounds": False}`` for ti_notebook with its
bounds checks off, the ``ti_notebook_unchecked`` peer of ``compare.py``). The everyday
patterns (``patterns_ti``) join :data:`GROUPS`.

    >>> import ti_notebook as ti
    >>> rows = run_saxpy(ti, Timer(getattr(ti, "sync", None)))
"""

# No `from __future__ import annotations` here: both Taichi and ti_notebook read kernel
# annotations such as `a: ti.f32` as objects, and `ti` is a parameter, not a global.
from types import ModuleType

import numpy as np

from . import numpy_peer as ref
from . import patterns_ti, spec
from .measure import Timer, attempt, check
from .ti_init import init, sync


def run_reduce(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    data = spec.flat_data()
    x = ti.field(ti.f32, shape=spec.N_FLAT)
    s = ti.field(ti.f32, shape=())
    m = ti.field(ti.f32, shape=())
    x.from_numpy(data)

    def measure_sum() -> dict:
        @ti.kernel
        def global_sum():
            for i in x:
                s[None] += x[i]

        def reset():
            s[None] = 0.0

        reset()
        global_sum()
        sync(ti)
        check("sum", s[None], data.sum(dtype=np.float64), rtol=1e-3)
        return timer.figure(global_sum, setup=reset)

    def measure_max() -> dict:
        @ti.kernel
        def global_max():
            for i in x:
                ti.atomic_max(m[None], x[i])

        def reset():
            m[None] = -1.0

        reset()
        global_max()
        sync(ti)
        check("max", m[None], data.max())
        return timer.figure(global_max, setup=reset)

    return {"sum": attempt(measure_sum), "max": attempt(measure_max)}


def run_saxpy(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    x = ti.field(ti.f32, shape=spec.N_FLAT)
    y = ti.field(ti.f32, shape=spec.N_FLAT)
    x_np, y_np = spec.flat_data(), spec.flat_data()
    x.from_numpy(x_np)
    y.from_numpy(y_np)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    saxpy(spec.SAXPY_A)
    sync(ti)
    ref.saxpy(spec.SAXPY_A, x_np, y_np)
    check("saxpy", y.to_numpy(), y_np, rtol=1e-6)
    return {"saxpy": timer.figure(lambda: saxpy(spec.SAXPY_A))}


def run_stencil(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    n = spec.N_STENCIL
    a = ti.field(ti.f32, shape=(n, n))
    b = ti.field(ti.f32, shape=(n, n))
    a_np = spec.grid_data()
    a.from_numpy(a_np)

    @ti.kernel
    def laplace():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]

    laplace()
    sync(ti)
    check("stencil", b.to_numpy(), ref.stencil(a_np), rtol=1e-5, atol=1e-5)
    return {"stencil": timer.figure(laplace)}


def _wave(ti: ModuleType, timer: Timer, aos: bool) -> dict:
    init(ti)
    n = spec.N_FLAT
    pos = ti.field(ti.f32)
    vel = ti.field(ti.f32)
    if aos:
        ti.root.dense(ti.i, n).place(pos, vel)
    else:
        ti.root.dense(ti.i, n).place(pos)
        ti.root.dense(ti.i, n).place(vel)
    dt, k = spec.WAVE_DT, spec.WAVE_K
    pos_np, vel_np = spec.flat_data(), np.full(n, 0.25, np.float32)
    pos.from_numpy(pos_np)
    vel.from_numpy(vel_np)

    @ti.kernel
    def step():
        for i in pos:
            pos[i] += vel[i] * dt
            vel[i] += -k * pos[i] * dt

    step()
    sync(ti)
    ref.wave(pos_np, vel_np)
    check("wave pos", pos.to_numpy(), pos_np, rtol=1e-6, atol=1e-7)
    check("wave vel", vel.to_numpy(), vel_np, rtol=1e-6, atol=1e-7)
    return timer.figure(step)


def run_wave(ti: ModuleType, timer: Timer) -> dict:
    return {
        "wave_aos": attempt(_wave, ti, timer, True),
        "wave_soa": attempt(_wave, ti, timer, False),
    }


def _row_major_loop(ti: ModuleType, timer: Timer, column_major: bool) -> dict:
    init(ti)
    n = spec.N_LAYOUT
    x = ti.field(ti.f32)
    if column_major:
        ti.root.dense(ti.j, n).dense(ti.i, n).place(x)
    else:
        ti.root.dense(ti.i, n).dense(ti.j, n).place(x)

    @ti.kernel
    def touch():
        for i, j in ti.ndrange(n, n):
            x[i, j] += 1.0

    touch()
    sync(ti)
    check("row-major loop", x.to_numpy(), np.ones((n, n), np.float32))
    return timer.figure(touch)


def _struct_for(ti: ModuleType, timer: Timer, blocked: bool) -> dict:
    init(ti)
    n, b = spec.N_LAYOUT, spec.BLOCK
    val = ti.field(ti.f32)
    if blocked:
        ti.root.dense(ti.ij, (n // b, n // b)).dense(ti.ij, (b, b)).place(val)
    else:
        ti.root.dense(ti.ij, (n, n)).place(val)

    @ti.kernel
    def scale():
        for i, j in val:
            val[i, j] = val[i, j] * 0.5 + i - j

    scale()
    sync(ti)
    idx = np.arange(n, dtype=np.float32)
    check("struct-for", val.to_numpy(), idx[:, None] - idx[None, :])
    return timer.figure(scale)


def run_layout(ti: ModuleType, timer: Timer) -> dict:
    return {
        "rows_row": attempt(_row_major_loop, ti, timer, False),
        "rows_col": attempt(_row_major_loop, ti, timer, True),
        "sfor_flat": attempt(_struct_for, ti, timer, False),
        "sfor_blocked": attempt(_struct_for, ti, timer, True),
    }


def run_copy(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    a = ti.field(ti.f32, shape=spec.N_COPY)
    b = ti.field(ti.f32, shape=spec.N_COPY)
    a_np = spec.flat_data(spec.N_COPY)
    a.from_numpy(a_np)

    @ti.kernel
    def copy():
        for i in a:
            b[i] = a[i]

    copy()
    sync(ti)
    check("copy", b.to_numpy()[:: 1 << 16], a_np[:: 1 << 16])
    return {"copy": timer.figure(copy)}


def run_launch(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    small = ti.field(ti.f32, shape=spec.N_SMALL)

    def measure_empty() -> dict:
        @ti.kernel
        def empty():
            pass

        empty()
        return timer.per_call(empty)

    def measure_fill() -> dict:
        @ti.kernel
        def fill(v: ti.f32):
            for i in small:
                small[i] = v

        fill(1.5)
        sync(ti)
        check("fill", small.to_numpy(), np.full(spec.N_SMALL, 1.5))
        return timer.per_call(fill, 1.5)

    return {"launch": attempt(measure_empty), "fill": attempt(measure_fill)}


def run_mpm(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    g, n = spec.MPM_GRID, spec.MPM_PARTICLES
    inv_dx, p_mass = float(g), 1.0
    block_dim, threads = spec.MPM_BLOCK_DIM, spec.MPM_THREADS
    x = ti.Vector.field(3, ti.f32, n)
    v = ti.Vector.field(3, ti.f32, n)
    grid_v = ti.Vector.field(3, ti.f32, (g, g, g))
    grid_m = ti.field(ti.f32, (g, g, g))
    x_np, v_np = spec.particles()
    x.from_numpy(x_np)
    v.from_numpy(v_np)

    @ti.func
    def scatter(p):
        xp = x[p] * inv_dx
        base = ti.cast(xp - 0.5, ti.i32)
        fx = xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            offset = ti.Vector([i, j, k])
            weight = w[i][0] * w[j][1] * w[k][2]
            grid_v[base + offset] += weight * p_mass * v[p]
            grid_m[base + offset] += weight * p_mass

    @ti.kernel
    def p2g():
        for p in x:
            scatter(p)

    @ti.kernel
    def p2g_tuned():
        ti.loop_config(block_dim=block_dim, parallelize=threads)
        for p in x:
            scatter(p)

    def clear():
        grid_v.fill(0)
        grid_m.fill(0)

    want = ref.p2g(x_np, v_np)

    def measure(kernel) -> dict:
        clear()
        kernel()
        sync(ti)
        ref.check_p2g(grid_v.to_numpy(), grid_m.to_numpy(), want)
        return timer.figure(kernel, setup=clear)

    return {"p2g": attempt(measure, p2g), "p2g_tuned": attempt(measure, p2g_tuned)}


GROUPS = {
    "reduce": run_reduce,
    "saxpy": run_saxpy,
    "stencil": run_stencil,
    "wave": run_wave,
    "layout": run_layout,
    "copy": run_copy,
    "launch": run_launch,
    "mpm": run_mpm,
    **patterns_ti.GROUPS,
}
