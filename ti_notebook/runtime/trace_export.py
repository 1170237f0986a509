"""``ti.profiler.export_trace(path)``: the recorded events as a Chrome trace.

The file is Chrome's trace-event "JSON Object Format" (``{"traceEvents": [...]}``),
which ui.perfetto.dev and chrome://tracing open. Its layout:

- one process, ``pid = os.getpid()``, named ``ti_notebook (cpu)`` after the devices
  its launches ran on;
- track ``tid 1`` "python: compile": each first call's ``compile`` or ``cache load``
  span (category ``python``);
- track ``tid 2`` "launches": every launch (category ``launch``) with its tasks nested
  inside it (category ``task``, with their bytes and GB/s when known);
- tracks ``tid 10 + k``: profiler thread ``k``, "launcher" for 0 and "worker k" for a
  pool worker; one event per task the thread ran a part of (category ``thread``), from
  its first chunk's start to its last chunk's end, with its busy time and iterations.

Each track also gets a ``thread_sort_index`` in that order, which chrome://tracing
follows; Perfetto orders tracks by its own rules and ignores it.

Every event is a complete event (``ph: "X"``) with ``ts`` and ``dur`` in microseconds
(floats: the events are nanoseconds). ``ts`` counts from the earliest recorded event;
that instant's ``CLOCK_MONOTONIC`` nanoseconds (``time.monotonic_ns()``) are in
``otherData.origin_ns``, so a trace can be lined up with other monotonic times.

    >>> import json, os, pathlib, tempfile
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> x = ti.field(ti.f32, shape=1024)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = 1
    >>> fill(); fill()
    >>> path = os.path.join(tempfile.mkdtemp(), "fill.json")
    >>> written = export_trace(path)
    >>> trace = json.loads(pathlib.Path(path).read_text())
    >>> len(trace["traceEvents"]) == written
    True
    >>> sorted({e["cat"] for e in trace["traceEvents"] if e["ph"] == "X"})
    ['launch', 'python', 'task', 'thread']
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from ti_notebook.errors import TiOSError, TiTypeError
from ti_notebook.runtime import profiler
from ti_notebook.runtime.profiler_events import LaunchEvent, Span, TaskEvent, ThreadSpan

COMPILE_TID = 1
LAUNCH_TID = 2
THREAD_TID_BASE = 10  # profiler thread k is track 10 + k: room for more Python-side tracks


def export_trace(path: str | os.PathLike) -> int:
    """Writes every launch and span recorded so far to ``path`` as a Chrome trace (open
    it at ui.perfetto.dev); returns the number of trace events written.

        >>> import os, tempfile
        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu, kernel_profiler=True)
        >>> ti.profiler.export_trace(os.path.join(tempfile.mkdtemp(), "t.json"))
        5
    """
    if not isinstance(path, (str, os.PathLike)):
        # open() would take an int as a file descriptor and write to whatever it is
        raise TiTypeError(
            f"export_trace() needs a file path, got {type(path).__name__}",
            hint="pass a str or pathlib.Path, e.g. ti.profiler.export_trace('trace.json')",
        )
    trace = trace_object(profiler.launches(), profiler.spans())
    try:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(trace, out, default=str)
    except OSError as error:
        raise TiOSError(
            f"cannot write the trace to {os.fspath(path)!r}: {error.strerror or error}",
            hint="give a file path in a folder that exists and that you may write to, "
            "e.g. ti.profiler.export_trace('trace.json')",
        ) from None
    return len(trace["traceEvents"])


def trace_object(launches: Iterable[LaunchEvent], spans: Iterable[Span]) -> dict:
    """The trace as a JSON-ready dict (what :func:`export_trace` writes).

    >>> from ti_notebook.runtime.profiler_events import LaunchEvent
    >>> trace = trace_object([LaunchEvent("k", "k", 0, "cpu", 5_000, 7_500)], [])
    >>> [(e["name"], e["ts"], e["dur"]) for e in trace["traceEvents"] if e["ph"] == "X"]
    [('k', 0.0, 2.5)]
    """
    launches, spans = list(launches), list(spans)
    starts = [e.start_ns for e in launches] + [s.start_ns for s in spans]
    origin = min(starts, default=0)
    pid = os.getpid()
    timed = [_span_event(s, origin, pid) for s in spans]
    threads: set[int] = set()
    for launch in launches:
        timed.append(_launch_event(launch, origin, pid))
        for task in launch.tasks:
            timed.append(_task_event(launch, task, origin, pid))
            for part in task.threads:
                threads.add(part.thread)
                timed.append(_thread_event(launch, task, part, origin, pid))
    # parents before children where they start together: viewers nest in file order
    timed.sort(key=lambda e: (e["ts"], -e["dur"]))
    devices = sorted({e.device for e in launches}) or ["cpu"]
    return {
        "traceEvents": _metadata(pid, devices, threads) + timed,
        "displayTimeUnit": "ms",
        "otherData": {"clock": "CLOCK_MONOTONIC", "origin_ns": origin},
    }


def _metadata(pid: int, devices: list[str], threads: set[int]) -> list[dict]:
    names = {COMPILE_TID: "python: compile", LAUNCH_TID: "launches"}
    for k in sorted(threads):
        names[THREAD_TID_BASE + k] = "launcher" if k == 0 else f"worker {k}"
    process = f"ti_notebook ({', '.join(devices)})"
    events = [_meta("process_name", pid, 0, {"name": process})]
    for order, (tid, name) in enumerate(names.items()):
        events.append(_meta("thread_name", pid, tid, {"name": name}))
        events.append(_meta("thread_sort_index", pid, tid, {"sort_index": order}))
    return events


def _meta(name: str, pid: int, tid: int, args: dict) -> dict:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args}


def _complete(name, cat, pid, tid, start_ns, end_ns, origin, args) -> dict:
    return {
        "name": name,
        "cat": cat,
        "ph": "X",
        "ts": (start_ns - origin) / 1e3,
        "dur": (end_ns - start_ns) / 1e3,
        "pid": pid,
        "tid": tid,
        "args": args,
    }


def _span_event(span: Span, origin: int, pid: int) -> dict:
    args = {"kernel": span.kernel, "specialisation": span.specialisation}
    name = f"{span.name}: {span.specialisation}"
    return _complete(name, "python", pid, COMPILE_TID, span.start_ns, span.end_ns, origin, args)


def _launch_event(launch: LaunchEvent, origin: int, pid: int) -> dict:
    args = _labels(launch)
    args.update(device=launch.device, tasks=len(launch.tasks))
    _traffic(args, launch.bytes, launch.duration_ns)
    return _complete(
        launch.specialisation,
        "launch",
        pid,
        LAUNCH_TID,
        launch.start_ns,
        launch.end_ns,
        origin,
        args,
    )


def _task_event(launch: LaunchEvent, task: TaskEvent, origin: int, pid: int) -> dict:
    args = _task_args(launch, task)
    args["iterations"] = task.iterations
    args["threads"] = len(task.threads)
    _traffic(args, task.bytes, task.duration_ns)
    name = f"task {task.index}: {task.kind}"
    return _complete(name, "task", pid, LAUNCH_TID, task.start_ns, task.end_ns, origin, args)


def _thread_event(
    launch: LaunchEvent, task: TaskEvent, part: ThreadSpan, origin: int, pid: int
) -> dict:
    args = _task_args(launch, task)
    args.update(busy_us=part.busy_ns / 1e3, iterations=part.iterations)
    # The task's traffic, not this thread's: a sparse struct-for's threads walk cells
    # that are not all active, so the task's bytes cannot be split by their iterations.
    args["task_iterations"] = task.iterations
    if task.bytes is not None:
        args["task_bytes"] = task.bytes
    if task.gbps is not None:
        args["task_GB/s"] = round(task.gbps, 3)
    name = f"{launch.specialisation} · task {task.index}"
    tid = THREAD_TID_BASE + part.thread
    return _complete(name, "thread", pid, tid, part.start_ns, part.end_ns, origin, args)


def _labels(launch: LaunchEvent) -> dict:
    return {
        "kernel": launch.kernel,
        "specialisation": launch.specialisation,
        "launch": launch.launch,
    }


def _task_args(launch: LaunchEvent, task: TaskEvent) -> dict:
    args = _labels(launch)
    args.update(task=task.index, kind=task.kind, loop_config=dict(task.loop_config))
    return args


def _traffic(args: dict, traffic: int | None, duration_ns: int) -> None:
    """Adds bytes and GB/s when the bytes are known (None: not measured, left out)."""
    if traffic is None:
        return
    args["bytes"] = traffic
    if duration_ns > 0:
        args["GB/s"] = round(traffic / duration_ns, 3)
