"""The timeline's visible time range: where it starts and ends, what its zero is, which
unit its axis uses, and how zooming and panning move it.

Times are the profiler's clock (``CLOCK_MONOTONIC`` nanoseconds), so a window can be
compared with any launch or task directly. The axis shows them in the unit that suits
the window's width (µs below 2 ms, ms below 2 s, else s), counted from ``origin_ns``,
which is the start of the launch in focus, the first event of the session, or the
window's own start, and the axis label says which.

    >>> w = around(10_000, 14_000, origin_ns=10_000, origin="the start of f #0")
    >>> w.unit, round(w.start, 3), round(w.end, 3)
    ('µs', -0.4, 4.4)
    >>> w.label
    'µs from the start of f #0'
    >>> w.zoomed(ZOOM_STEP).width_ns == w.width_ns / ZOOM_STEP
    True
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "MARGIN",
    "MIN_WIDTH_NS",
    "PAN_STEP",
    "ZOOM_STEP",
    "TimeWindow",
    "around",
    "pick_unit",
]

# a launch or task in focus fills 10/12 of the window: its ends stay visible
MARGIN = 0.1
# narrower than this the profiler's own clock (ns, but ~100 ns overhead per read) says
# nothing useful, and the zoom slider needs a finite lower end
MIN_WIDTH_NS = 1_000.0
# each zoom button press divides or multiplies the width by this
ZOOM_STEP = 4.0
# each pan button press moves the window by this fraction of its width
PAN_STEP = 0.25

_UNITS = (("µs", 1e3), ("ms", 1e6), ("s", 1e9))


def pick_unit(width_ns: float) -> tuple[str, float]:
    """The axis unit for a window this wide, and nanoseconds per unit: the largest unit
    in which the width is at least 2 (so tick labels stay short and never all ``0.0``).

    >>> pick_unit(5_000), pick_unit(40e6), pick_unit(3e9)
    (('µs', 1000.0), ('ms', 1000000.0), ('s', 1000000000.0))
    """
    chosen = _UNITS[0]
    for unit in _UNITS:
        if width_ns >= 2 * unit[1]:
            chosen = unit
    return chosen


@dataclasses.dataclass(frozen=True)
class TimeWindow:
    """A visible time range on the profiler clock, with the zero of its axis.

    ``start``/``end`` are the ends in ``unit`` counted from ``origin_ns``; ``origin``
    says in words what that zero is (used in the axis label).

    >>> w = TimeWindow(2_000_000, 7_000_000, origin_ns=2_000_000, origin="the first event")
    >>> (w.unit, w.start, w.end, w.width_ns)
    ('ms', 0.0, 5.0, 5000000.0)
    """

    start_ns: float
    end_ns: float
    origin_ns: float
    origin: str

    @property
    def width_ns(self) -> float:
        return float(self.end_ns - self.start_ns)

    @property
    def centre_ns(self) -> float:
        return (self.start_ns + self.end_ns) / 2

    @property
    def unit(self) -> str:
        return pick_unit(self.width_ns)[0]

    @property
    def ns_per_unit(self) -> float:
        return pick_unit(self.width_ns)[1]

    @property
    def start(self) -> float:
        return self.to_unit(self.start_ns)

    @property
    def end(self) -> float:
        return self.to_unit(self.end_ns)

    @property
    def label(self) -> str:
        """The axis label: the unit and what the times count from."""
        return f"{self.unit} from {self.origin}"

    def to_unit(self, time_ns: float) -> float:
        """A profiler-clock time as a position on this window's axis."""
        return (time_ns - self.origin_ns) / self.ns_per_unit

    def overlaps(self, start_ns: float, end_ns: float) -> bool:
        """Whether anything of ``[start_ns, end_ns]`` is visible."""
        return end_ns >= self.start_ns and start_ns <= self.end_ns

    def contains(self, start_ns: float, end_ns: float) -> bool:
        """Whether all of ``[start_ns, end_ns]`` is visible."""
        return self.start_ns <= start_ns and end_ns <= self.end_ns

    def with_width(self, width_ns: float, centre_ns: float | None = None) -> TimeWindow:
        """The same axis, ``width_ns`` wide (at least :data:`MIN_WIDTH_NS`) around
        ``centre_ns`` (default: this window's centre)."""
        centre = self.centre_ns if centre_ns is None else centre_ns
        half = max(width_ns, MIN_WIDTH_NS) / 2
        return dataclasses.replace(self, start_ns=centre - half, end_ns=centre + half)

    def zoomed(self, factor: float) -> TimeWindow:
        """``factor`` times narrower (``factor < 1``: wider), around the same centre."""
        return self.with_width(self.width_ns / factor)

    def panned(self, steps: float) -> TimeWindow:
        """Moved by ``steps`` times :data:`PAN_STEP` of its width (negative: earlier)."""
        shift = steps * PAN_STEP * self.width_ns
        return dataclasses.replace(self, start_ns=self.start_ns + shift, end_ns=self.end_ns + shift)

    def clamped(self, low_ns: float, high_ns: float) -> TimeWindow:
        """Moved (not resized) so that it stays within ``[low_ns, high_ns]``; a window
        wider than that range is centred on it."""
        if self.width_ns >= high_ns - low_ns:
            return self.with_width(self.width_ns, (low_ns + high_ns) / 2)
        shift = max(low_ns - self.start_ns, 0.0) + min(high_ns - self.end_ns, 0.0)
        return dataclasses.replace(self, start_ns=self.start_ns + shift, end_ns=self.end_ns + shift)


def around(start_ns: float, end_ns: float, *, origin_ns: float, origin: str) -> TimeWindow:
    """A window showing ``[start_ns, end_ns]`` with :data:`MARGIN` of its length on
    each side (and at least :data:`MIN_WIDTH_NS` wide).

    >>> w = around(0, 1e6, origin_ns=0, origin="the first event")
    >>> (w.start_ns, w.end_ns)
    (-100000.0, 1100000.0)
    """
    margin = MARGIN * max(end_ns - start_ns, 0)
    window = TimeWindow(float(start_ns - margin), float(end_ns + margin), origin_ns, origin)
    return window.with_width(window.width_ns)
