"""The kernel profiler's rows: its launches by the timing protocol, judged against the
machine's ceilings.

``runtime/profiler.py`` records each launch; here they become one :class:`ProfileRow`
per specialisation (the first call apart, the median and IQR of the warm launches, GB/s
of the counted bytes, and the fraction of the ceiling of the memory level the working
set fits in), and Taichi's ``print_kernel_profiler_info`` prints them.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> @ti.kernel
    ... def nothing():
    ...     pass
    >>> nothing(); nothing()
    >>> [(row.specialisation, row.launches, row.samples) for row in rows("nothing")]
    [('nothing', 2, 1)]
"""

from __future__ import annotations

import dataclasses
import statistics
import sys

from ti_notebook.measure import ceilings, levels
from ti_notebook.measure.stats import Summary
from ti_notebook.runtime import profiler
from ti_notebook.runtime.profiler_events import LaunchEvent

__all__ = ["ProfileRow", "print_kernel_profiler_info", "rows"]


@dataclasses.dataclass(frozen=True)
class ProfileRow:
    """The launches of one specialisation, by the timing protocol (``ti_notebook/measure``):
    times in ns, bandwidth in GB/s.

    The specialisation's first launch (it faults pages in, wakes the thread pool) is
    ``first_call_ns``, apart: ``total_ns``, ``min_ns``, ``median_ns``, ``max_ns`` and
    ``summary`` (median, IQR, Tukey outliers) are over the later, warm launches
    (``samples`` of them). With no warm launch yet they fall back to the first call's
    time and ``samples`` is 0. ``gbps`` is the counted bytes per launch over the median
    time of the tasks that move them. ``fraction_of_ceiling`` compares it with the ceiling
    of the memory level the working set fits in (``ceiling_level``, ``ceiling_gbps``;
    ``ti_notebook/measure/levels.py``), and ``flag`` says why a figure is not to be taken
    at face value: nothing above 100 % comes without one.
    """

    kernel: str
    specialisation: str
    launches: int  # all of them, the first call included
    total_ns: int
    min_ns: int
    median_ns: float
    max_ns: int
    bytes_per_launch: float | None
    gbps: float | None
    first_call_ns: int | None = None
    summary: Summary | None = None
    threads: int = 1  # the most threads a launch's tasks ran on
    fraction_of_ceiling: float | None = None
    ceiling_level: str | None = None
    ceiling_gbps: float | None = None
    flag: str | None = None
    flops_per_launch: float | None = None  # the compiler's count (None: unknown)
    task_median_ns: float | None = None  # median time of the tasks that move the bytes

    @property
    def samples(self) -> int:
        """Warm launches the statistics are over."""
        return self.summary.n if self.summary is not None else 0

    @property
    def outliers(self) -> int:
        return len(self.summary.outliers) if self.summary is not None else 0

    def verdict(self) -> str | None:
        """``in L2: 61 % of L2 bandwidth``, with the flag; None without bytes or ceilings."""
        if self.fraction_of_ceiling is None:
            return None
        text = (
            f"in {self.ceiling_level}: {100 * self.fraction_of_ceiling:.0f} % of "
            f"{self.ceiling_level} bandwidth"
        )
        return f"{text} ({self.flag})" if self.flag else text


def rows(name: str | None = None, *, since: int = 0) -> list[ProfileRow]:
    """One row per specialisation (of kernel or specialisation ``name``), slowest first,
    over the launches recorded from ``launches()[since]`` on (``%%kernel --profile``
    passes the count at the cell's start, to see only the cell's launches)."""
    groups: dict[tuple[str, str], list[LaunchEvent]] = {}
    for event in profiler.matching(name, since):
        groups.setdefault((event.kernel, event.specialisation), []).append(event)
    machine = ceilings.current()
    out = [_row(kernel, label, events, machine) for (kernel, label), events in groups.items()]
    return sorted(out, key=lambda r: -(r.total_ns or r.first_call_ns or 0))


def _row(kernel: str, label: str, events: list[LaunchEvent], machine) -> ProfileRow:
    firsts = [e for e in events if e.launch == 0]
    warm = [e for e in events if e.launch != 0] or firsts
    times = [e.duration_ns for e in warm]
    summary = Summary.of(times) if warm is not firsts else None
    traffic = [e.bytes for e in warm if e.bytes is not None]
    per_launch = sum(traffic) / len(traffic) if traffic else None
    task_ns = [sum(t.duration_ns for t in e.tasks if t.bytes is not None) for e in warm]
    task_ns = [ns for ns in task_ns if ns > 0]
    median_task = statistics.median(task_ns) if task_ns else None
    gbps = per_launch / median_task if per_launch and median_task else None
    threads = max((_threads(e) for e in warm), default=1)
    flops = [sum(t.flops for t in e.tasks if t.flops is not None) for e in warm]
    known_flops = any(t.flops is not None for e in warm for t in e.tasks)
    verdict = None
    if gbps is not None and machine is not None:
        overlapping = any(_overlapping(e) for e in warm)
        verdict = levels.judge(gbps, per_launch, machine, threads, median_task / 1e9, overlapping)
    return ProfileRow(
        kernel,
        label,
        len(events),
        sum(times),
        min(times),
        statistics.median(times),
        max(times),
        per_launch,
        gbps,
        firsts[0].duration_ns if firsts else None,
        summary,
        threads,
        verdict.fraction if verdict else None,
        verdict.level if verdict else None,
        verdict.ceiling_gbps if verdict else None,
        verdict.flag if verdict else None,
        statistics.median(flops) if known_flops else None,
        median_task,
    )


def _threads(event: LaunchEvent) -> int:
    busy = [sum(1 for s in t.threads if s.iterations) for t in event.tasks if t.bytes is not None]
    return max(busy, default=1) or 1


def _overlapping(event: LaunchEvent) -> bool:
    ends = [t.end_ns for t in event.tasks]
    return any(t.start_ns < end for t, end in zip(event.tasks[1:], ends, strict=False))


def print_kernel_profiler_info(mode: str = "count", file=None) -> None:
    """A row per specialisation (``"count"``) or every launch and its tasks (``"trace"``)."""
    out = file or sys.stdout
    if mode not in ("count", "trace"):
        raise ValueError(f"mode must be 'count' or 'trace', not {mode!r}")
    if not profiler.is_enabled() and not profiler.launches():
        print("kernel profiler is off: ti.init(kernel_profiler=True)", file=out)
        return
    if mode == "trace":
        _print_trace(out)
        return
    table = rows()
    total = sum(row.total_ns for row in table) / 1e6
    print(
        f"{'%':>6s} {'total ms':>10s} {'count':>6s} {'first ms':>9s} {'med ms':>9s} "
        f"{'IQR ms':>15s} {'min ms':>9s} {'max ms':>9s} {'GB/s':>7s}  kernel",
        file=out,
    )
    for row in table:
        share = 100 * row.total_ns / 1e6 / total if total else 0.0
        gbps = f"{row.gbps:7.1f}" if row.gbps is not None else f"{'-':>7s}"
        first = f"{row.first_call_ns / 1e6:9.3f}" if row.first_call_ns is not None else f"{'-':>9s}"
        spread = (
            f"{row.summary.q1 / 1e6:7.3f}-{row.summary.q3 / 1e6:<7.3f}"
            if row.summary
            else f"{'-':>15s}"
        )
        verdict = row.verdict()
        notes = [f"{row.samples} samples"] if row.summary else ["first call only"]
        if row.outliers:
            notes.append(f"{row.outliers} outlier{'s' * (row.outliers != 1)}")
        if verdict:
            notes.append(verdict)
        print(
            f"{share:6.1f} {row.total_ns / 1e6:10.3f} {row.launches:6d} {first} "
            f"{row.median_ns / 1e6:9.3f} {spread} {row.min_ns / 1e6:9.3f} "
            f"{row.max_ns / 1e6:9.3f} {gbps}  {row.specialisation}  [{'; '.join(notes)}]",
            file=out,
        )
    launches = sum(row.launches for row in table)
    firsts = sum(1 for row in table if row.first_call_ns is not None)
    print(
        f"total {total:.3f} ms over {launches} launches; each specialisation's first call "
        f"({firsts}) is shown apart and not counted",
        file=out,
    )
    machine = ceilings.current()
    if machine is not None:
        print(f"ceilings: {machine.cpu_model}, measured {machine.measured_at}", file=out)


def _print_trace(out) -> None:
    print(f"{'launch':>7s} {'task':>5s} {'ms':>9s} {'GB/s':>7s}  kernel / task", file=out)
    for event in profiler.launches():
        print(
            f"{event.launch:7d} {'':>5s} {event.duration_ns / 1e6:9.3f} {'':>7s}  "
            f"{event.specialisation}",
            file=out,
        )
        for task in event.tasks:
            gbps = f"{task.gbps:7.1f}" if task.gbps is not None else f"{'-':>7s}"
            what = task.description or task.kind.replace("_", "-")
            print(
                f"{'':>7s} {task.index:5d} {task.duration_ns / 1e6:9.3f} {gbps}    {what}",
                file=out,
            )
