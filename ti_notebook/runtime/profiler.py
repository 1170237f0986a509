"""The kernel profiler: ``ti.init(kernel_profiler=True)`` records every launch's time.

Taichi's interface (``ti.profiler``): ``print_kernel_profiler_info()``,
``query_kernel_profiler_info(name)``, ``get_kernel_profiler_total_time()`` and
``clear_kernel_profiler_info()``. A record is the wall time of the native call (the
kernel's tasks, thread-pool dispatch included; argument packing excluded), taken with
``time.perf_counter_ns`` around it. With the profiler off, launches pay one flag test.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> @ti.kernel
    ... def nothing():
    ...     pass
    >>> nothing(); nothing()
    >>> ti.profiler.query_kernel_profiler_info("nothing").counter
    2
"""

from __future__ import annotations

import dataclasses
import sys

enabled = False
_records: dict[str, list[int]] = {}  # kernel name -> launch times in ns


@dataclasses.dataclass(frozen=True)
class KernelProfilerQueryResult:
    """What Taichi's ``query_kernel_profiler_info`` returns (times in ms)."""

    counter: int
    min: float
    max: float
    avg: float


def record(name: str, nanoseconds: int) -> None:
    _records.setdefault(name, []).append(nanoseconds)


def set_enabled(on: bool) -> None:
    global enabled
    enabled = bool(on)


def query_kernel_profiler_info(name: str) -> KernelProfilerQueryResult:
    """Launch count and min / max / mean time (ms) of kernel ``name``."""
    times = _records.get(name, [])
    if not times:
        return KernelProfilerQueryResult(0, 0.0, 0.0, 0.0)
    return KernelProfilerQueryResult(
        len(times), min(times) / 1e6, max(times) / 1e6, sum(times) / len(times) / 1e6
    )


def get_kernel_profiler_total_time() -> float:
    """Seconds spent in all recorded launches."""
    return sum(sum(times) for times in _records.values()) / 1e9


def clear_kernel_profiler_info() -> None:
    _records.clear()


def print_kernel_profiler_info(mode: str = "count", file=None) -> None:
    """A table per kernel (``mode="count"``) or every launch (``mode="trace"``)."""
    out = file or sys.stdout
    if not enabled and not _records:
        print("kernel profiler is off: ti.init(kernel_profiler=True)", file=out)
        return
    total = get_kernel_profiler_total_time() * 1e3
    rows = sorted(_records.items(), key=lambda item: -sum(item[1]))
    if mode == "trace":
        print(f"{'kernel':30s} {'launch':>7s} {'ms':>10s}", file=out)
        for name, times in rows:
            for k, t in enumerate(times):
                print(f"{name:30s} {k:7d} {t / 1e6:10.3f}", file=out)
        return
    print(
        f"{'%':>6s} {'total ms':>10s} {'count':>7s} {'min ms':>9s} {'avg ms':>9s} "
        f"{'max ms':>9s}  kernel",
        file=out,
    )
    for name, times in rows:
        info = query_kernel_profiler_info(name)
        share = 100 * sum(times) / 1e6 / total if total else 0.0
        print(
            f"{share:6.1f} {sum(times) / 1e6:10.3f} {info.counter:7d} {info.min:9.3f} "
            f"{info.avg:9.3f} {info.max:9.3f}  {name}",
            file=out,
        )
    print(f"total {total:.3f} ms over {sum(len(t) for t in _records.values())} launches", file=out)
