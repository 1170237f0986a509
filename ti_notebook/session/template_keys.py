"""Keys of template specialisations: what makes two ``ti.template()`` values the same.

A kernel keeps one compiled specialisation per key (``Kernel._compiled``):

- numbers, strings, types and other hashable values with value semantics: their type
  and value (``0.0`` and ``-0.0`` apart: they compile to different constants);
- tuples and lists: their items' keys, in order (a tuple of fields, a list of weights);
- ``ti.Vector``/``ti.Matrix`` values: their element type and items;
- fields, SNodes, functions, funcs, modules, classes, ``@ti.data_oriented`` instances
  and other objects compared by identity: the object itself, through a weak
  reference. A bare ``id()`` would be wrong: once the object dies, a new one can get
  its id and run the dead one's code on memory that is no longer its own. The weak
  reference's key never equals anything once its object is dead, and the kernel drops
  the specialisation then (no leak);
- dicts, sets and other unhashable values: a ``TiTypeError`` naming the argument.

    >>> a, b = template_key((1, 2.0), None), template_key([1, 2.0], None)
    >>> a == template_key((1, 2.0), None), a == b
    (True, False)
    >>> def f():
    ...     pass
    >>> template_key(f, None) == template_key(f, None)
    True
"""

from __future__ import annotations

import weakref

import numpy as np

from ti_notebook.errors import TiTypeError
from ti_notebook.lang.data_oriented import is_data_oriented
from ti_notebook.lang.matrix import Matrix
from ti_notebook.lang.snode import SNode


class Identity:
    """Keys an object by identity without keeping it alive (see the module docstring)."""

    __slots__ = ("ref", "hash")

    def __init__(self, value, on_death) -> None:
        self.ref = weakref.ref(value, on_death)
        self.hash = id(value)  # fixed while it lives; when dead, nothing is equal to it

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        target = self.ref()
        return target is not None and target is other.ref()

    def alive(self) -> bool:
        return self.ref() is not None


class Unkeyable(Exception):
    """A template value that can be neither compared by value nor by identity."""


def template_key(value, on_death):
    """The specialisation key of one template value; ``on_death(ref)`` is called when an
    object keyed by identity dies. Raises ``Unkeyable`` for dicts, sets and the like."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(template_key(v, on_death) for v in value))
    if isinstance(value, (float, np.floating)):
        return (type(value).__name__, repr(value))  # 0.0 and -0.0 are equal but differ
    if isinstance(value, Matrix):  # a ti.Vector: its type and items (== is element-wise)
        entries = value.entries
        return ("Matrix", repr(value._spec), entries.shape, entries.dtype.str, entries.tobytes())
    kind = type(value)
    # SNode: == is `is`; a data-oriented object is its own specialisation (Taichi keys
    # it by a weak reference too), whatever its class says about equality
    if kind.__eq__ is object.__eq__ or isinstance(value, SNode) or is_data_oriented(value):
        try:
            return Identity(value, on_death)
        except TypeError:  # no weak references (a __slots__ class): held, never confused
            return ("object", value)
    try:
        hash(value)
    except TypeError:
        raise Unkeyable(kind.__name__) from None
    return (kind.__qualname__, value)


def key_or_error(value, on_death, argument: str, kernel: str):
    """``template_key`` with the user-facing error for values that have no key."""
    try:
        return template_key(value, on_death)
    except Unkeyable as what:
        raise TiTypeError(
            f"template argument '{argument}' of kernel '{kernel}' is a {what}, which can be "
            "neither compared by value nor by identity",
            hint="pass a tuple or list of numbers, fields or functions, or read the "
            f"{what} in Python and pass the values the kernel needs",
        ) from None


def dead(key) -> bool:
    """Whether a specialisation key holds an object that has died."""
    if isinstance(key, Identity):
        return not key.alive()
    if isinstance(key, tuple):
        return any(dead(part) for part in key)
    return False
