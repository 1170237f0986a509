"""Data layouts (issue 3; not a test): the same loops over different memory plans.

The loops are the shared ones of ``ti_notebook.kernels.layout_walks`` (tutorial 02 and
the tests use them too). Times, in one run on this machine:
  1. a row-major loop (``for i, j in ti.ndrange(M, N)``, j fastest) over a row-major and
     over a column-major 4096² f32 field: the column-major one strides by 16 KiB;
  2. a struct-for over a flat and over an 8x8-blocked 4096² field;
  3. the wave step of the "Fields (advanced)" page with AoS and with SoA placement.

    python benchmarks/layouts.py
"""

from __future__ import annotations

import os
import platform

import ti_notebook as ti
from ti_notebook.kernels import layout_walks

M = N = 4096
WAVE_N = 8 * 1024 * 1024


def timed(fn, repeats: int = 9) -> tuple[float, float]:
    """(median, interquartile range) in ms, by the timing protocol (first call apart)."""
    timing = ti.profiler.time_call(fn, rounds=repeats)
    return timing.median_s * 1e3, timing.summary.iqr * 1e3


def row_major_loop(layout: str) -> tuple[float, float]:
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32)
    if layout == "row":
        ti.root.dense(ti.i, M).dense(ti.j, N).place(x)
    else:
        ti.root.dense(ti.j, N).dense(ti.i, M).place(x)

    return timed(lambda: layout_walks.row_major_walk(x, 1.0))


def struct_for(blocked: bool) -> tuple[float, float]:
    ti.init(arch=ti.cpu)
    val = ti.field(ti.f32)
    if blocked:
        ti.root.dense(ti.ij, (M // 8, N // 8)).dense(ti.ij, (8, 8)).place(val)
    else:
        ti.root.dense(ti.ij, (M, N)).place(val)

    @ti.kernel
    def scale():
        for i, j in val:
            val[i, j] = val[i, j] * 0.5 + i - j

    return timed(scale)


def wave(aos: bool) -> tuple[float, float]:
    ti.init(arch=ti.cpu)
    pos = ti.field(ti.f32)
    vel = ti.field(ti.f32)
    if aos:
        ti.root.dense(ti.i, WAVE_N).place(pos, vel)
    else:
        ti.root.dense(ti.i, WAVE_N).place(pos)
        ti.root.dense(ti.i, WAVE_N).place(vel)
    return timed(lambda: layout_walks.wave_step(pos, vel, 1e-3, 0.5))


def main() -> None:
    rows = [
        ("row-major loop, row-major 4096² field", row_major_loop("row")),
        ("row-major loop, column-major 4096² field", row_major_loop("column")),
        ("struct-for, flat 4096² field", struct_for(False)),
        ("struct-for, 8x8-blocked 4096² field", struct_for(True)),
        ("wave step, AoS (place(pos, vel)), 8M", wave(True)),
        ("wave step, SoA (two places), 8M", wave(False)),
    ]
    print(f"# {platform.machine()}, {os.cpu_count()} cores")
    print(f"{'benchmark':45s} {'median ms':>10s} {'IQR ms':>10s}")
    for name, (med, low) in rows:
        print(f"{name:45s} {med:10.2f} {low:10.2f}")
    print(f"column-major / row-major = {rows[1][1][0] / rows[0][1][0]:.1f}x")
    print(f"blocked / flat struct-for = {rows[3][1][0] / rows[2][1][0]:.2f}x")
    print(f"SoA / AoS wave step = {rows[5][1][0] / rows[4][1][0]:.2f}x")


if __name__ == "__main__":
    main()
