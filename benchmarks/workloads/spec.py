"""What every peer runs: sizes, the table's rows and the shared input data.

One place fixes the sizes, dtypes and seeds, so ti_notebook, Taichi, Numba and NumPy
see identical work. A :class:`Row` says how to print a figure and what it is held to.

    >>> ROWS_BY_KEY["saxpy"].nbytes // N_FLAT
    12
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

N_FLAT = 8 * 1024 * 1024  # 8M f32: 32 MiB per array, the L3 here is 32 MiB
N_STENCIL = 2048
N_LAYOUT = 4096
BLOCK = 8  # the blocked struct-for's block edge
N_SMALL = 1024
N_COPY = 64 * 1024 * 1024  # 256 MiB per array: far beyond any LLC
MPM_GRID = 64
MPM_PARTICLES = 1 << 18  # one particle per grid cell on average
MPM_BLOCK_DIM = 1024  # the tuned ti.loop_config: chunks of sorted particles per task
MPM_THREADS = os.cpu_count() or 1
WAVE_DT = 1e-3
WAVE_K = 0.5
SAXPY_A = 0.5
SEED = 0


@dataclass(frozen=True)
class Row:
    """One line of the table: ``key`` names the figure in every peer's results."""

    key: str
    group: str
    label: str
    unit: str = "ms"  # "ms" or "µs" per call
    nbytes: int | None = None  # bytes read + written per call (effective GB/s); None: n/a
    target: float | None = 1.0  # ti_notebook / taichi must be at most this


ROWS = [
    Row("sum", "reduce", "global sum, 8M f32 → 0-D field", nbytes=4 * N_FLAT, target=0.8),
    Row("max", "reduce", "global max (atomic_max), 8M f32", nbytes=4 * N_FLAT, target=0.8),
    Row("saxpy", "saxpy", "saxpy y = a·x + y, 8M f32", nbytes=12 * N_FLAT),
    Row("stencil", "stencil", "5-point stencil, dense 2048² f32", nbytes=8 * N_STENCIL**2),
    Row("wave_aos", "wave", "wave step, AoS place(pos, vel), 8M", nbytes=16 * N_FLAT),
    Row("wave_soa", "wave", "wave step, SoA (two places), 8M", nbytes=16 * N_FLAT),
    Row("rows_row", "layout", "row-major loop, row-major 4096²", nbytes=8 * N_LAYOUT**2),
    Row("rows_col", "layout", "row-major loop, column-major 4096²", nbytes=8 * N_LAYOUT**2),
    Row("sfor_flat", "layout", "struct-for, flat 4096²", nbytes=8 * N_LAYOUT**2),
    Row("sfor_blocked", "layout", "struct-for, 8×8-blocked 4096²", nbytes=8 * N_LAYOUT**2),
    Row("copy", "copy", "copy b = a, 64M f32 (STREAM copy)", nbytes=8 * N_COPY),
    Row("launch", "launch", "empty kernel launch", unit="µs", target=0.3),
    Row("fill", "launch", "1,024-element parallel fill", unit="µs", target=0.3),
    Row("p2g", "mpm", "MPM P2G 3-D, 256K particles, 64³ grid"),
    Row("p2g_tuned", "mpm", "MPM P2G, loop_config(block_dim, parallelize)"),
    Row("rowupd_row", "loops", "parallel rows, serial a[i, j] += 1, row-major 4096²"),
    Row("rowupd_col", "loops", "the same row update, column-major 4096²"),
    Row("matvec", "loops", "matvec y[i] += A[i, j]·x[j], 4096² f32", nbytes=4 * 4096**2),
    Row("nbody", "loops", "2-D n-body force[i] += f, 2048 bodies"),
    Row("vec_to_numpy", "vcopy", "Vector.field(3) → NumPy, 4M", nbytes=24 * 4 * 1024 * 1024),
    Row("vec_from_numpy", "vcopy", "NumPy → Vector.field(3), 4M", nbytes=24 * 4 * 1024 * 1024),
    Row("saxpy_nd_call", "calls", "saxpy call, two 1K NumPy arrays", unit="µs"),
    Row("transcendental", "math", "sin/cos/exp/log/atan2/pow chain, 8M f32", target=0.5),
    Row("cold_compile", "cold", "cold compile: define → first sum result"),
    Row("import_init", "cold", "import + init (fresh process)", target=None),
]
ROWS_BY_KEY = {row.key: row for row in ROWS}
GROUPS = list(dict.fromkeys(row.group for row in ROWS if row.group != "cold"))


def rows_of(group: str) -> list[str]:
    """The keys of ``group``'s rows, in table order."""
    return [row.key for row in ROWS if row.group == group]


def rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def flat_data(n: int = N_FLAT) -> np.ndarray:
    """``n`` f32 in [0, 1): the input of the 1-D workloads."""
    return rng().random(n, dtype=np.float32)


def grid_data(n: int = N_STENCIL) -> np.ndarray:
    """An ``n``×``n`` f32 array in [0, 1): the stencil's input."""
    return rng().random((n, n), dtype=np.float32)


def particles() -> tuple[np.ndarray, np.ndarray]:
    """(positions, velocities) of the MPM workload, (n, 3) f32 each.

    Positions lie in [0.1, 0.9)³, so every 3×3×3 stencil stays inside the grid. They are
    sorted by cell, as a simulation that bins its particles would keep them: a parallel
    chunk then scatters into one region of the grid, not all over it.
    """
    gen = rng()
    pos = gen.uniform(0.1, 0.9, (MPM_PARTICLES, 3)).astype(np.float32)
    vel = gen.uniform(-1.0, 1.0, (MPM_PARTICLES, 3)).astype(np.float32)
    cell = (pos * MPM_GRID).astype(np.int64)
    order = np.argsort((cell[:, 0] * MPM_GRID + cell[:, 1]) * MPM_GRID + cell[:, 2])
    return np.ascontiguousarray(pos[order]), np.ascontiguousarray(vel[order])
