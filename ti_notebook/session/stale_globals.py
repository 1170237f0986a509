"""Globals a kernel read when it compiled, checked again when it is called.

A kernel bakes the global scalars (and small NumPy arrays) it reads into its code:
``SCALE = 2``, compile, then ``SCALE = 10`` leaves the kernel multiplying by 2 - as in
Taichi, but in a notebook, where cells run in any order, that is silent and surprising.
So a kernel remembers the global numbers it read (``(name, value)``; an array's values
as a copy, compared on each call) and, when called, says once per name that one has
changed::

    scaled captured SCALE = 2 at compile time; it is now 10: re-run the cell to recompile

(outside a notebook: "define the kernel again to recompile"). The check is one dict
read per watched name per call; a kernel that read no global number pays one ``if``.

    >>> import types
    >>> func = types.FunctionType((lambda: SCALE).__code__, {"SCALE": 2})
    >>> watch = watched(func, {("<kernel>", "SCALE"): 2, ("<kernel>", "ti"): None})
    >>> watch
    (('SCALE', 2),)
    >>> func.__globals__["SCALE"] = 10
    >>> changed(func, watch)
    [('SCALE', 2, 10)]
"""

from __future__ import annotations

import sys

import numpy as np

KERNEL_SCOPE = "<kernel>"  # frontend/recorder.py's name for the kernel's own names
_NUMBERS = (bool, int, float, complex, np.number, np.bool_)
# A NumPy array a kernel reads is baked in too (frontend/numpy_globals.py); its values
# are copied when it compiles and compared on each call, so only small ones are watched.
_WATCHED = (*_NUMBERS, np.ndarray)
_ARRAY_LIMIT = 1024


def watched(func, captured: dict) -> tuple:
    """The ``(name, value)`` pairs of global numbers ``func`` read while compiling."""
    names = func.__globals__
    pairs = []
    for (scope, path), value in captured.items():
        if scope != KERNEL_SCOPE or "." in path or not isinstance(value, _WATCHED):
            continue
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject or value.size > _ARRAY_LIMIT:
                continue
            if names.get(path, _GONE) is value:  # its values now: it may change in place
                pairs.append((path, value.copy()))
        elif names.get(path, _GONE) is value:  # a global (not a closure cell or builtin)
            pairs.append((path, value))
    return tuple(pairs)


_GONE = object()


def changed(func, watch: tuple) -> list:
    """``(name, then, now)`` for each watched global whose value is not the one read."""
    names = func.__globals__
    found = []
    for name, then in watch:
        now = names.get(name, _GONE)
        if now is not then and not _same(now, then):
            found.append((name, then, now))
    return found


def _same(now, then) -> bool:
    if isinstance(then, np.ndarray):  # a copy of the array read: compare the values
        return (
            isinstance(now, np.ndarray)
            and now.dtype == then.dtype
            and now.shape == then.shape
            and bool(np.array_equal(now, then))
        )
    try:
        return type(now) is type(then) and bool(now == then)
    except Exception:  # an array or an odd object: not the number that was read
        return False


def tell(kernel_name: str, func, stale: list) -> None:
    """Says, on stderr, which globals changed and what to do about it."""
    in_cell = "ipykernel_" in func.__code__.co_filename or func.__code__.co_filename.startswith(
        "<ipython-input"
    )
    remedy = "re-run the cell to recompile" if in_cell else "define the kernel again to recompile"
    for name, then, now in stale:
        shown = "(deleted)" if now is _GONE else repr(now)
        print(
            f"{kernel_name} captured {name} = {then!r} at compile time; it is now {shown}: "
            f"{remedy}",
            file=sys.stderr,
        )
