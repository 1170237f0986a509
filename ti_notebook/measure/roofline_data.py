"""A roofline as data: each task at (FLOPs per byte, achieved GFLOP/s) under its roofs.

- **x**, the arithmetic intensity, is the compiler's counts: FLOPs over bytes per launch
  (``ti.profiler.counted_work``; ``passes/analysis/memory_traffic.py`` states what counts).
- **y** is those FLOPs over the measured time: the timing protocol's median
  (``ti.profiler.time_call``) for a kernel, the profiler's median task time for rows.
- **roofs**: on a CPU, this machine's measured ceilings (``ti.profiler.machine_ceilings``),
  one memory roof per level (L1, L2, L3, DRAM, all cores, made monotone) and the f32 and
  f64 peaks; for a CUDA kernel (arch cuda or the emulator), the device's *published*
  memory bandwidth and peaks (``ti_notebook.cuda_analysis.published_peaks``).
- **bound**: a point left of the ridge of its own roofs (its level's memory roof meets the
  peak of its float type) is memory-bound, at or right of it compute-bound.

A point without FLOPs (a copy) has no place on log axes: it is listed in ``left_out``.

    >>> from ti_notebook.measure.ceilings import Ceilings
    >>> data = from_counts([("saxpy", 2 * 2**20, 12 * 2**20, 1e-3, "f32")], Ceilings.example())
    >>> p = data.points[0]
    >>> round(p.x, 4), round(p.y, 3), p.level, p.bound
    (0.1667, 2.097, 'L3', 'memory-bound')
    >>> [r.name for r in data.roofs]
    ['L1', 'L2', 'L3', 'DRAM', 'f32 peak', 'f64 peak']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ti_notebook.cuda_analysis.devices import PublishedPeaks, published_peaks
from ti_notebook.measure import levels
from ti_notebook.measure.ceilings import LEVELS, Ceilings

__all__ = ["Roof", "RooflinePoint", "RooflineData", "from_counts", "roofline_data"]


@dataclasses.dataclass(frozen=True)
class Roof:
    """A memory roof (``kind`` "memory", ``value`` GB/s) or a compute peak ("compute",
    GFLOP/s)."""

    name: str
    kind: str
    value: float


@dataclasses.dataclass(frozen=True)
class RooflinePoint:
    """One task (or kernel) on the roofline; ``flops``, ``bytes``, ``seconds`` per launch."""

    label: str
    flops: float
    bytes: float
    seconds: float
    dtype: str  # the float type of its FLOPs: which peak bounds it
    level: str  # the memory roof it is held against
    bound: str  # "memory-bound" or "compute-bound"

    @property
    def x(self) -> float:
        """FLOPs per byte."""
        return self.flops / self.bytes

    @property
    def y(self) -> float:
        """Achieved GFLOP/s."""
        return self.flops / self.seconds / 1e9


@dataclasses.dataclass(frozen=True)
class RooflineData:
    """Points, roofs and where the roofs come from (``source``: "measured" on this machine,
    or "published" device specs)."""

    points: tuple[RooflinePoint, ...]
    roofs: tuple[Roof, ...]
    machine: str
    source: str
    left_out: tuple[str, ...] = ()

    def roof(self, name: str) -> float:
        """The value of roof ``name`` ("L2", "HBM3", "f32 peak", ...)."""
        return next(r.value for r in self.roofs if r.name == name)

    def ridge(self, level: str, dtype: str = "f32") -> float:
        """FLOPs per byte where ``level``'s roof meets the ``dtype`` peak."""
        return self.roof(f"{_peak_dtype(self, dtype)} peak") / self.roof(level)

    def describe(self) -> str:
        """One line per point: where it sits and what bounds it."""
        lines = [f"roofline of {self.machine} ({self.source} ceilings)"]
        for p in self.points:
            lines.append(
                f"{p.label}: {p.x:.3g} FLOP/B, {p.y:.3g} GFLOP/s, {p.bound} "
                f"(against {p.level} and the {_peak_dtype(self, p.dtype)} peak)"
            )
        lines.extend(f"{label}: not drawn, {why}" for label, why in self.left_out)
        return "\n".join(lines)


def _peak_dtype(data_or_roofs, dtype: str) -> str:
    roofs = data_or_roofs.roofs if hasattr(data_or_roofs, "roofs") else data_or_roofs
    names = {r.name for r in roofs}
    return "f64" if dtype == "f64" and "f64 peak" in names else "f32"


def _cpu_roofs(machine: Ceilings) -> tuple[Roof, ...]:
    memory = [Roof(level, "memory", gbps) for level, gbps in machine.roofs().items()]
    compute = [Roof(f"{d} peak", "compute", machine.peak_gflops(d)) for d in ("f32", "f64")]
    return tuple(memory + compute)


def _gpu_roofs(peaks: PublishedPeaks) -> tuple[Roof, ...]:
    roofs = [Roof(peaks.memory, "memory", peaks.memory_gbps)]
    roofs.append(Roof("f32 peak", "compute", peaks.f32_gflops))
    if peaks.f64_gflops is not None:
        roofs.append(Roof("f64 peak", "compute", peaks.f64_gflops))
    return tuple(roofs)


def from_counts(
    entries: Sequence[tuple[str, float | None, float | None, float, str | None]],
    machine: Ceilings | PublishedPeaks,
    threads: int | None = None,
) -> RooflineData:
    """The roofline of ``(label, flops, bytes, seconds, dtype)`` per launch against
    ``machine``: this CPU's :class:`~ti_notebook.measure.ceilings.Ceilings` (each point
    held against the level its counted bytes fit in, for ``threads`` cores: all by
    default) or a GPU's :class:`~ti_notebook.cuda_analysis.PublishedPeaks`."""
    if isinstance(machine, Ceilings):
        roofs, name, source = _cpu_roofs(machine), machine.cpu_model, "measured"
        threads = threads or machine.threads
    else:
        roofs, name, source = _gpu_roofs(machine), machine.name, "published"
    values = {r.name: r.value for r in roofs}
    points, left_out = [], []
    for label, flops, nbytes, seconds, dtype in entries:
        if not flops or not nbytes or seconds <= 0:
            why = "no FLOPs counted" if not flops else "no bytes counted"
            why = why if not (flops and nbytes) else "no time"
            left_out.append((label, why))
            continue
        if isinstance(machine, Ceilings):
            level = levels.level_for(nbytes, machine, threads)
        else:
            level = machine.memory
        peak = values[f"{_peak_dtype(roofs, dtype or 'f32')} peak"]
        bound = "memory-bound" if flops / nbytes < peak / values[level] else "compute-bound"
        points.append(RooflinePoint(label, flops, nbytes, seconds, dtype or "f32", level, bound))
    return RooflineData(tuple(points), roofs, name, source, tuple(left_out))


def roofline_data(target, *args, seconds: float | None = None, device=None, rounds: int = 7):
    """The :class:`RooflineData` of a kernel called with ``args`` (timed here by the
    protocol, or at ``seconds`` per call when given) or of profiler rows
    (``ti.profiler.rows()``: one point per specialisation, at its median task time).

    A kernel's counted tasks each become a point when the kernel profiler is on (their
    own times, from the launches the timing made); otherwise the whole call is one point.
    ``device`` picks the published specs for a CUDA session ("H100 PCIe", "sm_80"; the
    default is sm_90's board). ``ti.profiler.roofline_data`` is this function.
    """
    if isinstance(target, (list, tuple)):
        entries = [
            (r.specialisation, r.flops_per_launch, r.bytes_per_launch,
             (r.task_median_ns or r.median_ns) / 1e9, None)
            for r in target
        ]  # fmt: skip
        return from_counts(entries, _machine(device), max((r.threads for r in target), default=1))
    from ti_notebook.measure import protocol, traffic
    from ti_notebook.runtime import profiler

    work = traffic.counted_work(target, *args)
    recorded = len(profiler.launches())
    if seconds is None:
        timing = protocol.time_call(lambda: target(*args), label=target.name, rounds=rounds)
        seconds = timing.median_s
    counted = [t for t in work.tasks if t.bytes]
    per_task = _task_seconds(profiler.launches()[recorded:]) if profiler.enabled else {}
    if len(counted) > 1 and all(t.index in per_task for t in counted):
        entries = [
            (f"{target.name} task {t.index}", t.flops, t.bytes, per_task[t.index], t.flop_dtype)
            for t in counted
        ]
    else:
        entries = [(target.name, work.flops, work.bytes, seconds, work.flop_dtype)]
    return from_counts(entries, _machine(device))


def _task_seconds(launches) -> dict[int, float]:
    """Median seconds per task index over warm launches (the first call left out)."""
    import statistics

    times: dict[int, list[int]] = {}
    for event in launches:
        if event.launch == 0:
            continue
        for task in event.tasks:
            times.setdefault(task.index, []).append(task.duration_ns)
    return {index: statistics.median(ns) / 1e9 for index, ns in times.items()}


def _machine(device) -> Ceilings | PublishedPeaks:
    from ti_notebook.session import config

    arch = config.current().arch if config.is_initialized() else "cpu"
    if device is not None or str(arch) in ("cuda", "Arch.cuda"):
        return published_peaks(device or "sm_90")
    from ti_notebook.measure import microbench

    return microbench.machine_ceilings()


LEVEL_NAMES = LEVELS  # the CPU's memory roofs, nearest first
