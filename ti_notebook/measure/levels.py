"""Which memory level a launch's data sits in, and its bandwidth judged against that
level's ceiling, with a flag wherever the figure cannot be taken at face value.

**Working set.** The bytes a launch touches, estimated from the compiler's counted bytes
per launch (``passes/analysis/memory_traffic.py``: every element read counts once, written once
more). That is an upper bound of the *distinct* bytes: an element both read and written
counts twice, so the true working set lies between half the count and the count.

**Level.** :func:`level_for` picks the nearest level whose capacity for the threads that
ran holds the whole working set (private caches add up per core; see
:meth:`~ti_notebook.measure.ceilings.Ceilings.capacity`). A launch repeated over the same
data finds it there, which is why a small kernel can beat the DRAM figure.

**Judging.** :func:`judge` divides the achieved GB/s by that level's roof (the monotone
one, :meth:`~ti_notebook.measure.ceilings.Ceilings.roofs`). A fraction is never shown
above 100 % without a ``flag`` saying why it cannot be trusted; flags are also raised
below 100 % where they apply (a time too short to measure, a working set so close to a
level's capacity that the level is uncertain).

    >>> from ti_notebook.measure.ceilings import Ceilings
    >>> c = Ceilings.example()
    >>> level_for(64 << 10, c, threads=1), level_for(64 << 10, c, threads=2)
    ('L2', 'L1')
    >>> v = judge(gbps=61.0, working_set=1 << 20, ceilings=c, threads=1, seconds=1e-3)
    >>> v.level, v.ceiling_gbps, round(v.fraction, 2), v.flag, v.describe()
    ('L2', 100.0, 0.61, None, 'in L2: 61 % of L2 bandwidth')
"""

from __future__ import annotations

import dataclasses

from ti_notebook.measure.ceilings import CACHE_LEVELS, LEVELS, Ceilings

__all__ = ["Verdict", "judge", "level_for", "MIN_RELIABLE_S"]

# a launch shorter than this is mostly the launch itself and the clock reads around it
MIN_RELIABLE_S = 10e-6
# a working set within this factor of a level's capacity may sit in either level
NEAR_BOUNDARY = 2.0


def level_for(working_set: float, ceilings: Ceilings, threads: int = 1) -> str:
    """The nearest level that holds ``working_set`` bytes for ``threads`` cores (pure).

    >>> c = Ceilings.example()
    >>> [level_for(n, c) for n in (1 << 10, 1 << 20, 16 << 20, 1 << 30)]
    ['L1', 'L2', 'L3', 'DRAM']
    """
    for level in CACHE_LEVELS:
        capacity = ceilings.capacity(level, threads)
        if capacity is not None and working_set <= capacity:
            return level
    return "DRAM"


@dataclasses.dataclass(frozen=True)
class Verdict:
    """An achieved GB/s against the ceiling of the level its working set fits in."""

    level: str
    ceiling_gbps: float
    fraction: float  # achieved / ceiling, as measured (may exceed 1: then ``flag`` says why)
    flag: str | None

    def describe(self) -> str:
        """``in L2: 61 % of L2 bandwidth`` (and the flag, when there is one)."""
        text = f"in {self.level}: {100 * self.fraction:.0f} % of {self.level} bandwidth"
        return f"{text} ({self.flag})" if self.flag else text


def judge(
    gbps: float,
    working_set: float,
    ceilings: Ceilings,
    threads: int = 1,
    seconds: float | None = None,
    overlapping: bool = False,
) -> Verdict:
    """The :class:`Verdict` of ``gbps`` achieved over ``working_set`` bytes by ``threads``
    threads in ``seconds`` per launch (``overlapping``: the launch's tasks ran at the same
    time, so their times do not add up).

        >>> c = Ceilings.example()
        >>> judge(450.0, 16 << 10, c, threads=2, seconds=2e-6).flag
        'below timer resolution: 2 us per launch'
        >>> judge(150.0, 4 << 20, c, threads=1, seconds=1e-3).flag  # 4 MiB: L3, 100 GB/s
        'working set estimate too large? half of it (2 MiB) fits in L2'
    """
    all_cores = threads > 1
    level = level_for(working_set, ceilings, threads)
    ceiling = ceilings.roofs(all_cores)[level]
    fraction = gbps / ceiling if ceiling > 0 else float("inf")
    return Verdict(level, ceiling, fraction, _flag(fraction, level, working_set, ceilings,
                                                   threads, seconds, overlapping))  # fmt: skip


def _flag(fraction, level, working_set, ceilings, threads, seconds, overlapping) -> str | None:
    """The first reason that applies; one is always found when ``fraction`` > 1."""
    if seconds is not None and seconds < MIN_RELIABLE_S:
        return f"below timer resolution: {seconds * 1e6:.0f} us per launch"
    if overlapping:
        return "overlapping tasks: their times overlap, so GB/s over their sum is not exact"
    lower = level_for(working_set / 2, ceilings, threads)
    if fraction > 1 and lower != level:
        half = _size(working_set / 2)
        return f"working set estimate too large? half of it ({half}) fits in {lower}"
    if fraction > 1:
        return (
            f"above the measured {level} ceiling: the data may sit in a nearer level than "
            "the estimate says, or the ceiling was measured on a busy machine "
            "(ti.profiler.machine_ceilings(refresh=True))"
        )
    if level != "L1":
        nearer = LEVELS[LEVELS.index(level) - 1]
        if working_set < NEAR_BOUNDARY * (ceilings.capacity(nearer, threads) or 0):
            return f"near the {nearer}/{level} boundary: part of the data may sit in {nearer}"
    return None


def _size(n: float) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.3g} MiB"
    return f"{n / (1 << 10):.3g} KiB"
