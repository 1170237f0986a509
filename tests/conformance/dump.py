"""The arrays an example holds at the end of its run: fields, ndarrays, NumPy arrays.

Starting from the example's globals (and the locals of its functions that were on the
stack when it showed its last frame), :func:`collect` follows lists, tuples, dicts and
the attributes of objects of the example's own classes (``@ti.data_oriented`` solvers)
down to :data:`MAX_DEPTH` levels. A field is recognised by its class, a ``Field``/
``Ndarray`` kind from the ``taichi`` or ``ti_notebook`` package, and read with
``to_numpy()``; struct fields give one array per member (``name.member``). An object
reached twice keeps its first name, so both runs name it alike.

>>> import numpy as np
>>> class Solver:
...     pass
>>> Solver.__module__ = "__main__"
>>> solver = Solver()
>>> solver.levels = [np.zeros(2), np.ones(3)]
>>> arrays, errors = collect([("solver", solver), ("alias", solver.levels[0])])
>>> sorted(arrays), errors
(['solver.levels[0]', 'solver.levels[1]'], {})
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any

import numpy as np

MAX_DEPTH = 4
MAX_ITEMS = 256  # longer lists and dicts are data, not containers of fields
MAX_ELEMENTS = 1 << 26  # larger arrays are left out (with a note), to keep .npz files sane
FIELD_CLASSES = {
    "Field",
    "ScalarField",
    "MatrixField",
    "StructField",
    "Ndarray",
    "NDArray",
    "ScalarNdarray",
    "VectorNdarray",
    "MatrixNdarray",
}
BACKEND_PACKAGES = {"taichi", "ti_notebook"}
EXAMPLE_MODULE = "__main__"


def is_field(value: Any) -> bool:
    """A field or ndarray of either backend (by class name and package)."""
    for cls in type(value).__mro__:
        if cls.__name__ in FIELD_CLASSES and cls.__module__.split(".")[0] in BACKEND_PACKAGES:
            return True
    return False


def cell_count(value: Any) -> int:
    """How many elements ``to_numpy()`` would allocate (shape times the element's size).

    Checked before reading: a sparse field's full shape can be far larger than memory.
    """
    count = int(np.prod(tuple(getattr(value, "shape", ()) or ()), dtype=np.int64))
    for attribute in ("n", "m"):  # vector and matrix fields: components per cell
        size = getattr(value, attribute, None)
        if isinstance(size, int) and size > 0:
            count *= size
    return count


def _is_example_object(value: Any) -> bool:
    cls = type(value)
    return cls.__module__ == EXAMPLE_MODULE and not isinstance(value, type)


def _skipped_global(name: str, value: Any) -> bool:
    if name.startswith("__") and name.endswith("__"):
        return True
    return isinstance(value, types.ModuleType | types.FunctionType | type)


class _Collector:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.errors: dict[str, str] = {}
        self.seen: set[int] = set()

    def add(self, name: str, array: Any) -> None:
        if isinstance(array, dict):  # a struct field's members
            for member, values in array.items():
                self.add(f"{name}.{member}", values)
            return
        array = np.asarray(array)
        if array.dtype == object:
            self.errors[name] = "to_numpy gave an object array"
        elif array.size > MAX_ELEMENTS:
            self.errors[name] = f"left out: {array.size} elements"
        else:
            self.arrays[name] = array

    def walk(self, name: str, value: Any, depth: int) -> None:
        if value is None or isinstance(value, str | bytes | int | float | bool | complex):
            return
        if id(value) in self.seen:
            return
        self.seen.add(id(value))
        if is_field(value):
            try:
                cells = cell_count(value)
                if cells > MAX_ELEMENTS:
                    self.errors[name] = f"left out: {cells} elements"
                    return
                self.add(name, value.to_numpy())
            except Exception as error:  # the backend's own failure, reported by name
                self.errors[name] = f"to_numpy failed: {type(error).__name__}: {error}"
            return
        if isinstance(value, np.ndarray):
            if value.dtype != object:
                self.add(name, value)
            return
        if depth >= MAX_DEPTH:
            return
        if isinstance(value, list | tuple) and len(value) <= MAX_ITEMS:
            for index, item in enumerate(value):
                self.walk(f"{name}[{index}]", item, depth + 1)
        elif isinstance(value, dict) and len(value) <= MAX_ITEMS:
            for key, item in value.items():
                if isinstance(key, str | int):
                    self.walk(f"{name}[{key!r}]", item, depth + 1)
        elif _is_example_object(value):
            for attribute, item in vars(value).items():
                if not attribute.startswith("__"):
                    self.walk(f"{name}.{attribute}", item, depth + 1)


def collect(roots: Iterable[tuple[str, Any]]) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(name -> array, name -> why it could not be read) for everything under ``roots``."""
    collector = _Collector()
    for name, value in roots:
        collector.walk(name, value, 0)
    return collector.arrays, collector.errors


def global_roots(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """The example's globals worth walking (no modules, functions, classes, dunders)."""
    return [(name, value) for name, value in namespace.items() if not _skipped_global(name, value)]


def local_roots(frames: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, Any]]:
    """``function:name`` roots from the locals of the example's functions."""
    roots = []
    for function, namespace in frames:
        for name, value in namespace.items():
            if not _skipped_global(name, value):
                roots.append((f"{function}:{name}", value))
    return roots
