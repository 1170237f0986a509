"""Sets of byte ranges: which parts of a tree's host copy are stale or newer.

A CUDA device copy is kept coherent per field, not per tree (``runtime/cuda/memory.py``):
writing one scalar from Python must not move every other field of its tree. The ranges
are few (one per field the host touched), so a sorted list of disjoint, half-open
``[start, end)`` pairs is all it takes.

    >>> spans = ByteSpans([(0, 100)])
    >>> spans.remove(10, 20)
    >>> spans
    ByteSpans([(0, 10), (20, 100)])
    >>> spans.overlap(5, 30)
    [(5, 10), (20, 30)]
    >>> spans.add(10, 20); spans
    ByteSpans([(0, 100)])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["ByteSpans"]


class ByteSpans:
    """Disjoint, sorted ``[start, end)`` byte ranges; touching ranges are merged."""

    __slots__ = ("_spans",)

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._spans: list[tuple[int, int]] = []
        for start, end in spans:
            self.add(start, end)

    def add(self, start: int, end: int) -> None:
        """Includes ``[start, end)``, merging with the ranges it meets or touches."""
        if end <= start:
            return
        kept = []
        for a, b in self._spans:
            if b < start or a > end:
                kept.append((a, b))
            else:
                start, end = min(a, start), max(b, end)
        kept.append((start, end))
        kept.sort()
        self._spans = kept

    def remove(self, start: int, end: int) -> None:
        """Excludes ``[start, end)`` (splitting a range that straddles it)."""
        if end <= start:
            return
        kept = []
        for a, b in self._spans:
            if b <= start or a >= end:
                kept.append((a, b))
                continue
            if a < start:
                kept.append((a, start))
            if b > end:
                kept.append((end, b))
        self._spans = kept

    def overlap(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of ``[start, end)`` in the set."""
        return [(max(a, start), min(b, end)) for a, b in self._spans if a < end and b > start]

    def clear(self) -> None:
        self._spans = []

    def __bool__(self) -> bool:
        return bool(self._spans)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(list(self._spans))

    def __repr__(self) -> str:
        return f"ByteSpans({self._spans})"
