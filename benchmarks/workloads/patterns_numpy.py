"""Issue 18's patterns in NumPy: whole-array forms (``a += 1``, ``A @ x``, the pairwise
forces through broadcasting) and the plain copies a vector field's transfer is held to."""

from __future__ import annotations

import numpy as np

from . import patterns_data as data
from .measure import Timer, attempt


def run_loops(timer: Timer) -> dict:
    def rows(order: str) -> dict:
        a = np.zeros((data.N_ROWS, data.N_ROWS), np.float32, order=order)
        return timer.figure(lambda: np.add(a, 1.0, out=a))

    def mv() -> dict:
        a, x = data.matvec_data()
        y = np.zeros(data.N_MATVEC, np.float32)
        return timer.figure(lambda: np.add(y, a @ x, out=y))

    def nbody() -> dict:
        p = data.bodies()
        return timer.figure(lambda: data.forces_reference(p))

    return {
        "rowupd_row": attempt(rows, "C"),
        "rowupd_col": attempt(rows, "F"),
        "matvec": attempt(mv),
        "nbody": attempt(nbody),
    }


def run_vector_copies(timer: Timer) -> dict:
    values = data.vectors()
    out = np.empty_like(values)
    return {
        "vec_to_numpy": attempt(timer.figure, values.copy),
        "vec_from_numpy": attempt(timer.figure, lambda: np.copyto(out, values)),
    }


def run_calls(timer: Timer) -> dict:
    x, y = data.call_arrays()

    def saxpy(a, x, y):
        y += a * x

    return {"saxpy_nd_call": attempt(timer.per_call, saxpy, np.float32(0.5), x, y)}


def run_math(timer: Timer) -> dict:
    x = data.math_input()

    def chain():
        waves = np.sin(x) * np.exp(-x) + np.cos(x)
        return waves + np.log(1 + x * x) + np.arctan2(x, 1.5) + np.abs(x) ** 1.3

    return {"transcendental": attempt(timer.figure, chain)}


GROUPS = {"loops": run_loops, "vcopy": run_vector_copies, "calls": run_calls, "math": run_math}
