"""Environment drift and determinism, applied to both runs of an example alike.

- **Drift**: libraries newer than the examples. matplotlib 3.9 removed ``cm.get_cmap``
  (``simulation/euler.py`` calls it); :func:`apply_drift_shims` puts it back, only
  for an example whose source uses it.
- **Clock**: an example that feeds wall time into its simulation
  (``simulation/initial_value_problem.py``, ``algorithm/marching_squares.py``) would
  differ from run to run. :func:`rewrite_clock` turns its ``time.time()``,
  ``time.time_ns()``, ``time.perf_counter()`` and ``time.monotonic()`` into a
  :class:`FrameClock` that advances 1/60 s per frame shown.

>>> rewrite_clock("t0 = time.perf_counter()\\nx = my_time.time()")
't0 = __compat_clock__.perf_counter()\\nx = my_time.time()'
>>> clock = FrameClock(frames_shown=lambda: 6)
>>> round(clock.perf_counter() - FrameClock.PERF_BASE, 6)
0.1
"""

from __future__ import annotations

import re
from collections.abc import Callable

CLOCK_NAME = "__compat_clock__"
_CLOCK_CALL = re.compile(r"(?<![\w.])time\.(time|time_ns|perf_counter|monotonic)\(\)")


class FrameClock:
    """Time that advances with the frames shown, the same in every run."""

    EPOCH = 1_700_000_000.0  # an ordinary-looking wall-clock value
    PERF_BASE = 1000.0
    FRAME_S = 1 / 60

    def __init__(self, frames_shown: Callable[[], int]):
        self.frames_shown = frames_shown

    def _elapsed(self) -> float:
        return self.frames_shown() * self.FRAME_S

    def time(self) -> float:
        return self.EPOCH + self._elapsed()

    def time_ns(self) -> int:
        return int(round(self.time() * 1e9))

    def perf_counter(self) -> float:
        return self.PERF_BASE + self._elapsed()

    monotonic = perf_counter


def rewrite_clock(source: str) -> str:
    """``time.<clock>()`` calls -> ``__compat_clock__.<clock>()``; lines stay where they are."""
    return _CLOCK_CALL.sub(rf"{CLOCK_NAME}.\1()", source)


def _get_cmap_shim() -> str | None:
    """``matplotlib.cm.get_cmap`` again (removed in 3.9), from ``matplotlib.colormaps``."""
    import matplotlib
    import matplotlib.cm

    if hasattr(matplotlib.cm, "get_cmap"):
        return None

    def get_cmap(name=None, lut=None):
        cmap = matplotlib.colormaps[name or matplotlib.rcParams["image.cmap"]]
        return cmap if lut is None else cmap.resampled(lut)

    matplotlib.cm.get_cmap = get_cmap
    return "matplotlib.cm.get_cmap (removed in matplotlib 3.9)"


# source trigger -> shim; a shim returns what it patched, or None when not needed
DRIFT_SHIMS: list[tuple[re.Pattern, Callable[[], str | None]]] = [
    (re.compile(r"\bget_cmap\("), _get_cmap_shim),
]


def apply_drift_shims(source: str) -> list[str]:
    """Applies the shims ``source`` needs; returns what each one patched."""
    applied = []
    for trigger, shim in DRIFT_SHIMS:
        if trigger.search(source):
            patched = shim()
            if patched:
                applied.append(patched)
    return applied
