"""The kernel profiler: ``ti.init(kernel_profiler=True)`` records every launch natively.

Each launch becomes a :class:`~ti_notebook.runtime.profiler_events.LaunchEvent`: its
specialisation, its tasks' start and end times, each thread's busy span, and the bytes
each task moved (``runtime/profiler_events.py``; the compiled code writes the times,
``codegen/profiling.py``). Taichi's interface reads them, one row per specialisation:
``print_kernel_profiler_info("count" | "trace")``, ``query_kernel_profiler_info(name)``,
``get_kernel_profiler_total_time()``, ``clear_kernel_profiler_info()``;
``ti.profiler.export_trace(path)`` writes them for Perfetto (``runtime/trace_export.py``).
With the profiler off, launches pay one flag test and compile no instrumentation.

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
import statistics
import sys

from ti_notebook.runtime.profiler_events import LaunchEvent, Span

enabled = False
_launches: list[LaunchEvent] = []
_spans: list[Span] = []
_ceiling_gbps: float | None = None  # this machine's copy bandwidth, once measured


@dataclasses.dataclass(frozen=True)
class KernelProfilerQueryResult:
    """What Taichi's ``query_kernel_profiler_info`` returns (times in ms)."""

    counter: int
    min: float
    max: float
    avg: float


@dataclasses.dataclass(frozen=True)
class ProfileRow:
    """The launches of one specialisation, summed up (times in ns, bandwidth in GB/s)."""

    kernel: str
    specialisation: str
    launches: int
    total_ns: int
    min_ns: int
    median_ns: float
    max_ns: int
    bytes_per_launch: float | None
    gbps: float | None  # all its bytes over all its time

    @property
    def fraction_of_ceiling(self) -> float | None:
        """``gbps`` over this machine's copy bandwidth, when that was measured."""
        if self.gbps is None or not _ceiling_gbps:
            return None
        return self.gbps / _ceiling_gbps


def set_enabled(on: bool) -> None:
    global enabled
    enabled = bool(on)


def is_enabled() -> bool:
    """Whether launches are being recorded (``ti.init(kernel_profiler=True)``)."""
    return enabled


def record_launch(event: LaunchEvent) -> None:
    _launches.append(event)


def record_raw(make_event) -> None:
    """Records a launch whose event ``make_event()`` builds when first read."""
    _launches.append(make_event)


def _events() -> list[LaunchEvent]:
    """The recorded launches, decoding those recorded raw (in place, once)."""
    for k, event in enumerate(_launches):
        if not isinstance(event, LaunchEvent):
            _launches[k] = event()
    return _launches


def record_span(span: Span) -> None:
    _spans.append(span)


def set_bandwidth_ceiling(gbps: float | None) -> None:
    """This machine's measured copy bandwidth (``ti.profiler.memory_bandwidth()``)."""
    global _ceiling_gbps
    _ceiling_gbps = gbps


def bandwidth_ceiling() -> float | None:
    return _ceiling_gbps


def launches() -> tuple[LaunchEvent, ...]:
    """Every launch recorded since the last clear, in order."""
    return tuple(_events())


def spans() -> tuple[Span, ...]:
    """Every compile or cache-load span recorded since the last clear, in order."""
    return tuple(_spans)


def _matching(name: str | None, since: int = 0) -> list[LaunchEvent]:
    """Launches of specialisation ``name``, or of every specialisation of kernel ``name``
    (from the ``since``-th recorded launch on)."""
    events = _events()[since:]
    if name is None:
        return events
    exact = [e for e in events if e.specialisation == name]
    return exact or [e for e in events if e.kernel == name]


def rows(name: str | None = None, *, since: int = 0) -> list[ProfileRow]:
    """One row per specialisation (of kernel or specialisation ``name``), slowest first,
    over the launches recorded from ``launches()[since]`` on (``%%kernel --profile``
    passes the count at the cell's start, to see only the cell's launches)."""
    groups: dict[tuple[str, str], list[LaunchEvent]] = {}
    for event in _matching(name, since):
        groups.setdefault((event.kernel, event.specialisation), []).append(event)
    out = []
    for (kernel, label), events in groups.items():
        times = [e.duration_ns for e in events]
        traffic = [e.bytes for e in events if e.bytes is not None]
        task_ns = sum(t.duration_ns for e in events for t in e.tasks if t.bytes is not None)
        gbps = sum(traffic) / task_ns if traffic and task_ns > 0 else None
        out.append(
            ProfileRow(
                kernel,
                label,
                len(events),
                sum(times),
                min(times),
                statistics.median(times),
                max(times),
                sum(traffic) / len(traffic) if traffic else None,
                gbps,
            )
        )
    return sorted(out, key=lambda r: -r.total_ns)


def query_kernel_profiler_info(name: str) -> KernelProfilerQueryResult:
    """Launch count and min / max / mean time (ms) of ``name``: a specialisation's label
    (``add_one[a=rows]``) or a kernel's name (all its specialisations together)."""
    times = [e.duration_ns for e in _matching(name)]
    if not times:
        return KernelProfilerQueryResult(0, 0.0, 0.0, 0.0)
    return KernelProfilerQueryResult(
        len(times), min(times) / 1e6, max(times) / 1e6, sum(times) / len(times) / 1e6
    )


def get_kernel_profiler_total_time() -> float:
    """Seconds spent in all recorded launches."""
    return sum(e.duration_ns for e in _events()) / 1e9


def clear_kernel_profiler_info() -> None:
    """Forgets every launch and span recorded so far."""
    _launches.clear()
    _spans.clear()


def print_kernel_profiler_info(mode: str = "count", file=None) -> None:
    """A row per specialisation (``"count"``) or every launch and its tasks (``"trace"``)."""
    out = file or sys.stdout
    if mode not in ("count", "trace"):
        raise ValueError(f"mode must be 'count' or 'trace', not {mode!r}")
    if not enabled and not _launches:
        print("kernel profiler is off: ti.init(kernel_profiler=True)", file=out)
        return
    if mode == "trace":
        _print_trace(out)
        return
    total = get_kernel_profiler_total_time() * 1e3
    print(
        f"{'%':>6s} {'total ms':>10s} {'count':>7s} {'min ms':>9s} {'med ms':>9s} "
        f"{'max ms':>9s} {'GB/s':>7s} {'ceil%':>6s}  kernel",
        file=out,
    )
    for row in rows():
        share = 100 * row.total_ns / 1e6 / total if total else 0.0
        gbps = f"{row.gbps:7.1f}" if row.gbps is not None else f"{'-':>7s}"
        fraction = row.fraction_of_ceiling
        ceiling = f"{100 * fraction:6.0f}" if fraction is not None else f"{'-':>6s}"
        print(
            f"{share:6.1f} {row.total_ns / 1e6:10.3f} {row.launches:7d} {row.min_ns / 1e6:9.3f} "
            f"{row.median_ns / 1e6:9.3f} {row.max_ns / 1e6:9.3f} {gbps} {ceiling}  "
            f"{row.specialisation}",
            file=out,
        )
    print(f"total {total:.3f} ms over {len(_launches)} launches", file=out)


def _print_trace(out) -> None:
    print(f"{'launch':>7s} {'task':>5s} {'kind':<11s} {'ms':>9s} {'GB/s':>7s}  kernel", file=out)
    for event in _events():
        print(
            f"{event.launch:7d} {'':>5s} {'':<11s} {event.duration_ns / 1e6:9.3f} {'':>7s}  "
            f"{event.specialisation}",
            file=out,
        )
        for task in event.tasks:
            gbps = f"{task.gbps:7.1f}" if task.gbps is not None else f"{'-':>7s}"
            print(
                f"{'':>7s} {task.index:5d} {task.kind:<11s} {task.duration_ns / 1e6:9.3f} {gbps}",
                file=out,
            )
