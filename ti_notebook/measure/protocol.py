"""The one timing protocol: how ti_notebook times anything it shows to a user.

The tuner, ``%%kernel --profile``, the tutorials and ``benchmarks/`` all measure this way:

1. **Warm-up apart.** Each candidate's first call (it compiles or loads code, faults in
   pages, wakes the thread pool) is timed on its own and reported as ``first_call_s``;
   it never enters the statistics. ``warmup`` more calls run untimed.
2. **Enough work per sample.** A call shorter than ``min_sample_s`` is repeated within
   one sample (``calls_per_sample``, chosen from a probe call) so each sample lies well
   above the timer's resolution; a sample is the mean time per call inside it.
3. **Interleaved rounds.** Round after round, every candidate gives one sample, in an
   order rotated each round: a drift of the machine (another process, the clock, the
   temperature) hits all candidates alike instead of whichever ran last.
4. **Median and interquartile range** of the samples (:class:`~.stats.Summary`), with
   outliers marked and the number of samples stated.
5. **GB/s from the compiler's byte counts**: ``bytes_per_call`` (what the kernel's tasks
   must move, ``passes/analysis/memory_traffic.py``) over the median time.

``prepare`` runs untimed before each of a candidate's samples (the tuner applies the
candidate's loop options there); ``sync`` after each call (``ti.sync()`` by default,
so asynchronous devices are timed to completion).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> fast, slow = Candidate("fast", lambda: sum(range(10))), Candidate(
    ...     "slow", lambda: sum(range(10_000)))
    >>> timings = measure([fast, slow], rounds=5)
    >>> [t.label for t in timings], [t.summary.n for t in timings]
    (['fast', 'slow'], [5, 5])
    >>> timings[0].median_s < timings[1].median_s
    True
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence

from .stats import Summary  # relative: benchmarks load this folder without the compiler

__all__ = [
    "Candidate",
    "Comparison",
    "Timing",
    "compare",
    "measure",
    "time_call",
    "TIMER_RESOLUTION_S",
]

# The clock every sample is read from, and its resolution (1 ns on Linux).
clock = time.perf_counter
TIMER_RESOLUTION_S = time.get_clock_info("perf_counter").resolution
MIN_SAMPLE_S = 2e-4  # a sample shorter than this repeats its call (timer and call overhead)
MAX_CALLS_PER_SAMPLE = 10_000


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One thing to time: ``call()`` (and ``prepare()``, untimed, before each sample)."""

    label: str
    call: Callable[[], object]
    prepare: Callable[[], object] | None = None
    bytes_per_call: int | None = None  # the compiler's count, for GB/s; None: unknown


@dataclasses.dataclass(frozen=True)
class Timing:
    """What the protocol measured for one candidate (seconds per call).

    >>> t = Timing("k", 0.25, Summary.of([1e-3, 2e-3, 3e-3]), 1, 4_000_000)
    >>> t.median_s, t.gbps, t.describe()
    (0.002, 2.0, 'k: median 2 ms, IQR 1.5-2.5 ms, 3 samples (first call 250 ms, not counted)')
    """

    label: str
    first_call_s: float  # the first call alone: compile or cache load, page faults, ...
    summary: Summary  # seconds per call, one sample per round, in the order taken
    calls_per_sample: int
    bytes_per_call: int | None = None

    @property
    def median_s(self) -> float:
        return self.summary.median

    @property
    def gbps(self) -> float | None:
        """Counted bytes over the median time (1e9 bytes per second); None: unknown."""
        if not self.bytes_per_call or self.median_s <= 0:
            return None
        return self.bytes_per_call / self.median_s / 1e9

    @property
    def below_resolution(self) -> bool:
        """Whether a sample lasted less than 100 timer ticks: its figure is not reliable."""
        return self.median_s * self.calls_per_sample < 100 * TIMER_RESOLUTION_S

    def describe(self) -> str:
        """One line for people: the median and IQR in ms, samples, the first call apart."""
        return (
            f"{self.label}: {self.summary.scaled(1e3).describe('ms')} "
            f"(first call {self.first_call_s * 1e3:.3g} ms, not counted)"
        )


def _default_sync() -> Callable[[], object]:
    from ti_notebook.session import lifecycle as session

    return session.sync if session.is_initialized() else (lambda: None)


def measure(
    candidates: Sequence[Candidate],
    *,
    rounds: int = 7,
    warmup: int = 1,
    sync: Callable[[], object] | None = None,
    min_sample_s: float = MIN_SAMPLE_S,
    progress: Callable[[int, int, str], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[Timing]:
    """Times every candidate by the protocol above; one :class:`Timing` each, in order.

    ``progress(done, total, label)`` is called after each sample (``total`` = rounds x
    candidates); ``should_stop()`` is asked before each sample, and when it says yes the
    rounds end there: candidates keep the samples they have (those with none are left
    out of the result).
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if warmup < 0:
        raise ValueError(f"warmup must be 0 or more, got {warmup}")
    sync = sync or _default_sync()
    stop = should_stop or (lambda: False)
    firsts: list[float] = []
    calls: list[int] = []
    for candidate in candidates:
        if candidate.prepare is not None:
            candidate.prepare()
        started = clock()
        candidate.call()
        sync()
        firsts.append(clock() - started)
        for _ in range(warmup):
            candidate.call()
        sync()
        started = clock()
        candidate.call()  # the probe: how long one warm call takes
        sync()
        probe = max(clock() - started, TIMER_RESOLUTION_S)
        calls.append(max(1, min(MAX_CALLS_PER_SAMPLE, math.ceil(min_sample_s / probe))))
    samples: list[list[float]] = [[] for _ in candidates]
    total, done = rounds * len(candidates), 0
    for round_index in range(rounds):
        order = list(range(len(candidates)))
        shift = round_index % max(1, len(order))
        for k in order[shift:] + order[:shift]:
            if stop():
                return _timings(candidates, firsts, calls, samples)
            candidate = candidates[k]
            if candidate.prepare is not None:
                candidate.prepare()
                sync()
            started = clock()
            for _ in range(calls[k]):
                candidate.call()
            sync()
            samples[k].append((clock() - started) / calls[k])
            done += 1
            if progress is not None:
                progress(done, total, candidate.label)
    return _timings(candidates, firsts, calls, samples)


def _timings(candidates, firsts, calls, samples) -> list[Timing]:
    return [
        Timing(c.label, first, Summary.of(taken), n, c.bytes_per_call)
        for c, first, n, taken in zip(candidates, firsts, calls, samples, strict=True)
        if taken
    ]


def time_call(
    call: Callable[[], object],
    *,
    label: str = "",
    rounds: int = 7,
    bytes_per_call: int | None = None,
    **options,
) -> Timing:
    """One candidate's :func:`measure`: ``time_call(lambda: k(x))``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> time_call(lambda: None, rounds=3).summary.n
    3
    """
    candidate = Candidate(label, call, bytes_per_call=bytes_per_call)
    return measure([candidate], rounds=rounds, **options)[0]


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Two timings side by side, in words a tutorial can print as its claim.

    ``faster`` is the label of the faster one, or None when their interquartile ranges
    overlap: then this run shows no clear difference, whatever the medians say.
    """

    first: Timing
    second: Timing

    @property
    def ratio(self) -> float:
        """The slower median over the faster one (1.0 or more)."""
        a, b = self.first.median_s, self.second.median_s
        return max(a, b) / min(a, b) if min(a, b) > 0 else float("inf")

    @property
    def faster(self) -> str | None:
        a, b = self.first.summary, self.second.summary
        if a.q3 < b.q1:
            return self.first.label
        if b.q3 < a.q1:
            return self.second.label
        return None

    @property
    def sentence(self) -> str:
        """``in this run BLS was 1.27x faster than plain (medians 21.3 ms and 27.1 ms)``."""
        a, b = self.first, self.second
        if self.faster is None:
            medians = f"medians {a.median_s * 1e3:.3g} ms and {b.median_s * 1e3:.3g} ms"
            return (
                f"in this run {a.label} and {b.label} took about the same time ({medians}; "
                "their interquartile ranges overlap)"
            )
        # the medians in the order the sentence names them: the faster one first
        fast, slow = (a, b) if a.summary.q3 < b.summary.q1 else (b, a)
        medians = f"medians {fast.median_s * 1e3:.3g} ms and {slow.median_s * 1e3:.3g} ms"
        return (
            f"in this run {fast.label} was {self.ratio:.3g}x faster than {slow.label} ({medians})"
        )


def compare(first: Timing, second: Timing) -> Comparison:
    """The two timings compared: ``compare(a, b).sentence`` words the result.

    >>> a = Timing("BLS", 0.1, Summary.of([21e-3, 21.3e-3, 21.5e-3]), 1)
    >>> b = Timing("plain", 0.1, Summary.of([27e-3, 27.1e-3, 27.4e-3]), 1)
    >>> compare(a, b).sentence
    'in this run BLS was 1.27x faster than plain (medians 21.3 ms and 27.1 ms)'
    >>> compare(a, a).faster is None
    True
    """
    return Comparison(first, second)
