"""``ti.static_print`` and ``ti.static_assert``: checks that run while compiling.

Inside a kernel both run once, when the kernel is traced (``frontend/static_checks.py``),
and leave no code behind; called from Python they print and check at once, as Taichi's do.

    >>> import ti_notebook as ti
    >>> ti.static_print("dim", 3)
    dim 3
    >>> ti.static_assert(3 > 2, "never raised")
    >>> ti.static_assert(2 > 3, "dim must be greater than 3")
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiAssertionError: dim must be greater than 3
"""

from __future__ import annotations

from ti_notebook.errors import TiAssertionError


def static_print(*args, **kwargs) -> None:
    """``print`` at compile time: in a kernel, once per compilation, not per launch."""
    print(*args, **kwargs)


def static_assert(cond, msg: str | None = None) -> None:
    """Raises :class:`~ti_notebook.errors.TiAssertionError` (an ``AssertionError``) with
    ``msg`` unless ``cond`` holds; in a kernel ``cond`` must be known at compile time."""
    if not cond:
        raise TiAssertionError(msg if msg is not None else "static assertion failed")
