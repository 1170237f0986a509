"""Timing and result checks shared by every peer.

A figure is the median and the minimum of several synchronised runs after a warm-up;
a launch figure is the per-call time of batches of thousands of calls. Each workload
first checks one result against NumPy: a fast wrong answer is not a figure.

    >>> timer = Timer()
    >>> sorted(timer.figure(lambda: sum(range(100))))
    ['median', 'min', 'runs']
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np


class WrongResult(AssertionError):
    """A workload computed something other than NumPy's answer."""


class Timer:
    """Times callables; ``sync`` (e.g. ``ti.sync``) runs after each timed call, if given."""

    def __init__(self, sync: Callable[[], object] | None = None) -> None:
        self.sync = sync or (lambda: None)

    def figure(self, fn: Callable[[], object], setup: Callable[[], object] | None = None) -> dict:
        """{"median", "min"} seconds of ``fn()``; ``setup()`` runs untimed before each.

        The caller has already run ``fn`` once (compile and check). One more untimed probe
        warms caches and decides the number of runs: 9, or 5 / 3 for slow workloads.
        """

        def once() -> float:
            if setup is not None:
                setup()
                self.sync()
            start = time.perf_counter()
            fn()
            self.sync()
            return time.perf_counter() - start

        probe = once()
        runs = 9 if probe < 0.1 else 5 if probe < 0.5 else 3
        samples = [once() for _ in range(runs)]
        return {"median": statistics.median(samples), "min": min(samples), "runs": runs}

    def per_call(
        self, fn: Callable[..., object], *args: object, calls: int = 5000, batches: int = 9
    ) -> dict:
        """{"median", "min"} seconds per call of ``fn(*args)`` over batches of ``calls``."""
        for _ in range(100):
            fn(*args)
        self.sync()
        samples = []
        for _ in range(batches):
            start = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            self.sync()
            samples.append((time.perf_counter() - start) / calls)
        return {"median": statistics.median(samples), "min": min(samples), "runs": batches}


def attempt(fn: Callable[..., dict], *args: object) -> dict:
    """``fn(*args)``, or {"error": one line} if it raises: one failing row keeps the others."""
    try:
        return fn(*args)
    except Exception as exc:
        return {"error": one_line(exc)}


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message``, for the table."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".strip()


def na(reason: str) -> dict:
    """A row a peer cannot express."""
    return {"na": reason}


def check(what: str, got, want, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Raises :class:`WrongResult` unless ``got`` matches ``want`` within the tolerances."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise WrongResult(f"wrong result ({what}): shape {got.shape}, expected {want.shape}")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        err = np.abs(got - want)
        where = np.unravel_index(int(np.argmax(err)), err.shape) if err.ndim else ()
        raise WrongResult(
            f"wrong result ({what}): at {tuple(int(i) for i in where)} got "
            f"{got[where]:.6g}, expected {want[where]:.6g}"
        )
