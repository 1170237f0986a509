"""Issue 18's everyday patterns as ``@njit(parallel=True)`` code: the same loops, with
``prange`` over the rows (column-major: a Fortran-order array)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import patterns_data as data
from .measure import Timer, attempt, check

ONE, EPS = np.float32(1.0), np.float32(data.SOFTENING)


@njit(parallel=True)
def row_update(a):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] += ONE


@njit(parallel=True)
def matvec(a, x, y):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            y[i] += a[i, j] * x[j]


@njit(parallel=True)
def forces(pos, force):
    n = pos.shape[0]
    for i in prange(n):
        force[i, 0] = 0.0
        force[i, 1] = 0.0
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                r2 = dx * dx + dy * dy + EPS
                inv = ONE / (r2 * np.sqrt(r2))
                force[i, 0] += dx * inv
                force[i, 1] += dy * inv


@njit
def saxpy_call(a, x, y):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


def run_calls(timer: Timer) -> dict:
    x, y = data.call_arrays()
    want = y + np.float32(0.5) * x
    saxpy_call(np.float32(0.5), x, y)
    check("ndarray saxpy", y, want, rtol=1e-6)
    return {"saxpy_nd_call": attempt(timer.per_call, saxpy_call, np.float32(0.5), x, y)}


@njit(parallel=True)
def chain(x, y):
    for i in prange(x.shape[0]):
        v = x[i]
        y[i] = (
            np.sin(v) * np.exp(-v)
            + np.log(ONE + v * v)
            + np.arctan2(v, np.float32(1.5))
            + np.abs(v) ** np.float32(1.3)
            + np.cos(v)
        )


def run_math(timer: Timer) -> dict:
    x = data.math_input()
    y = np.zeros_like(x)
    chain(x, y)
    check("transcendental chain", y, data.math_reference(x), rtol=1e-5, atol=1e-5)
    return {"transcendental": attempt(timer.figure, lambda: chain(x, y))}


def run_loops(timer: Timer) -> dict:
    def rows(order: str) -> dict:
        n = data.N_ROWS
        a = np.zeros((n, n), np.float32, order=order)
        row_update(a)
        check("row update", a[::64, ::64], np.ones((n // 64, n // 64)))
        return timer.figure(lambda: row_update(a))

    def mv() -> dict:
        a, x = data.matvec_data()
        y = np.zeros(data.N_MATVEC, np.float32)
        matvec(a, x, y)
        check("matvec", y, a.astype(np.float64) @ x, rtol=1e-4)
        return timer.figure(lambda: matvec(a, x, y), setup=lambda: y.fill(0))

    def nbody() -> dict:
        p = data.bodies()
        f = np.zeros_like(p)
        forces(p, f)
        want = data.forces_reference(p)
        check("n-body", f, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
        return timer.figure(lambda: forces(p, f))

    return {
        "rowupd_row": attempt(rows, "C"),
        "rowupd_col": attempt(rows, "F"),
        "matvec": attempt(mv),
        "nbody": attempt(nbody),
    }


GROUPS = {"loops": run_loops, "calls": run_calls, "math": run_math}
