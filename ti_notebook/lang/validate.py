"""Checks of values users hand to the Python API (shapes, ``ti.init`` options).

Each check either returns the value in its canonical form or raises the
``ti_notebook.errors`` class matching the built-in one, with a message naming what was
wrong and how to write it instead: a silently truncated ``2.5`` or an option of the wrong
type would otherwise surface much later as a wrong result.

    >>> extents((4, 2), "ti.field shape")
    (4, 2)
    >>> extents(2.5, "ti.field shape")
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiTypeError: ti.field shape: 2.5 is not an integer
    hint: extents are whole numbers, e.g. shape=(4, 4)
"""

from __future__ import annotations

import operator
import os

from ti_notebook.errors import TiTypeError, TiValueError


def extent(value, what: str) -> int:
    """One positive integer extent (Python or NumPy integers; not bool, not float)."""
    if isinstance(value, bool):
        raise TiTypeError(f"{what}: {value!r} is not an integer", hint=_EXTENT_HINT)
    try:
        number = operator.index(value)
    except TypeError:
        raise TiTypeError(f"{what}: {value!r} is not an integer", hint=_EXTENT_HINT) from None
    if number <= 0:
        raise TiValueError(f"{what}: extents must be positive, got {number}", hint=_EXTENT_HINT)
    return number


_ARTICLE = {bool: "a", int: "an", float: "a", str: "a"}
_EXTENT_HINT = "extents are whole numbers, e.g. shape=(4, 4)"


def extents(values, what: str) -> tuple[int, ...]:
    """A shape: an integer or a tuple/list of integers, each positive."""
    if isinstance(values, (tuple, list)):
        return tuple(extent(v, what) for v in values)
    return (extent(values, what),)


def option(name: str, value, expected: type):
    """A ``ti.init`` option of the type its default has (bool, int, float, str)."""
    if expected is bool:
        ok = isinstance(value, bool)
    elif expected is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif expected is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif expected is str:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        ok = isinstance(value, str)
    else:
        return value
    if not ok:
        example = {bool: "True", int: "0", float: "1.0", str: "'...'"}[expected]
        raise TiTypeError(
            f"ti.init({name}={value!r}): {name} must be {_ARTICLE[expected]} {expected.__name__}, "
            f"got {type(value).__name__}",
            hint=f"e.g. ti.init({name}={example})",
        )
    return value
