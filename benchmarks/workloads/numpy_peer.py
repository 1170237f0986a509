"""The NumPy peer: each workload as idiomatic vectorised NumPy (single-threaded).

Its functions double as the reference results every other peer is checked against.

    >>> float(stencil(np.ones((4, 4), np.float32))[1, 1])
    0.0
"""

from __future__ import annotations

import itertools

import numpy as np

from . import spec
from .measure import Timer, check, na

F32 = np.float32


# -- kernels and references ---------------------------------------------------------------
def saxpy(a: float, x: np.ndarray, y: np.ndarray) -> None:
    y += F32(a) * x


def stencil(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """b's interior = the 5-point Laplacian of a (b's border is left alone)."""
    if b is None:
        b = np.zeros_like(a)
    b[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - F32(4) * a[1:-1, 1:-1]
    return b


def wave(pos: np.ndarray, vel: np.ndarray) -> None:
    pos += vel * F32(spec.WAVE_DT)
    vel += -F32(spec.WAVE_K) * pos * F32(spec.WAVE_DT)


def scale(val: np.ndarray, i: np.ndarray, j: np.ndarray) -> None:
    """val = val * 0.5 + i - j, with ``i``/``j`` broadcasting to val's shape."""
    val *= F32(0.5)
    val += i
    val -= j


def p2g(x: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(grid_v (G, G, G, 3), grid_m (G, G, G)) f32: quadratic B-spline scatter, unit mass.

    ``np.bincount`` sums in f64, then the grid is cast to f32.
    """
    g = spec.MPM_GRID
    xp = x * F32(g)
    base = (xp - F32(0.5)).astype(np.int32)  # truncation, as ti.cast(..., ti.i32)
    fx = xp - base
    w = [F32(0.5) * (F32(1.5) - fx) ** 2, F32(0.75) - (fx - F32(1)) ** 2]
    w.append(F32(0.5) * (fx - F32(0.5)) ** 2)
    index, weight = [], []
    for i, j, k in itertools.product(range(3), repeat=3):
        index.append(((base[:, 0] + i) * g + base[:, 1] + j) * g + base[:, 2] + k)
        weight.append(w[i][:, 0] * w[j][:, 1] * w[k][:, 2])
    index = np.concatenate(index)
    weight = np.concatenate(weight)
    size = g**3
    grid_m = np.bincount(index, weight, size).astype(np.float32)
    vel = np.tile(v, (27, 1))
    grid_v = np.stack([np.bincount(index, weight * vel[:, d], size) for d in range(3)], -1)
    return grid_v.astype(np.float32).reshape(g, g, g, 3), grid_m.reshape(g, g, g)


def blocked_indices() -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of a (M/8, N/8, 8, 8) blocked array, shaped to broadcast against it."""
    b, n = spec.BLOCK, spec.N_LAYOUT
    i = (np.arange(n // b)[:, None] * b + np.arange(b)[None, :]).astype(np.float32)
    return i.reshape(n // b, 1, b, 1), i.reshape(1, n // b, 1, b)


def check_p2g(grid_v: np.ndarray, grid_m: np.ndarray, want: tuple) -> None:
    want_v, want_m = want
    check("p2g grid_m", grid_m, want_m, rtol=1e-3, atol=1e-3 * float(want_m.max()))
    check("p2g grid_v", grid_v, want_v, rtol=1e-3, atol=1e-3 * float(np.abs(want_v).max()))


# -- workloads ----------------------------------------------------------------------------
def run_reduce(timer: Timer) -> dict:
    x = spec.flat_data()
    return {"sum": timer.figure(x.sum), "max": timer.figure(x.max)}


def run_saxpy(timer: Timer) -> dict:
    x, y = spec.flat_data(), spec.flat_data()
    return {"saxpy": timer.figure(lambda: saxpy(spec.SAXPY_A, x, y))}


def run_stencil(timer: Timer) -> dict:
    a = spec.grid_data()
    b = np.zeros_like(a)
    return {"stencil": timer.figure(lambda: stencil(a, b))}


def run_wave(timer: Timer) -> dict:
    pos, vel = spec.flat_data(), np.zeros(spec.N_FLAT, np.float32)
    pv = np.zeros((spec.N_FLAT, 2), np.float32)
    pv[:, 0] = spec.flat_data()
    return {
        "wave_aos": timer.figure(lambda: wave(pv[:, 0], pv[:, 1])),
        "wave_soa": timer.figure(lambda: wave(pos, vel)),
    }


def run_layout(timer: Timer) -> dict:
    n, b = spec.N_LAYOUT, spec.BLOCK
    x = np.zeros((n, n), np.float32)
    flat = np.zeros((n, n), np.float32)
    blocked = np.zeros((n // b, n // b, b, b), np.float32)
    ii = np.arange(n, dtype=np.float32)
    bi, bj = blocked_indices()
    return {
        "rows_row": timer.figure(lambda: np.add(x, F32(1), out=x)),
        "rows_col": na("ufuncs walk memory order: no row-major loop over a column-major array"),
        "sfor_flat": timer.figure(lambda: scale(flat, ii[:, None], ii[None, :])),
        "sfor_blocked": timer.figure(lambda: scale(blocked, bi, bj)),
    }


def run_copy(timer: Timer) -> dict:
    a = spec.flat_data(spec.N_COPY)
    b = np.empty_like(a)
    return {"copy": timer.figure(lambda: np.copyto(b, a))}


def run_launch(timer: Timer) -> dict:
    small = np.zeros(spec.N_SMALL, np.float32)
    return {
        "launch": na("no kernel to launch"),
        "fill": timer.per_call(small.__setitem__, slice(None), 1.5),
    }


def run_mpm(timer: Timer) -> dict:
    x, v = spec.particles()
    return {"p2g": timer.figure(lambda: p2g(x, v)), "p2g_tuned": na("no loop config")}


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
from . import patterns_numpy as _patterns  # noqa: E402

GROUPS.update(_patterns.GROUPS)
