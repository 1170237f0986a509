"""Measuring one kernel under one set of loop options: the tuner's data, no widgets.

:func:`measure` configures the kernel (``Kernel.configure``), runs it once to compile
or load it and warm up, then times ``repeat`` calls with ``time.perf_counter`` around
the call and ``ti.sync()``. The result is a frozen :class:`Measurement`: the options,
median / min / max seconds, what the first call did to get code (``compiled``) and the
loop_config each task of the compiled kernel runs with (from ``kernel.report``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=256)
    >>> @ti.kernel
    ... def ramp():
    ...     for i in x:
    ...         x[i] = i
    >>> m = measure(ramp, (), {"block_dim": 32}, repeat=3)
    >>> dict(m.options), [dict(c) for c in m.loop_configs], m.min_s <= m.median_s <= m.max_s
    ({'block_dim': 32}, [{'block_dim': 32}], True)
    >>> measure(ramp, (), {"block_dim": 32}, base={"block_dim": 32}, repeat=1).compiled
    'already compiled'
"""

from __future__ import annotations

import dataclasses
import statistics
import time
import types
from collections.abc import Mapping, Sequence

import ti_notebook as ti

__all__ = ["Measurement", "OPTIONS", "measure"]

# The loop options the tuner moves, in the order its controls show them.
OPTIONS = ("parallelize", "block_dim", "serialize")


@dataclasses.dataclass(frozen=True)
class Measurement:
    """One timing of a kernel under ``options`` (seconds, over ``repeat`` calls).

    ``compiled`` says how the warm-up call got its code: ``"miss"`` (compiled),
    ``"hit"`` (loaded from the offline cache), ``"off"`` (compiled, the offline cache
    being off) or ``"already compiled"`` (the kernel held it: nothing was done).
    ``gbps`` is the bandwidth the profiler measured over the timed calls, None when the
    profiler is off or the kernel moves no counted bytes.

        >>> m = Measurement({"block_dim": 64}, 2e-3, 1e-3, 4e-3, "hit", ({"block_dim": 64},))
        >>> m.label, m.median_s
        ('block_dim=64', 0.002)
    """

    options: Mapping[str, object]
    median_s: float
    min_s: float
    max_s: float
    compiled: str
    loop_configs: tuple[Mapping, ...] = ()
    gbps: float | None = None
    repeat: int = 0

    def __post_init__(self) -> None:
        # frozen all the way down: a record in tuner.results never changes
        object.__setattr__(self, "options", types.MappingProxyType(dict(self.options)))
        configs = tuple(types.MappingProxyType(dict(c)) for c in self.loop_configs)
        object.__setattr__(self, "loop_configs", configs)

    @property
    def label(self) -> str:
        """``name=value`` pairs, as the table and the plot's legend write them."""
        return ", ".join(f"{name}={value}" for name, value in self.options.items())


def measure(
    kernel: ti.Kernel,
    args: Sequence,
    options: Mapping[str, object],
    *,
    base: Mapping[str, object] | None = None,
    repeat: int = 7,
) -> Measurement:
    """Times ``kernel(*args)`` configured with ``base`` updated by ``options``.

    ``base`` is the configuration to keep for what ``options`` does not set (the
    kernel's own, read before tuning). When the kernel already runs with exactly that
    configuration it is not configured again, so its compiled code stays.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    wanted = {**(base or {}), **options}
    if kernel.configuration != wanted:
        kernel.configure(**wanted)
    held = list(kernel.specialisations.values())
    kernel(*args)  # compiles or loads it, and warms caches and the thread pool
    ti.sync()
    stages = kernel.stages() if kernel.specialisations else None
    if stages is None:
        compiled = "already compiled"
        configs: tuple = ()
    else:
        report = stages["report"]
        compiled = "already compiled" if any(s is stages for s in held) else report.cache
        configs = tuple(dict(task.loop_config) for task in report.tasks)
    recorded = len(ti.profiler.launches()) if ti.profiler.is_enabled() else 0
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        kernel(*args)
        ti.sync()
        times.append(time.perf_counter() - started)
    gbps = _bandwidth(ti.profiler.launches()[recorded:]) if ti.profiler.is_enabled() else None
    return Measurement(
        dict(options),
        statistics.median(times),
        min(times),
        max(times),
        compiled,
        configs,
        gbps,
        repeat,
    )


def _bandwidth(launches: Sequence) -> float | None:
    """GB/s over the timed launches: their counted bytes over their tasks' time (the
    profiler's own rule, ``ti.profiler.rows``), for these launches alone."""
    counted = [t for event in launches for t in event.tasks if t.bytes is not None]
    task_ns = sum(t.duration_ns for t in counted)
    if not counted or task_ns <= 0:
        return None
    return sum(t.bytes for t in counted) / task_ns
