"""GLSL swizzles of Python-scope vectors: ``v.x``, ``v.xy``, ``v.bgr``, ``v.stp = ...``.

As in Taichi, three letter groups name the components of a vector (``xyzw``,
``rgba``, ``stpq``); any pattern of one to four letters of one group reads a component
(one letter) or a new vector (several, repeats allowed), and assigning to it writes the
components. A letter past the vector's size is an ``AttributeError`` (so ``hasattr``
works), as is a swizzle of a matrix:

    >>> import ti_notebook as ti
    >>> v = ti.Vector([1.0, 2.0, 3.0])
    >>> v.z, v.zyx.tolist(), v.rg.tolist()
    (3.0, [3.0, 2.0, 1.0], [1.0, 2.0])
    >>> v.xy = (5, 6)
    >>> v.tolist(), hasattr(v, "w")
    ([5.0, 6.0, 3.0], False)
"""

from __future__ import annotations

import itertools

from ti_notebook.errors import TiAttributeError, TiValueError

GROUPS = ("xyzw", "rgba", "stpq")


def _check(value, pattern: str, group: str) -> list[int]:
    """The component indices ``pattern`` names in ``value``, or an AttributeError."""
    if len(value.shape) != 1:
        raise TiAttributeError(
            f"a {value.n}x{value.m} matrix has no '.{pattern}'",
            hint="swizzles name vector components; index a matrix as m[i, j]",
        )
    indices = [group.index(ch) for ch in pattern]
    if max(indices) >= value.n:
        raise TiAttributeError(
            f"a {value.n}-vector only has the components {tuple(group[: value.n])}, "
            f"not '.{pattern}'"
        )
    return indices


def _swizzle(pattern: str, group: str) -> property:
    def get(self):
        indices = _check(self, pattern, group)
        if len(indices) == 1:
            return self[indices[0]]
        return self._select(indices)

    def set(self, value) -> None:
        indices = _check(self, pattern, group)
        if len(indices) == 1:
            self[indices[0]] = value
            return
        items = list(value) if not hasattr(value, "tolist") else list(value.tolist())
        if len(items) != len(indices):
            raise TiValueError(
                f"'.{pattern}' names {len(indices)} components, got {len(items)} values"
            )
        for index, item in zip(indices, items, strict=True):
            self[index] = item

    return property(get, set, doc=f"The swizzle ``.{pattern}``.")


def add_swizzles(cls: type) -> type:
    """Class decorator: every swizzle of up to four letters as a property of ``cls``."""
    for group in GROUPS:
        for length in range(1, 5):
            for letters in itertools.product(group, repeat=length):
                pattern = "".join(letters)
                setattr(cls, pattern, _swizzle(pattern, group))
    return cls
