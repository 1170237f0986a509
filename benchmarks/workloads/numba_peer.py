"""The Numba peer: each workload as idiomatic ``@njit(parallel=True)`` code with ``prange``.

Constants are ``np.float32`` so the arithmetic stays in f32 as in the Taichi kernels.
Layouts: SoA is two arrays, AoS one (n, 2) array; column-major is a Fortran-order
array; the 8×8-blocked field is a (M/8, N/8, 8, 8) array. The MPM scatter is race-free
without atomics: each thread scatters its chunk of particles into a private grid, then
a second parallel loop sums the private grids.

    >>> import numpy as np
    >>> float(global_sum(np.ones(8, np.float32)))
    8.0
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from . import numpy_peer as ref
from . import spec
from .measure import Timer, attempt, check

F32 = np.float32
HALF, ONE, ONE_HALF, THREE_QUARTERS = F32(0.5), F32(1.0), F32(1.5), F32(0.75)
DT, K = F32(spec.WAVE_DT), F32(spec.WAVE_K)
INV_DX = F32(spec.MPM_GRID)


@njit(parallel=True)
def global_sum(x):
    s = F32(0.0)
    for i in prange(x.shape[0]):
        s += x[i]
    return s


@njit(parallel=True)
def global_max(x):
    m = F32(-1.0)
    for i in prange(x.shape[0]):
        m = max(m, x[i])
    return m


@njit(parallel=True)
def saxpy(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i] + y[i]


@njit(parallel=True)
def stencil(a, b):
    n, m = a.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - F32(4.0) * a[i, j]


@njit(parallel=True)
def wave_soa(pos, vel):
    for i in prange(pos.shape[0]):
        pos[i] += vel[i] * DT
        vel[i] += -K * pos[i] * DT


@njit(parallel=True)
def wave_aos(pv):
    for i in prange(pv.shape[0]):
        pv[i, 0] += pv[i, 1] * DT
        pv[i, 1] += -K * pv[i, 0] * DT


@njit(parallel=True)
def touch(x):
    for i in prange(x.shape[0]):
        for j in range(x.shape[1]):
            x[i, j] += ONE


@njit(parallel=True)
def scale_flat(val):
    for i in prange(val.shape[0]):
        for j in range(val.shape[1]):
            val[i, j] = val[i, j] * HALF + F32(i) - F32(j)


@njit(parallel=True)
def scale_blocked(val):
    nb, mb, b, _ = val.shape
    for bi in prange(nb):
        for bj in range(mb):
            for ii in range(b):
                for jj in range(b):
                    i, j = bi * b + ii, bj * b + jj
                    val[bi, bj, ii, jj] = val[bi, bj, ii, jj] * HALF + F32(i) - F32(j)


@njit(parallel=True)
def copy(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i]


@njit
def empty():
    pass


@njit(parallel=True)
def fill(a, v):
    for i in prange(a.shape[0]):
        a[i] = v


@njit(inline="always")
def weights(f):
    """Quadratic B-spline weights of the 3 nodes around a particle at fraction ``f``."""
    a, b, c = ONE_HALF - f, f - ONE, f - HALF
    return (HALF * a * a, THREE_QUARTERS - b * b, HALF * c * c)


@njit(parallel=True)
def p2g(x, v, grid_v, grid_m, local_v, local_m):
    threads, n = local_m.shape[0], x.shape[0]
    chunk = (n + threads - 1) // threads
    for t in prange(threads):
        lv, lm = local_v[t], local_m[t]
        lv[:] = 0.0
        lm[:] = 0.0
        for p in range(t * chunk, min(n, (t + 1) * chunk)):
            b0 = int(x[p, 0] * INV_DX - HALF)
            b1 = int(x[p, 1] * INV_DX - HALF)
            b2 = int(x[p, 2] * INV_DX - HALF)
            f0 = x[p, 0] * INV_DX - F32(b0)
            f1 = x[p, 1] * INV_DX - F32(b1)
            f2 = x[p, 2] * INV_DX - F32(b2)
            w0, w1, w2 = weights(f0), weights(f1), weights(f2)
            for i in range(3):
                for j in range(3):
                    for k in range(3):
                        weight = w0[i] * w1[j] * w2[k]
                        lm[b0 + i, b1 + j, b2 + k] += weight
                        for d in range(3):
                            lv[b0 + i, b1 + j, b2 + k, d] += weight * v[p, d]
    flat_m, flat_v = grid_m.reshape(-1), grid_v.reshape(-1)
    local_flat_m = local_m.reshape(threads, -1)
    local_flat_v = local_v.reshape(threads, -1)
    for c in prange(flat_m.shape[0]):
        s = F32(0.0)
        for t in range(threads):
            s += local_flat_m[t, c]
        flat_m[c] = s
        for d in range(3):
            s = F32(0.0)
            for t in range(threads):
                s += local_flat_v[t, 3 * c + d]
            flat_v[3 * c + d] = s


# -- workloads ----------------------------------------------------------------------------
def run_reduce(timer: Timer) -> dict:
    x = spec.flat_data()

    def measure(kernel, want, rtol) -> dict:
        check(kernel.__name__, kernel(x), want, rtol=rtol)
        return timer.figure(lambda: kernel(x))

    return {
        "sum": attempt(measure, global_sum, x.sum(dtype=np.float64), 1e-3),
        "max": attempt(measure, global_max, x.max(), 0.0),
    }


def run_saxpy(timer: Timer) -> dict:
    x, y = spec.flat_data(), spec.flat_data()
    a = F32(spec.SAXPY_A)
    want = y.copy()
    ref.saxpy(spec.SAXPY_A, x, want)
    saxpy(a, x, y)
    check("saxpy", y, want, rtol=1e-6)
    return {"saxpy": timer.figure(lambda: saxpy(a, x, y))}


def run_stencil(timer: Timer) -> dict:
    a = spec.grid_data()
    b = np.zeros_like(a)
    stencil(a, b)
    check("stencil", b, ref.stencil(a), rtol=1e-5, atol=1e-5)
    return {"stencil": timer.figure(lambda: stencil(a, b))}


def run_wave(timer: Timer) -> dict:
    pos, vel = spec.flat_data(), np.full(spec.N_FLAT, 0.25, np.float32)
    pv = np.stack([pos, vel], axis=1)
    want_pos, want_vel = pos.copy(), vel.copy()
    ref.wave(want_pos, want_vel)

    def measure_aos() -> dict:
        wave_aos(pv)
        check("wave AoS", pv, np.stack([want_pos, want_vel], axis=1), rtol=1e-6, atol=1e-7)
        return timer.figure(lambda: wave_aos(pv))

    def measure_soa() -> dict:
        wave_soa(pos, vel)
        check("wave SoA", np.stack([pos, vel]), np.stack([want_pos, want_vel]), 1e-6, 1e-7)
        return timer.figure(lambda: wave_soa(pos, vel))

    return {"wave_aos": attempt(measure_aos), "wave_soa": attempt(measure_soa)}


def run_layout(timer: Timer) -> dict:
    n, b = spec.N_LAYOUT, spec.BLOCK
    idx = np.arange(n, dtype=np.float32)

    def measure_rows(order: str) -> dict:
        x = np.zeros((n, n), np.float32, order=order)
        touch(x)
        check("row-major loop", x, np.ones((n, n)))
        return timer.figure(lambda: touch(x))

    def measure_flat() -> dict:
        val = np.zeros((n, n), np.float32)
        scale_flat(val)
        check("struct-for flat", val, idx[:, None] - idx[None, :])
        return timer.figure(lambda: scale_flat(val))

    def measure_blocked() -> dict:
        val = np.zeros((n // b, n // b, b, b), np.float32)
        scale_blocked(val)
        got = val.transpose(0, 2, 1, 3).reshape(n, n)
        check("struct-for blocked", got, idx[:, None] - idx[None, :])
        return timer.figure(lambda: scale_blocked(val))

    return {
        "rows_row": attempt(measure_rows, "C"),
        "rows_col": attempt(measure_rows, "F"),
        "sfor_flat": attempt(measure_flat),
        "sfor_blocked": attempt(measure_blocked),
    }


def run_copy(timer: Timer) -> dict:
    a = spec.flat_data(spec.N_COPY)
    b = np.empty_like(a)
    copy(a, b)
    check("copy", b[:: 1 << 16], a[:: 1 << 16])
    return {"copy": timer.figure(lambda: copy(a, b))}


def run_launch(timer: Timer) -> dict:
    small = np.zeros(spec.N_SMALL, np.float32)
    empty()
    fill(small, 1.5)
    check("fill", small, np.full(spec.N_SMALL, 1.5))
    return {"launch": timer.per_call(empty), "fill": timer.per_call(fill, small, 1.5)}


def run_mpm(timer: Timer) -> dict:
    g = spec.MPM_GRID
    x, v = spec.particles()
    threads = numba.get_num_threads()
    grid_v, grid_m = np.zeros((g, g, g, 3), np.float32), np.zeros((g, g, g), np.float32)
    local_v = np.zeros((threads, g, g, g, 3), np.float32)
    local_m = np.zeros((threads, g, g, g), np.float32)

    def run() -> None:
        p2g(x, v, grid_v, grid_m, local_v, local_m)

    run()
    ref.check_p2g(grid_v, grid_m, ref.p2g(x, v))
    return {"p2g": timer.figure(run), "p2g_tuned": {"na": "no loop config"}}


GROUPS = {
    "reduce": run_reduce,
    "saxpy": run_saxpy,
    "stencil": run_stencil,
    "wave": run_wave,
    "layout": run_layout,
    "copy": run_copy,
    "launch": run_launch,
    "mpm": run_mpm,
}

# issue 18's everyday patterns live in their own module (they import this one)
from . import patterns_numba as _patterns  # noqa: E402

GROUPS.update(_patterns.GROUPS)
