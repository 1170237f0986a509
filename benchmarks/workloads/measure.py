"""Timing and result checks shared by every peer.

Every figure is taken by ti_notebook's one timing protocol (``ti_notebook/measure``):
the first call apart, enough calls per sample to lie above the timer's resolution,
the median with the interquartile range and the number of samples. The protocol's two
modules are loaded from their files, without importing ti_notebook itself, so the
Taichi and Numba processes time exactly as the ti_notebook one does and load no second
compiler. Each workload first checks one result against NumPy: a fast wrong answer is
not a figure.

    >>> timer = Timer()
    >>> sorted(timer.figure(lambda: sum(range(100))))
    ['first_call', 'median', 'outliers', 'q1', 'q3', 'runs']
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

_MEASURE = Path(__file__).resolve().parents[2] / "ti_notebook" / "measure"
_PACKAGE = "_ti_notebook_measure"  # the protocol's folder as a package of its own


def _load_protocol():
    """``ti_notebook/measure/protocol.py`` (and the stats module it imports), by path."""
    if f"{_PACKAGE}.protocol" in sys.modules:
        return sys.modules[f"{_PACKAGE}.protocol"]
    package = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(_PACKAGE, loader=None, is_package=True)
    )
    package.__path__ = [str(_MEASURE)]
    sys.modules[_PACKAGE] = package
    for name in ("stats", "protocol"):
        spec = importlib.util.spec_from_file_location(f"{_PACKAGE}.{name}", _MEASURE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules[f"{_PACKAGE}.protocol"]


protocol = _load_protocol()


class WrongResult(AssertionError):
    """A workload computed something other than NumPy's answer."""


class Timer:
    """Times callables; ``sync`` (e.g. ``ti.sync``) runs after each timed call, if given."""

    def __init__(self, sync: Callable[[], object] | None = None) -> None:
        self.sync = sync or (lambda: None)

    def figure(self, fn: Callable[[], object], setup: Callable[[], object] | None = None) -> dict:
        """{"median", "q1", "q3", "runs", "outliers", "first_call"} seconds of ``fn()``.

        The caller has already run ``fn`` once (compile and check); ``setup()`` runs
        untimed before each sample. Slow workloads take fewer samples: 9, or 5 / 3 when
        one call takes 0.1 s / 0.5 s or more.
        """
        started = time.perf_counter()
        fn()
        self.sync()
        probe = time.perf_counter() - started
        rounds = 9 if probe < 0.1 else 5 if probe < 0.5 else 3
        candidate = protocol.Candidate("workload", fn, prepare=setup)
        timing = protocol.measure([candidate], rounds=rounds, warmup=0, sync=self.sync)[0]
        return _figure(timing)

    def per_call(self, fn: Callable[..., object], *args: object, batches: int = 9) -> dict:
        """The same figure per call of ``fn(*args)``: each sample a batch of calls
        lasting at least 5 ms (about 5,000 for a launch of a microsecond)."""
        for _ in range(100):
            fn(*args)
        self.sync()
        candidate = protocol.Candidate("call", lambda: fn(*args))
        timing = protocol.measure(
            [candidate], rounds=batches, warmup=0, sync=self.sync, min_sample_s=5e-3
        )[0]
        return _figure(timing)


def _figure(timing) -> dict:
    s = timing.summary
    return {
        "median": s.median,
        "q1": s.q1,
        "q3": s.q3,
        "runs": s.n,
        "outliers": len(s.outliers),
        "first_call": timing.first_call_s,
    }


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
