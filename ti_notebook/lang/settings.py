"""What the user's objects read of the session's configuration, and the one thing they tell it.

Fields, matrices, ndarrays, struct types and funcs resolve ``float``/``int`` by
``ti.init``'s ``default_fp``/``default_ip`` and copy to and from NumPy with the
session's host threads; destroying an SNode tree makes the kernels compiled against it
stale. The session (``session/config.py``) installs its configuration here with
:func:`install`, and :data:`generation` counts the changes that make compiled code stale,
so the objects read and signal both without importing the session, which imports the
compiler.

    >>> import ti_notebook as ti
    >>> from ti_notebook.lang import settings
    >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
    >>> settings.current().default_fp
    f64
    >>> before = settings.generation
    >>> ti.reset()  # a new session: code compiled before is stale
    >>> settings.generation > before, settings.current().default_fp
    (True, f32)
"""

from __future__ import annotations

from typing import Protocol

from ti_notebook.lang import types


class ObjectSettings(Protocol):
    """The part of the session's configuration the objects read."""

    default_fp: types.DataType
    default_ip: types.DataType

    @property
    def num_threads(self) -> int:
        """Host threads for copies between fields and NumPy arrays."""
        ...


_current: ObjectSettings | None = None
# Changes whenever compiled code may be stale: ti.init/ti.reset replaced the
# configuration, the profiler was switched, or an SNode tree was destroyed. Kernels
# compare it with the value they compiled under (read as a module attribute on the fast
# call path, hence a plain int).
generation = 0


def current() -> ObjectSettings:
    """The session's configuration as installed (the defaults before ``ti.init``)."""
    if _current is None:  # the package's import installs it: a module loaded by hand
        raise RuntimeError("no session configuration: import ti_notebook first")
    return _current


def install(settings: ObjectSettings) -> None:
    """Makes ``settings`` what :func:`current` returns (the session calls this)."""
    global _current
    _current = settings


def bump_generation() -> None:
    """Compiled kernels become stale (a tree they may use was destroyed, say)."""
    global generation
    generation += 1
