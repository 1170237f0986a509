"""Measuring one kernel under several loop settings: the tuner's data, no widgets.

:func:`measure_settings` times ``kernel(*args)`` under each setting (a dict of loop
options) with the one timing protocol, ``ti.profiler.measure``: one candidate per
setting, whose ``prepare`` applies its options with ``kernel.configure`` (a kernel keeps
the compiled code of configurations it has run, so going back to one costs nothing),
every setting's first call timed apart, then rounds of samples in rotated order. Each
setting gives a frozen :class:`Measurement`: median and interquartile range, the
samples, the first call, what that call did to get code (``compiled``), the tasks as
the report shows them, and GB/s from the compiler's byte count.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=256)
    >>> @ti.kernel
    ... def ramp():
    ...     for i in x:
    ...         x[i] = i
    >>> m = measure(ramp, (), {"block_dim": 32}, repeat=3)
    >>> dict(m.options), [dict(c) for c in m.loop_configs], m.q1_s <= m.median_s <= m.q3_s
    ({'block_dim': 32}, [{'block_dim': 32}], True)
    >>> m.samples_n, m.compiled, m.bytes_per_call
    (3, 'miss', 1024)
    >>> measure(ramp, (), {"block_dim": 32}, base={"block_dim": 32}, repeat=1).compiled
    'already compiled'
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping, Sequence

import ti_notebook as ti

__all__ = ["OPTIONS", "Measurement", "Stopped", "counted_bytes", "measure", "measure_settings"]

# The loop options the tuner moves, in the order its controls show them.
OPTIONS = ("parallelize", "block_dim", "serialize")


def _frozen_all(items) -> tuple:
    return tuple(types.MappingProxyType(dict(item)) for item in items)


@dataclasses.dataclass(frozen=True)
class Measurement:
    """One setting's timing (seconds per call), as the protocol measured it.

    ``median_s`` with ``q1_s``/``q3_s`` (the interquartile range) summarise ``samples``;
    ``outliers`` index the samples beyond Tukey's fences; ``min_s``/``max_s`` are the
    lowest and highest samples that are not outliers. ``first_call_s`` is the first call
    alone, not counted. ``compiled`` says how that call got its code: ``"miss"``
    (compiled), ``"hit"`` (loaded from the offline cache), ``"off"`` (compiled, the
    offline cache being off) or ``"already compiled"`` (the kernel held it). ``tasks``
    are the report's tasks (``kind``, ``range``, ``loop_config``, and ``iterations``
    for the arguments measured, None where unknown); ``gbps`` is counted
    bytes over the median, None when the compiler could not count them; ``reason`` why
    the setting is slow, when it is more than twice the best and the report shows why.

        >>> m = Measurement({"block_dim": 64}, 2e-3, 1e-3, 4e-3, "hit", ({"block_dim": 64},))
        >>> m.label, m.median_s, m.q1_s, m.iqr_s
        ('block_dim=64', 0.002, 0.002, 0.0)
    """

    options: Mapping[str, object]
    median_s: float
    min_s: float
    max_s: float
    compiled: str
    loop_configs: tuple[Mapping, ...] = ()
    gbps: float | None = None
    repeat: int = 0  # rounds asked for; samples_n says how many were taken
    q1_s: float | None = None  # None: the median (a record made by hand)
    q3_s: float | None = None
    first_call_s: float | None = None
    samples: tuple[float, ...] = ()
    outliers: tuple[int, ...] = ()
    tasks: tuple[Mapping, ...] = ()
    bytes_per_call: int | None = None
    reason: str | None = None
    reason_tag: str | None = None  # the same in a few words, as the plot labels the point

    def __post_init__(self) -> None:
        # frozen all the way down: a record in tuner.results never changes
        object.__setattr__(self, "options", types.MappingProxyType(dict(self.options)))
        object.__setattr__(self, "loop_configs", _frozen_all(self.loop_configs))
        object.__setattr__(self, "tasks", _frozen_all(self.tasks))
        object.__setattr__(self, "samples", tuple(self.samples))
        object.__setattr__(self, "outliers", tuple(self.outliers))
        for name in ("q1_s", "q3_s"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, self.median_s)

    @property
    def label(self) -> str:
        """``name=value`` pairs, as the table and the plot write them."""
        return ", ".join(f"{name}={value}" for name, value in self.options.items())

    @property
    def iqr_s(self) -> float:
        """The interquartile range, q3 - q1."""
        return self.q3_s - self.q1_s

    @property
    def samples_n(self) -> int:
        """How many samples the median summarises (``repeat`` for a record made by hand)."""
        return len(self.samples) or self.repeat

    def outlier_values(self) -> list[float]:
        """The samples marked as outliers, in the order taken."""
        return [self.samples[k] for k in self.outliers]


class Stopped(Exception):
    """``should_stop`` said yes before every setting had its first call."""


def counted_bytes(kernel: ti.Kernel, args: Sequence) -> int | None:
    """The bytes one call moves, as the compiler counts them; None where it cannot.

    Uses ``ti.profiler.counted_work`` where this version has it, else the report's
    per-iteration bytes times each parallel task's constant range.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> y = ti.field(ti.f32, shape=100)
        >>> @ti.kernel
        ... def bump():
        ...     for i in y:
        ...         y[i] += 1
        >>> counted_bytes(bump, ())
        800
    """
    counted_work = getattr(ti.profiler, "counted_work", None)
    if counted_work is not None:
        work = counted_work(kernel, *args)
        value = work[0] if isinstance(work, tuple) else getattr(work, "bytes", work)
        return int(value) if isinstance(value, int | float) and value else None
    total, known = 0, False
    for task in kernel.stages(*args)["report"].tasks:
        if task.bytes_per_iteration is not None and task.range:
            total += task.bytes_per_iteration * max(0, task.range[1] - task.range[0])
            known = True
    return total if known else None


def measure_settings(
    kernel: ti.Kernel,
    args: Sequence,
    settings: Sequence[Mapping[str, object]],
    *,
    base: Mapping[str, object] | None = None,
    rounds: int = 7,
    bytes_per_call: int | None = None,
    progress: Callable[[int, int, str], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[Measurement]:
    """Times ``kernel(*args)`` under every setting, interleaved (see the module).

    ``base`` is the configuration kept for what a setting does not set (the kernel's
    own, read before tuning). ``progress(done, total, label)`` counts each setting's
    first call and then each sample (``total`` = settings x (rounds + 1));
    ``should_stop()`` is asked before each: a stop during the rounds keeps the samples
    taken, one before every setting had its first call raises :class:`Stopped`.
    The kernel is left configured with the last setting's options.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    wanted = [{**(base or {}), **options} for options in settings]
    total = len(settings) * (rounds + 1)
    held: dict[int, set[int]] = {}  # setting -> the code the kernel held before its first call
    stop = should_stop or (lambda: False)

    def prepare(k: int) -> Callable[[], None]:
        def apply() -> None:
            if kernel.configuration != wanted[k]:
                kernel.configure(**wanted[k])
            if k not in held:  # the protocol's first call of this setting comes next
                if stop():
                    raise Stopped
                held[k] = {id(s) for s in kernel.specialisations.values()}
                if progress is not None:
                    progress(len(held), total, _label(settings[k]))

        return apply

    def call() -> None:
        kernel(*args)

    candidates = [
        ti.profiler.Candidate(_label(options), call, prepare(k), bytes_per_call)
        for k, options in enumerate(settings)
    ]

    def sampled(done: int, _total: int, label: str) -> None:
        if progress is not None:
            progress(len(settings) + done, total, label)

    timings = ti.profiler.measure(
        candidates, rounds=rounds, progress=sampled, should_stop=should_stop
    )
    by_label = {timing.label: timing for timing in timings}
    results = []
    for k, options in enumerate(settings):
        timing = by_label.get(_label(options))
        if timing is None:
            continue  # stopped before its first sample
        if kernel.configuration != wanted[k]:
            kernel.configure(**wanted[k])  # its code is held: nothing compiles
        stages = kernel.stages(*args)
        report = stages["report"]
        compiled = "already compiled" if id(stages) in held.get(k, ()) else report.cache
        counts = _iteration_counts(kernel, args)
        tasks = [
            {
                "kind": t.kind,
                "range": t.range,
                "loop_config": dict(t.loop_config),
                "iterations": counts.get(index),
            }
            for index, t in enumerate(report.tasks)
        ]
        results.append(_record(options, timing, compiled, tasks, rounds))
    return results


def _label(options: Mapping[str, object]) -> str:
    return ", ".join(f"{name}={value}" for name, value in options.items())


def _iteration_counts(kernel: ti.Kernel, args: Sequence) -> dict[int, int]:
    """Task index -> its iterations for these arguments, where the compiler can say."""
    counted_work = getattr(ti.profiler, "counted_work", None)
    if counted_work is None:
        return {}
    tasks = getattr(counted_work(kernel, *args), "tasks", ())
    return {t.index: t.iterations for t in tasks if t.iterations is not None}


def _record(options, timing, compiled: str, tasks: list[dict], rounds: int) -> Measurement:
    summary = timing.summary
    return Measurement(
        dict(options),
        summary.median,
        summary.low,
        summary.high,
        compiled,
        tuple(task["loop_config"] for task in tasks),
        timing.gbps,
        rounds,
        q1_s=summary.q1,
        q3_s=summary.q3,
        first_call_s=timing.first_call_s,
        samples=summary.samples,
        outliers=summary.outliers,
        tasks=tasks,
        bytes_per_call=timing.bytes_per_call,
    )


def measure(
    kernel: ti.Kernel,
    args: Sequence,
    options: Mapping[str, object],
    *,
    base: Mapping[str, object] | None = None,
    repeat: int = 7,
    bytes_per_call: int | None = None,
) -> Measurement:
    """One setting's :func:`measure_settings`, ``repeat`` samples; its bytes counted
    after its first call when not given (so that call is the one that compiles)."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    result = measure_settings(
        kernel, args, [options], base=base, rounds=repeat, bytes_per_call=bytes_per_call
    )[0]
    if bytes_per_call is None:
        counted = counted_bytes(kernel, args)
        if counted:
            gbps = counted / result.median_s / 1e9 if result.median_s > 0 else None
            result = dataclasses.replace(result, bytes_per_call=counted, gbps=gbps)
    return result
