"""A sample of times, summarised the one way ti_notebook shows timings.

The median (robust to the odd slow run), the interquartile range (where the middle half
of the samples lie: a spread that one outlier cannot stretch, unlike min-max), and the
outliers by Tukey's rule (beyond 1.5 interquartile ranges from the quartiles), which are
marked, never dropped silently: they stay in ``samples``.

    >>> s = Summary.of([1.0, 1.1, 1.2, 1.3, 9.0])
    >>> s.median, s.q1, s.q3, s.n, s.outliers
    (1.2, 1.1, 1.3, 5, (4,))
    >>> round(s.iqr, 6), s.describe("ms")
    (0.2, 'median 1.2 ms, IQR 1.1-1.3 ms, 5 samples, 1 outlier')
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable

__all__ = ["Summary", "quartiles"]

TUKEY_FENCE = 1.5  # interquartile ranges beyond a quartile that make a sample an outlier


def quartiles(samples: Iterable[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile), linear interpolation between order
    statistics (NumPy's default), so a sample of one gives the value three times.

        >>> quartiles([4.0, 1.0, 3.0, 2.0])
        (1.75, 2.5, 3.25)
    """
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples to summarise")

    def at(fraction: float) -> float:
        position = fraction * (len(ordered) - 1)
        low = math.floor(position)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    return at(0.25), statistics.median(ordered), at(0.75)


@dataclasses.dataclass(frozen=True)
class Summary:
    """Median, quartiles and outliers of ``samples`` (in the order they were taken)."""

    samples: tuple[float, ...]
    median: float
    q1: float
    q3: float
    outliers: tuple[int, ...]  # indices into ``samples``

    @classmethod
    def of(cls, samples: Iterable[float]) -> Summary:
        """The summary of at least one sample."""
        values = tuple(float(v) for v in samples)
        q1, median, q3 = quartiles(values)
        fence = TUKEY_FENCE * (q3 - q1)
        outside = tuple(k for k, v in enumerate(values) if v < q1 - fence or v > q3 + fence)
        return cls(values, median, q1, q3, outside)

    @property
    def n(self) -> int:
        """How many samples were taken (outliers included)."""
        return len(self.samples)

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    @property
    def low(self) -> float:
        """The lowest sample that is not an outlier (the lower whisker's end)."""
        return min(v for k, v in enumerate(self.samples) if k not in self.outliers)

    @property
    def high(self) -> float:
        """The highest sample that is not an outlier (the upper whisker's end)."""
        return max(v for k, v in enumerate(self.samples) if k not in self.outliers)

    def scaled(self, factor: float) -> Summary:
        """The same summary in other units (``factor`` times every value).

        >>> Summary.of([1e-3, 2e-3, 3e-3]).scaled(1e3).median
        2.0
        """
        return Summary(
            tuple(v * factor for v in self.samples),
            self.median * factor,
            self.q1 * factor,
            self.q3 * factor,
            self.outliers,
        )

    def describe(self, unit: str = "s") -> str:
        """One line: ``median 1.2 ms, IQR 1.1-1.3 ms, 5 samples, 1 outlier``."""
        outliers = len(self.outliers)
        marked = f", {outliers} outlier{'s' if outliers != 1 else ''}" if outliers else ""
        return (
            f"median {_short(self.median)} {unit}, IQR {_short(self.q1)}-{_short(self.q3)}"
            f" {unit}, {self.n} sample{'s' if self.n != 1 else ''}{marked}"
        )


def _short(value: float) -> str:
    """Three significant figures, no exponent for everyday values."""
    return f"{value:.3g}"
