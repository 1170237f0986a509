"""Issue 18's everyday patterns in the Taichi language, run with ti_notebook and taichi.

- ``rowupd_row``/``rowupd_col``: a parallel loop over rows whose serial inner loop
  updates its own row with ``+=`` (atomic by the language's rules; demote_atomics
  makes it plain when the iteration owns the row), row- and column-major;
- ``matvec``: ``y[i] += A[i, j] * x[j]`` in the serial inner loop (a global accumulator:
  promote_accumulators keeps ``y[i]`` in a register);
- ``nbody``: ``force[i] += f`` under ``if i != j``, a Vector.field(2);
- ``vec_to_numpy``/``vec_from_numpy``: a 4M ``Vector.field(3)`` copied to and from NumPy.
"""

# No `from __future__ import annotations`: kernels read their annotations as objects.
from types import ModuleType

import numpy as np

from . import patterns_data as data
from .measure import Timer, attempt, check
from .ti_init import init, sync


def _row_update(ti: ModuleType, timer: Timer, column_major: bool) -> dict:
    init(ti)
    n = data.N_ROWS
    a = ti.field(ti.f32)
    if column_major:
        ti.root.dense(ti.j, n).dense(ti.i, n).place(a)
    else:
        ti.root.dense(ti.i, n).dense(ti.j, n).place(a)

    @ti.kernel
    def rows():
        for i in range(n):
            for j in range(n):
                a[i, j] += 1.0

    rows()
    sync(ti)
    check("row update", a.to_numpy()[::64, ::64], np.ones((n // 64, n // 64)))
    return timer.figure(rows)


def _matvec(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    n = data.N_MATVEC
    a_np, x_np = data.matvec_data()
    a, x, y = ti.field(ti.f32, (n, n)), ti.field(ti.f32, n), ti.field(ti.f32, n)
    a.from_numpy(a_np)
    x.from_numpy(x_np)

    @ti.kernel
    def matvec():
        for i in range(n):
            for j in range(n):
                y[i] += a[i, j] * x[j]

    matvec()
    sync(ti)
    check("matvec", y.to_numpy(), a_np.astype(np.float64) @ x_np, rtol=1e-4)
    return timer.figure(matvec, setup=lambda: y.fill(0))


def _nbody(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    n, eps = data.N_BODY, data.SOFTENING
    p = data.bodies()
    pos, force = ti.Vector.field(2, ti.f32, n), ti.Vector.field(2, ti.f32, n)
    pos.from_numpy(p)

    @ti.kernel
    def forces():
        for i in range(n):
            force[i] = ti.Vector([0.0, 0.0])
            for j in range(n):
                if i != j:
                    d = pos[j] - pos[i]
                    r2 = d.dot(d) + eps
                    force[i] += d / (r2 * ti.sqrt(r2))

    forces()
    sync(ti)
    want = data.forces_reference(p)
    check("n-body", force.to_numpy(), want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
    return timer.figure(forces)


def run_loops(ti: ModuleType, timer: Timer) -> dict:
    return {
        "rowupd_row": attempt(_row_update, ti, timer, False),
        "rowupd_col": attempt(_row_update, ti, timer, True),
        "matvec": attempt(_matvec, ti, timer),
        "nbody": attempt(_nbody, ti, timer),
    }


def run_vector_copies(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    values = data.vectors()
    v = ti.Vector.field(3, ti.f32, data.N_VECTORS)
    v.from_numpy(values)
    check("Vector.field round trip", v.to_numpy()[::4096], values[::4096])
    return {
        "vec_to_numpy": attempt(timer.figure, v.to_numpy),
        "vec_from_numpy": attempt(timer.figure, lambda: v.from_numpy(values)),
    }


def run_calls(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    x, y = data.call_arrays()
    want = y + 0.5 * x

    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(ti.f32, ndim=1), y: ti.types.ndarray(ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    saxpy(0.5, x, y)
    sync(ti)
    check("ndarray saxpy", y, want, rtol=1e-6)
    return {"saxpy_nd_call": attempt(timer.per_call, saxpy, 0.5, x, y)}


def run_math(ti: ModuleType, timer: Timer) -> dict:
    init(ti)
    values = data.math_input()
    x, y = ti.field(ti.f32, values.size), ti.field(ti.f32, values.size)
    x.from_numpy(values)

    @ti.kernel
    def chain():
        for i in x:
            v = x[i]
            y[i] = (
                ti.sin(v) * ti.exp(-v)
                + ti.log(1 + v * v)
                + ti.atan2(v, 1.5)
                + ti.pow(abs(v), 1.3)
                + ti.cos(v)
            )

    chain()
    sync(ti)
    check("transcendental chain", y.to_numpy(), data.math_reference(values), rtol=1e-5, atol=1e-5)
    return {"transcendental": attempt(timer.figure, chain)}


GROUPS = {
    "loops": run_loops,
    "vcopy": run_vector_copies,
    "calls": run_calls,
    "math": run_math,
}
