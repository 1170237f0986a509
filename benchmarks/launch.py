"""Launch overhead and a first throughput figure (issue 2's targets; not a test).

Prints the median launch time of an empty kernel and of a 1,024-element parallel fill
(over thousands of calls), and the time of a parallel sum of 8M f32 into a 0-D field
next to NumPy's ``sum`` of the same data, in the same run. The two launch rows run again
with ``kernel_profiler=True``: what recording every launch's events costs per launch.

    python benchmarks/launch.py
"""

from __future__ import annotations

import os
import platform

import numpy as np

import ti_notebook as ti


def median_us(fn, calls: int, repeats: int = 7) -> tuple[float, float]:
    """(median, interquartile range) in µs per call, by the timing protocol: each
    sample a batch of about ``calls`` calls (at least 20 ms of them)."""
    probe = ti.profiler.time_call(fn, rounds=1)
    # untimed, before each sample: the profiler's events would otherwise pile up
    candidate = ti.profiler.Candidate("call", fn, prepare=ti.profiler.clear_kernel_profiler_info)
    timing = ti.profiler.measure(
        [candidate], rounds=repeats, min_sample_s=max(calls * probe.median_s, 2e-2)
    )[0]
    return timing.median_s * 1e6, timing.summary.iqr * 1e6


def launch_rows(profiled: bool) -> list[tuple[str, float, float]]:
    """The empty launch and the small fill, in a session with the profiler on or off."""
    ti.init(arch=ti.cpu, kernel_profiler=profiled)
    small = ti.field(ti.f32, shape=1024)

    @ti.kernel
    def empty():
        pass

    @ti.kernel
    def fill_small(v: ti.f32):
        for i in small:
            small[i] = v

    suffix = " (profiler on)" if profiled else ""
    return [
        ("empty kernel launch" + suffix, *median_us(empty, 20000)),
        ("1,024-element parallel fill" + suffix, *median_us(lambda: fill_small(1.5), 20000)),
    ]


def main() -> None:
    on = launch_rows(profiled=True)
    off = launch_rows(profiled=False)
    n = 8 * 1024 * 1024
    x = ti.field(ti.f32, shape=n)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def parallel_sum():
        for i in x:
            s[None] += x[i]

    data = np.random.default_rng(0).random(n, dtype=np.float32)
    x.from_numpy(data)

    def run_sum():
        s[None] = 0
        parallel_sum()

    rows = [
        *off,
        ("parallel sum, 8M f32 (ti_notebook)", *median_us(run_sum, 20)),
        ("numpy sum, 8M f32", *median_us(data.sum, 20)),
    ]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'benchmark':40s} {'median µs':>12s} {'IQR µs':>12s}")
    for name, med, low in rows + on:
        print(f"{name:40s} {med:12.2f} {low:12.2f}")
    print(f"sum: ti_notebook / numpy = {rows[2][1] / rows[3][1]:.2f}")
    for (name, med, _), (_, med_on, _) in zip(off, on, strict=True):
        print(f"profiler overhead per launch, {name}: {med_on - med:+.2f} µs")


if __name__ == "__main__":
    main()
