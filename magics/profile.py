"""``%%kernel --profile``: wall-clock times of the kernel launches a cell makes.

ti_notebook has no kernel profiler yet, so this one times launches from Python: while the
cell runs, every ``ti.Kernel`` call is timed (``time.perf_counter`` around the call, so
argument packing and the launch itself are included). A launch that would compile first
is compiled before its timer starts, so compile time is never counted. The table lists,
per kernel, the launches, total, mean, min and max.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def add(a: ti.i32, b: ti.i32) -> ti.i32:
    ...     return a + b
    >>> with LaunchTimer() as timer:
    ...     _ = add(1, 2), add(3, 4)
    >>> timer.rows()[0][:2]
    ('add', 2)
"""

from __future__ import annotations

import contextlib
import time

import ti_notebook as ti


class LaunchTimer:
    """Context manager: times every kernel launch inside it (not thread-safe: one cell)."""

    def __init__(self) -> None:
        self._times: dict[int, tuple[str, list[float]]] = {}
        self._original = None

    def __enter__(self) -> LaunchTimer:
        original = ti.Kernel.__call__
        times = self._times

        def timed_call(kernel, *args, **kwargs):
            if not kwargs:
                # Compile (or find) the specialisation untimed; an error is raised again
                # by the call below, located at the kernel.
                with contextlib.suppress(ti.errors.TiError):
                    kernel.stages(*args)
            started = time.perf_counter()
            try:
                return original(kernel, *args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                times.setdefault(id(kernel), (kernel.name, []))[1].append(elapsed)

        self._original = original
        ti.Kernel.__call__ = timed_call
        return self

    def __exit__(self, *exc_info) -> None:
        ti.Kernel.__call__ = self._original

    def rows(self) -> list[tuple[str, int, float, float, float, float]]:
        """(name, launches, total, mean, min, max) per kernel, seconds, in first-use order."""
        out = []
        for name, samples in self._times.values():
            total = sum(samples)
            out.append(
                (name, len(samples), total, total / len(samples), min(samples), max(samples))
            )
        return out

    def table(self) -> str:
        """The rows as a fixed-width text table (times in ms)."""
        rows = self.rows()
        if not rows:
            return "profile: no kernel was launched in this cell"
        width = max(6, *(len(r[0]) for r in rows))
        header = (
            f"{'kernel':<{width}}  {'launches':>8}  {'total ms':>10}  {'mean ms':>10}  "
            f"{'min ms':>10}  {'max ms':>10}"
        )
        lines = ["profile (wall clock per launch, compile time excluded):", header]
        for name, count, total, mean, low, high in rows:
            lines.append(
                f"{name:<{width}}  {count:>8}  {total * 1e3:>10.3f}  {mean * 1e3:>10.3f}  "
                f"{low * 1e3:>10.3f}  {high * 1e3:>10.3f}"
            )
        return "\n".join(lines)
