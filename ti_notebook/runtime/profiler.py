"""The kernel profiler: ``ti.init(kernel_profiler=True)`` records every launch natively.

Each launch becomes a :class:`~ti_notebook.runtime.profiler_events.LaunchEvent`: its
specialisation, its tasks' start and end times, each thread's busy span, and the bytes
each task moved (``runtime/profiler_events.py``; the compiled code writes the times,
``codegen/cpu/profiling.py``). This module records them and answers Taichi's
``query_kernel_profiler_info(name)``, ``get_kernel_profiler_total_time()`` and
``clear_kernel_profiler_info()``; the rows by the timing protocol, judged against the
machine's ceilings, and ``print_kernel_profiler_info`` are ``measure/profile_rows.py``'s;
``ti.profiler.export_trace(path)`` writes the events for Perfetto
(``runtime/trace_export.py``).
With the profiler off, launches pay one flag test and compile no instrumentation.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> x = ti.field(ti.f32, shape=8)
    >>> @ti.kernel
    ... def fill(v: ti.f32):
    ...     for i in x:
    ...         x[i] = v
    >>> for k in range(3):
    ...     fill(k)
    >>> info = query_kernel_profiler_info("fill")
    >>> info.counter, info.min <= info.avg <= info.max, len(launches())
    (3, True, 3)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.runtime.profiler_events import LaunchEvent, Span

enabled = False
_launches: list[LaunchEvent] = []
_spans: list[Span] = []


@dataclasses.dataclass(frozen=True)
class KernelProfilerQueryResult:
    """What Taichi's ``query_kernel_profiler_info`` returns (times in ms)."""

    counter: int
    min: float
    max: float
    avg: float


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


def launches() -> tuple[LaunchEvent, ...]:
    """Every launch recorded since the last clear, in order."""
    return tuple(_events())


def spans() -> tuple[Span, ...]:
    """Every compile or cache-load span recorded since the last clear, in order."""
    return tuple(_spans)


def matching(name: str | None, since: int = 0) -> list[LaunchEvent]:
    """Launches of specialisation ``name``, or of every specialisation of kernel ``name``
    (from the ``since``-th recorded launch on)."""
    events = _events()[since:]
    if name is None:
        return events
    exact = [e for e in events if e.specialisation == name]
    return exact or [e for e in events if e.kernel == name]


def query_kernel_profiler_info(name: str) -> KernelProfilerQueryResult:
    """Launch count and min / max / mean time (ms) of ``name``: a specialisation's label
    (``add_one[a=rows]``) or a kernel's name (all its specialisations together)."""
    times = [e.duration_ns for e in matching(name)]
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
