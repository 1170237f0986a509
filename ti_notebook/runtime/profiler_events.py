"""What the kernel profiler records: launches, their tasks, each thread's share, and
compile spans, as frozen data on one clock (``CLOCK_MONOTONIC`` nanoseconds).

A :class:`LaunchEvent` is one launch of one specialisation (``add_one[a=rows]``); its
:class:`TaskEvent` s are the kernel's offloaded tasks in order, each with the
:class:`ThreadSpan` of every thread that ran part of it. Nothing here assumes the CPU:
``device`` names where it ran, and a GPU backend fills ``threads`` with what it can
measure (or nothing) and its task times from device events mapped onto the host clock.

The CPU's compiled code writes the times itself (``codegen/cpu/profiling.py``) into an event
buffer laid out as the launch ABI states (``ir/launch_abi.py``); :func:`decode` turns
it into a :class:`LaunchEvent`.

    >>> from ti_notebook.ir.launch_abi import ProfileLayout
    >>> layout = ProfileLayout(tasks=1, threads=2)
    >>> words = [100, 900, 200, 800, 0, 0, 210, 790, 560, 4096, 0, 0, 0, 0]
    >>> about = KernelProfile("fill", "fill", "cpu", (TaskInfo("range_for", {}, 4),))
    >>> event = decode(words, layout, about, launch=0)
    >>> event.duration_ns, event.tasks[0].iterations, event.tasks[0].bytes
    (800, 4096, 16384)
    >>> [(t.thread, t.busy_ns) for t in event.tasks[0].threads]
    [(0, 560)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from ti_notebook.ir.launch_abi import ProfileLayout


@dataclasses.dataclass(frozen=True)
class ThreadSpan:
    """One thread's part of a task: from its first chunk's start to its last chunk's end,
    ``busy_ns`` of which it spent running chunks, over ``iterations`` loop indices."""

    thread: int  # 0: the launching thread; k: the pool's worker k
    start_ns: int
    end_ns: int
    busy_ns: int
    iterations: int


@dataclasses.dataclass(frozen=True)
class TaskEvent:
    """One task of one launch. ``bytes``: global memory traffic (``bytes_per_iteration``
    from the compiler times the iterations run), None where unknown (serial tasks)."""

    index: int
    kind: str  # serial, range_for, struct_for
    loop_config: Mapping
    start_ns: int
    end_ns: int
    iterations: int | None
    bytes: int | None
    threads: tuple[ThreadSpan, ...] = ()
    flops: int | None = None  # ``flops_per_iteration`` times the iterations; None: unknown
    description: str = ""  # what the task does, in the report's words

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def gbps(self) -> float | None:
        """Achieved bandwidth, GB/s (1e9 bytes per second)."""
        if not self.bytes or self.duration_ns <= 0:
            return None
        return self.bytes / self.duration_ns


@dataclasses.dataclass(frozen=True)
class LaunchEvent:
    """One launch: the kernel, its specialisation's label, the launch's number in it."""

    kernel: str
    specialisation: str  # "add_one[a=rows]"; the kernel's name when it has one only
    launch: int
    device: str  # "cpu"; a GPU backend: "cuda:0"
    start_ns: int
    end_ns: int
    tasks: tuple[TaskEvent, ...] = ()

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def bytes(self) -> int | None:
        known = [t.bytes for t in self.tasks if t.bytes is not None]
        return sum(known) if known else None


@dataclasses.dataclass(frozen=True)
class Span:
    """Python-side time a kernel's first call spent: ``compile`` or ``cache load``."""

    name: str
    kernel: str
    specialisation: str
    start_ns: int
    end_ns: int

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclasses.dataclass(frozen=True)
class TaskInfo:
    """What the compiler knows of a task before it runs (from the kernel's report)."""

    kind: str
    loop_config: Mapping
    bytes_per_iteration: int | None = None
    flops_per_iteration: int | None = None
    description: str = ""  # "parallel loop over the cells of x (dense 64)"


@dataclasses.dataclass(frozen=True)
class KernelProfile:
    """What a compiled specialisation's events are labelled with."""

    kernel: str
    specialisation: str
    device: str
    tasks: tuple[TaskInfo, ...]


def decode(
    words: Sequence[int], layout: ProfileLayout, about: KernelProfile, launch: int
) -> LaunchEvent:
    """The :class:`LaunchEvent` in one launch's event buffer (laid out by ``ProfileLayout``)."""
    start, end = int(words[0]), int(words[1])
    tasks = []
    for k in range(layout.tasks):
        base = layout.task(k)
        info = about.tasks[k] if k < len(about.tasks) else TaskInfo("serial", {})
        task_start, task_end, counted, counts = (int(w) for w in words[base : base + 4])
        if task_start == 0:  # the launch stopped (an error) before this task
            break
        task_end = task_end or max(task_start, end)
        threads = []
        for t in range(layout.threads):
            at = layout.thread(k, t)
            first, last, busy, iterations = (int(w) for w in words[at : at + 4])
            if first:
                threads.append(ThreadSpan(t, first, last, busy, iterations))
        if info.kind == "serial":
            iterations = None
            threads = [ThreadSpan(0, task_start, task_end, task_end - task_start, 0)]
        else:
            # a sparse struct-for counts the active cells it visits; others run every index
            iterations = counted if counts else sum(t.iterations for t in threads)
        per = info.bytes_per_iteration
        traffic = per * iterations if per is not None and iterations is not None else None
        flop = info.flops_per_iteration
        flops = flop * iterations if flop is not None and iterations is not None else None
        tasks.append(
            TaskEvent(
                k,
                info.kind,
                info.loop_config,
                task_start,
                task_end,
                iterations,
                traffic,
                tuple(threads),
                flops,
                info.description,
            )
        )
    end = end or max([start] + [t.end_ns for t in tasks])
    return LaunchEvent(
        about.kernel, about.specialisation, launch, about.device, start, end, tuple(tasks)
    )
