"""Launch overhead and a first throughput figure (issue 2's targets; not a test).

Prints the median launch time of an empty kernel and of a 1,024-element parallel fill
(over thousands of calls), and the time of a parallel sum of 8M f32 into a 0-D field
next to NumPy's ``sum`` of the same data, in the same run. The two launch rows run again
with ``kernel_profiler=True``: what recording every launch's events costs per launch.
Calls with one to three NumPy array arguments (a kernel that writes one element) are
timed beside the same functions under Numba's ``@njit``, the two interleaved sample by
sample in one run, so a loaded machine slows both alike; then again as thread CPU time
(medians over 40 alternating batches of 5,000 calls, an empty loop's time subtracted),
which the other processes on a shared machine disturb far less than the wall clock.

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


def call_cases() -> list[tuple[str, object]]:
    """(label, call) for calls with 1, 2 and 3 array arguments (two f32 arrays of 1,024
    and a scalar) and an all-scalar kernel; then the same functions under Numba (left out
    when it is not installed). Each is called once here: compiled before any timing."""
    ti.init(arch=ti.cpu)
    a = np.zeros(1024, np.float32)
    b = np.ones(1024, np.float32)

    @ti.kernel
    def one(a: ti.types.ndarray(ti.f32, ndim=1)):
        a[0] = 1.0

    @ti.kernel
    def two(a: ti.types.ndarray(ti.f32, ndim=1), b: ti.types.ndarray(ti.f32, ndim=1)):
        a[0] = b[0]

    @ti.kernel
    def three(a: ti.types.ndarray(ti.f32, ndim=1), b: ti.types.ndarray(ti.f32, ndim=1), s: float):
        a[0] = b[0] * s

    @ti.kernel
    def scalars(n: ti.i32, s: ti.f32):
        pass

    calls = [
        ("call, 1 ndarray", lambda: one(a)),
        ("call, 2 ndarrays", lambda: two(a, b)),
        ("call, 2 ndarrays + 1 scalar", lambda: three(a, b, 2.0)),
        ("call, all-scalar kernel (2 scalars)", lambda: scalars(1, 2.0)),
    ]
    try:
        import numba
    except ImportError:
        numba = None
    if numba is not None:

        @numba.njit
        def nb_one(a):
            a[0] = 1.0

        @numba.njit
        def nb_two(a, b):
            a[0] = b[0]

        @numba.njit
        def nb_three(a, b, s):
            a[0] = b[0] * s

        calls += [
            ("call, 1 ndarray (Numba)", lambda: nb_one(a)),
            ("call, 2 ndarrays (Numba)", lambda: nb_two(a, b)),
            ("call, 2 ndarrays + 1 scalar (Numba)", lambda: nb_three(a, b, 2.0)),
        ]
    for _label, call in calls:  # compiled before timing
        call()
    return calls


def ndarray_call_rows(calls: list[tuple[str, object]]) -> list[tuple[str, float, float]]:
    """(label, wall median µs, IQR µs) of each call, all interleaved sample by sample."""
    probe = max(ti.profiler.time_call(call, rounds=1).median_s for _label, call in calls)
    timings = ti.profiler.measure(
        [ti.profiler.Candidate(label, call) for label, call in calls],
        rounds=7,
        min_sample_s=max(20000 * probe, 2e-2),
    )
    return [(t.label, t.median_s * 1e6, t.summary.iqr * 1e6) for t in timings]


def cpu_time_rows(
    calls: list[tuple[str, object]], batches: int = 40, size: int = 5000
) -> list[tuple[str, float, float]]:
    """(label, median µs, IQR µs) of each call in thread CPU time: ``batches`` rounds,
    each one batch of ``size`` calls of every case in turn, less the time of a batch of
    a lambda that does nothing (each case is a lambda around its call)."""
    import statistics
    import time

    def batch(call) -> float:
        started = time.thread_time_ns()
        for _ in range(size):
            call()
        return (time.thread_time_ns() - started) / size / 1e3

    samples: dict[str, list[float]] = {label: [] for label, _call in calls}
    empty = []
    for _ in range(batches):
        empty.append(batch(lambda: None))
        for label, call in calls:
            samples[label].append(batch(call))
    base = statistics.median(empty)
    rows = []
    for label, values in samples.items():
        quartiles = statistics.quantiles(values, n=4)
        median = statistics.median(values) - base
        rows.append((label + " (CPU time)", median, quartiles[2] - quartiles[0]))
    return rows


def main() -> None:
    cases = call_cases()
    calls = ndarray_call_rows(cases) + cpu_time_rows(cases)
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
    print(f"{'benchmark':48s} {'median µs':>12s} {'IQR µs':>12s}")
    for name, med, low in rows + on + calls:
        print(f"{name:48s} {med:12.2f} {low:12.2f}")
    print(f"sum: ti_notebook / numpy = {rows[2][1] / rows[3][1]:.2f}")
    for (name, med, _), (_, med_on, _) in zip(off, on, strict=True):
        print(f"profiler overhead per launch, {name}: {med_on - med:+.2f} µs")


if __name__ == "__main__":
    main()
