"""Two runs' arrays against each other: exact up to a tolerance, or statistically.

Keys are ``field/<name>``: what :mod:`.dump` found (what the examples draw is not
compared: Taichi's run draws into a headless stand-in). Modes:

- ``exact``: ``np.isclose(candidate, reference, rtol, atol)`` everywhere but for an
  allowed fraction of ``outliers`` (NaN equals NaN); the reason names the worst element;
- ``stat``: for examples that draw random numbers in kernels, whose generators differ
  between Taichi and ti_notebook (Taichi's own CPU runs differ too: its per-thread
  generators follow the thread schedule): the mean and standard deviation of the
  finite values agree within ``stat_tol`` of the array's scale or
  :data:`STAT_SIGMAS` standard errors, whichever is larger, and the non-finite counts
  match;
- ``run``: nothing is compared (the example only has to run).

An array only one run has is a mismatch with its name.

>>> import numpy as np
>>> reference = {"field/x": np.array([[0.0, 1.0], [2.0, 3.0]])}
>>> compare(reference, {"field/x": np.array([[0.0, 1.0], [2.0, 3.5]])}, Tolerance())[0].reason
'field x differs: max |diff| 0.5 at (1, 1) (Taichi 3, ti_notebook 3.5); 1 of 4 elements off'
>>> compare(reference, {}, Tolerance())[0].reason
"field x only in Taichi's run"
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from tests.conformance import settings

# kernels that draw random numbers: Taichi's and ti_notebook's generators differ
RANDOM_IN_KERNELS = re.compile(r"\bti\.(random|randn)\s*\(")
STAT_SIGMAS = 5.0  # standard errors of the mean (and of the std) allowed in "stat" mode
SIDES = ("Taichi", "ti_notebook")


@dataclass(frozen=True)
class Tolerance:
    """How two arrays are compared (see the module docstring)."""

    mode: str = "exact"
    rtol: float = settings.DEFAULT_RTOL
    atol: float = settings.DEFAULT_ATOL
    stat_tol: float = settings.DEFAULT_STAT_TOL
    outliers: float = 0.0  # fraction of elements allowed off in "exact" mode
    field_atol: tuple[tuple[str, float], ...] = ()  # (field name, atol): its own atol


@dataclass(frozen=True)
class Mismatch:
    """One array that differs, and the sentence that says how."""

    key: str
    reason: str


def tolerance_for(name: str, source: str) -> Tolerance:
    """The example's tolerance: its setting's, else ``stat`` when kernels draw random numbers.

    >>> tolerance_for("x", "a = ti.random(float)").mode
    'stat'
    """
    setting = settings.setting_for(name)
    mode = setting.mode or ("stat" if RANDOM_IN_KERNELS.search(source) else "exact")
    if mode not in settings.MODES:
        raise ValueError(f"{name}: mode must be one of {settings.MODES}, not {mode!r}")
    return Tolerance(
        mode=mode,
        rtol=setting.rtol if setting.rtol is not None else settings.DEFAULT_RTOL,
        atol=setting.atol if setting.atol is not None else settings.DEFAULT_ATOL,
        stat_tol=setting.stat_tol if setting.stat_tol is not None else settings.DEFAULT_STAT_TOL,
        outliers=setting.outliers,
        field_atol=setting.field_atol,
    )


def describe(key: str) -> str:
    """``field/x`` -> ``field x``; another kind keeps its own word (``array/y`` -> ``array y``)."""
    kind, _, name = key.partition("/")
    return f"{kind} {name}"


def _g(value: float) -> str:
    return f"{value:.3g}"


def _exact(label: str, a: np.ndarray, b: np.ndarray, tol: Tolerance) -> str | None:
    close = np.isclose(b, a, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    off = int((~close).sum())
    if off <= tol.outliers * close.size:
        return None
    diff = np.abs(a - b)
    diff[np.isnan(diff)] = np.inf  # NaN on one side only (or inf - inf)
    diff[close] = -1.0
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    where = f" at {tuple(int(i) for i in worst)}" if a.ndim else ""
    return (
        f"{label} differs: max |diff| {_g(diff[worst])}{where} "
        f"({SIDES[0]} {_g(a[worst])}, {SIDES[1]} {_g(b[worst])}); "
        f"{off} of {close.size} elements off"
    )


def _statistical(label: str, a: np.ndarray, b: np.ndarray, tol: Tolerance) -> str | None:
    finite_a, finite_b = a[np.isfinite(a)], b[np.isfinite(b)]
    if finite_a.size != finite_b.size:
        return (
            f"{label}: {a.size - finite_a.size} non-finite values in {SIDES[0]}, "
            f"{b.size - finite_b.size} in {SIDES[1]}"
        )
    if finite_a.size == 0:
        return None
    mean_a, mean_b = float(finite_a.mean()), float(finite_b.mean())
    std_a, std_b = float(finite_a.std()), float(finite_b.std())
    scale = max(abs(mean_a), abs(mean_b), std_a, std_b, tol.atol)
    # a small sample's mean and std move by draw: allow STAT_SIGMAS standard errors too
    spread = max(std_a, std_b) / math.sqrt(finite_a.size)
    mean_tol = max(tol.stat_tol * scale, STAT_SIGMAS * spread)
    std_tol = max(tol.stat_tol * scale, STAT_SIGMAS * spread / math.sqrt(2))
    if abs(mean_a - mean_b) <= mean_tol and abs(std_a - std_b) <= std_tol:
        return None
    return (
        f"{label} differs statistically: mean {_g(mean_a)} vs {_g(mean_b)}, "
        f"std {_g(std_a)} vs {_g(std_b)} (tolerance {_g(mean_tol)}, {_g(std_tol)})"
    )


def compare_one(key: str, a: np.ndarray, b: np.ndarray, tol: Tolerance) -> str | None:
    """Why ``b`` (ti_notebook) is not ``a`` (Taichi), or None when they agree."""
    label = describe(key)
    if a.shape != b.shape:
        return f"{label} has shape {a.shape} in {SIDES[0]}, {b.shape} in {SIDES[1]}"
    numeric = a.dtype.kind in "biuf" and b.dtype.kind in "biuf"
    if not numeric:
        if a.dtype.kind == b.dtype.kind and np.array_equal(a, b):
            return None
        return f"{label} differs: {a.ravel()[:3]!r}... vs {b.ravel()[:3]!r}..."
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    own = dict(tol.field_atol).get(key.partition("/")[2])
    if own is not None:
        tol = dataclasses.replace(tol, atol=own)
    if tol.mode == "stat":
        return _statistical(label, a64, b64, tol)
    return _exact(label, a64, b64, tol)


def compare(
    reference: Mapping[str, np.ndarray],
    candidate: Mapping[str, np.ndarray],
    tol: Tolerance,
    reference_errors: Mapping[str, str] | None = None,
    candidate_errors: Mapping[str, str] | None = None,
) -> list[Mismatch]:
    """Every key whose arrays disagree (or exist on one side only), in key order.

    ``*_errors`` (from :func:`.dump.collect`) say why a field could not be read.
    """
    if tol.mode == "run":
        return []
    errors = (reference_errors or {}, candidate_errors or {})
    mismatches = []
    for key in sorted(set(reference) | set(candidate)):
        if key in reference and key in candidate:
            reason = compare_one(key, np.asarray(reference[key]), np.asarray(candidate[key]), tol)
        else:
            missing_side = 1 if key in reference else 0
            name = key.partition("/")[2]
            why = errors[missing_side].get(name)
            if why:
                reason = f"{describe(key)}: {why} in {SIDES[missing_side]}"
            else:
                reason = f"{describe(key)} only in {SIDES[1 - missing_side]}'s run"
        if reason:
            mismatches.append(Mismatch(key, reason))
    return mismatches


def summarize(mismatches: list[Mismatch]) -> str:
    """The first mismatch's reason, and how many more there are."""
    if not mismatches:
        return ""
    more = f" (+{len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
    return mismatches[0].reason + more
