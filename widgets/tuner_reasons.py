"""Why a loop setting is slow: the causes the compiler's report can show, no timing.

:func:`slow_reasons` reads what ``kernel.report.tasks`` says of each task (``kind``,
``range``, ``loop_config``), the thread count and the options tried, and names the
scheduling causes that explain a slow setting (a task's ``iterations``, when given, is
its count for the call's arguments; else its constant ``range`` gives it). On the CPU a
parallel loop's ``[begin, end)`` is cut into chunks of ``block_dim`` iterations (about
four chunks per thread when unset) that ``parallelize`` threads (all of them when
unset) claim one at a time; one thread runs the loop inline, unchunked; a serialised
loop is a serial task that one thread runs. The rules:

- a serialised loop: one thread runs every iteration;
- one thread (``parallelize=1``, or a one-thread pool): the other cores stay idle;
- chunks of a few iterations (with several threads): claiming a chunk costs about as
  much as running it; when the setting's median time is given, also any chunk count
  whose claims (:data:`CLAIM_S` each, an atomic on a counter the cores share) add up to
  a fifth of that time or more;
- fewer chunks than threads (``block_dim`` large for the range, or a range smaller than
  the thread count): some threads get no work.

The tuner shows these for points more than twice as slow as the best one. Tasks may be
``Task`` objects or dicts (the report's ``to_dict`` form).

    >>> task = {"kind": "range_for", "range": (0, 4096), "loop_config": {"block_dim": 4}}
    >>> [r.tag for r in slow_reasons([task], threads=8)]
    ['tiny chunks']
    >>> print(slow_reasons([task], threads=8)[0].text)
    block_dim=4: 1024 chunks of 4 iterations; claiming a chunk costs about as much as running it
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

__all__ = ["MIN_CHUNK", "Reason", "slow_reasons", "reasons_against_best"]

# A chunk below this many iterations costs about as much to claim (an atomic on a shared
# counter, a cache line moving between cores) as a simple loop body spends on it.
MIN_CHUNK = 64
# What handing out one chunk costs with the counter's line moving between two cores: the
# 4M-element saxpy here lost 0.1-0.3 us per chunk (65,536 chunks of 64 ran 7-9x the best,
# 4,096 chunks of 1,024 about 2x), so the middle of that range.
CLAIM_S = 200e-9
CLAIM_SHARE = 0.2  # claims adding up to this share of the time explain a slow point


@dataclasses.dataclass(frozen=True)
class Reason:
    """One cause: ``tag`` is the plot's short label, ``text`` the table's sentence.

    >>> Reason("one thread", "parallelize=1: one thread runs the loop").tag
    'one thread'
    """

    tag: str
    text: str


def _get(task: object, name: str) -> object:
    if isinstance(task, Mapping):
        return task.get(name)
    return getattr(task, name, None)


def _iterations(task: object) -> int | None:
    """The task's iteration count: ``iterations`` where given (``ti.profiler.counted_work``
    evaluates bounds with the call's arguments), else its constant ``range``."""
    counted = _get(task, "iterations")
    if isinstance(counted, int):
        return counted
    span = _get(task, "range")
    if span and all(isinstance(end, int) for end in span):
        return max(0, span[1] - span[0])
    return None


@dataclasses.dataclass(frozen=True)
class _Schedule:
    """How the CPU runs one parallel task: the threads it uses and the chunks it hands out."""

    parallelize: int | None
    used: int  # threads
    iterations: int | None  # None: bounds known only at run time
    block: int | None

    @classmethod
    def of(cls, task: object, threads: int) -> _Schedule:
        config = _get(task, "loop_config") or {}
        parallelize = config.get("parallelize")
        used = max(1, min(threads, parallelize) if parallelize else threads)
        return cls(parallelize, used, _iterations(task), config.get("block_dim"))

    @property
    def chunks(self) -> int | None:
        """Chunks of ``block_dim`` iterations (about four per thread when unset); None
        when the size is unknown or one thread runs the loop inline, unchunked."""
        if not self.iterations or self.used == 1:
            return None
        if self.block:
            return math.ceil(self.iterations / self.block)
        return min(self.iterations, 4 * self.used)


def slow_reasons(
    tasks: Sequence[object],
    threads: int,
    options: Mapping[str, object] | None = None,
    seconds: float | None = None,
) -> list[Reason]:
    """The causes the report shows for a slow setting, each named once, in task order.

    ``threads`` is the pool's thread count; ``options`` the setting tried (its
    ``serialize`` says whether a serial task is a loop that was serialised); ``seconds``
    its median time per call, when known.

        >>> serial = [{"kind": "serial", "range": None, "loop_config": {}}]
        >>> [r.tag for r in slow_reasons(serial, 8, {"serialize": True})]
        ['serialised']
        >>> slow_reasons(serial, 8, {"serialize": False})  # a kernel's plain serial code
        []
    """
    options = options or {}
    found: dict[str, Reason] = {}

    def add(reason: Reason) -> None:
        found.setdefault(reason.tag, reason)

    for task in tasks:
        if _get(task, "kind") == "serial":
            if options.get("serialize"):
                add(Reason("serialised", "serialize=True: one thread runs the whole loop"))
            continue
        plan = _Schedule.of(task, threads)
        if plan.used == 1:
            why = (
                f"parallelize={plan.parallelize}"
                if plan.parallelize == 1
                else f"{threads} thread pool"
            )
            add(Reason("one thread", f"{why}: one thread runs the loop, other cores idle"))
        chunks, block, iterations = plan.chunks, plan.block, plan.iterations
        if chunks is None:
            continue  # bounds known only at run time; one thread runs inline, unchunked
        if block and block >= MIN_CHUNK and seconds and chunks * CLAIM_S >= CLAIM_SHARE * seconds:
            add(
                Reason(
                    "many chunks",
                    f"block_dim={block}: {chunks} chunks of about "
                    f"{seconds / chunks * 1e6:.2g} us each; handing one out costs "
                    "0.1-0.3 us (an atomic on a counter the cores share), a good part of it",
                )
            )
        if block and block < MIN_CHUNK and iterations > block:
            add(
                Reason(
                    "tiny chunks",
                    f"block_dim={block}: {chunks} chunks of {block} iterations; claiming a "
                    "chunk costs about as much as running it",
                )
            )
        if chunks < plan.used:
            cause = f"block_dim={block}" if block else f"{iterations} iterations"
            idle = plan.used - chunks
            add(
                Reason(
                    "idle threads",
                    f"{cause}: the loop's {iterations} iterations make {chunks} "
                    f"chunk{'s' if chunks != 1 else ''} for {plan.used} threads; "
                    f"{idle} thread{'s' if idle != 1 else ''} get no work",
                )
            )
    return list(found.values())


def _schedule(tasks: Sequence[object], threads: int) -> tuple[int, int]:
    """(threads used, chunks handed out) over the parallel tasks whose size is known."""
    plans = [_Schedule.of(t, threads) for t in tasks if _get(t, "kind") != "serial"]
    used = max([1, *(p.used for p in plans)])
    return used, sum(p.chunks or 0 for p in plans)


def reasons_against_best(
    tasks: Sequence[object],
    threads: int,
    options: Mapping[str, object],
    seconds: float | None,
    best_tasks: Sequence[object],
    best_options: Mapping[str, object],
) -> list[Reason]:
    """The causes of :func:`slow_reasons` that can explain why this setting is slower
    than the best one: a cause the best setting has as much of is no explanation (the
    best setting with more, smaller chunks cannot be slow for its chunks).

        >>> tiny = [{"kind": "range_for", "range": (0, 4096), "loop_config": {"block_dim": 16}}]
        >>> some = [{"kind": "range_for", "range": (0, 4096), "loop_config": {"block_dim": 64}}]
        >>> [r.tag for r in reasons_against_best(tiny, 2, {}, 1e-3, some, {})]
        ['tiny chunks']
        >>> reasons_against_best(some, 2, {}, 1e-3, tiny, {})  # more chunks in the best one
        []
    """
    mine = slow_reasons(tasks, threads, options, seconds)
    used, chunks = _schedule(tasks, threads)
    best_used, best_chunks = _schedule(best_tasks, threads)
    best_serial = bool(best_options.get("serialize"))
    kept = []
    for reason in mine:
        if reason.tag == "one thread" and best_used == 1:
            continue
        if reason.tag == "serialised" and best_serial:
            continue
        if reason.tag in ("tiny chunks", "many chunks") and chunks <= best_chunks:
            continue
        if reason.tag == "idle threads" and (used, chunks) >= (best_used, best_chunks):
            continue
        kept.append(reason)
    return kept
