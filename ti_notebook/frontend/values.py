"""Compile-time values the frontend juggles besides IR statements.

>>> v = Vector([1, 2])
>>> len(v), v[1]
(2, 2)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types

MISSING = object()  # no value (yet): a ti.func that has not returned, an unbound name


class Vector:
    """A small vector or matrix of scalar values (``shape`` (n,) or (n, m), row-major)."""

    def __init__(self, items: list, shape: tuple[int, ...] | None = None) -> None:
        self.items = list(items)
        self.shape = tuple(shape) if shape is not None else (len(self.items),)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int):
        return self.items[index]

    def __iter__(self):
        return iter(self.items)

    def __repr__(self) -> str:
        return f"Vector({self.items})"

    def rows(self) -> list[list]:
        """The items row by row; a vector's rows have one item each.

        >>> Vector([1, 2, 3, 4], (2, 2)).rows(), Vector([1, 2]).rows()
        ([[1, 2], [3, 4]], [[1], [2]])
        """
        n, m = self.shape if len(self.shape) == 2 else (self.shape[0], 1)
        return [self.items[r * m : (r + 1) * m] for r in range(n)]


class VectorVariable:
    """A mutable local vector: one alloca per component."""

    def __init__(self, allocas: list[ir.AllocaStmt], shape: tuple[int, ...]) -> None:
        self.allocas = allocas
        self.shape = shape


class ComponentPointers:
    """The element pointers of a vector/matrix field at some indices, made on first use:
    ``v[i][k]`` on a field of 2,000 components needs one pointer, not 2,000."""

    def __init__(self, make, count: int) -> None:
        self.make, self.count = make, count
        self.made: dict[int, object] = {}

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k: int):
        if not -self.count <= k < self.count:
            raise IndexError(k)
        k %= self.count
        if k not in self.made:
            self.made[k] = self.make(k)
        return self.made[k]

    def __iter__(self):
        return (self[k] for k in range(self.count))


@dataclasses.dataclass
class Slots:
    """The assignable components of a vector/matrix target, row-major.

    ``items`` are global pointers (an element of a vector/matrix field) or allocas (a
    local vector); ``v[i][k]``, ``v[i].y`` and ``d[1]`` select from them.
    """

    items: list
    shape: tuple[int, ...]


@dataclasses.dataclass
class NdarrayArg:
    """A ``ti.types.ndarray()`` argument inside a kernel; ``ndim`` counts the indices a
    kernel gives (``a[i, j]``), ``element_shape`` the dimensions of its vector/matrix
    elements, which the array stores innermost (a vec3 ndarray of shape (h, w) is an
    (h, w, 3) NumPy array)."""

    arg_index: int
    dtype: types.DataType
    ndim: int
    name: str
    element_shape: tuple[int, ...] = ()


@dataclasses.dataclass
class BoundMethod:
    """``v.dot``: a method of a kernel vector, before the call supplies its arguments."""

    value: Vector
    name: str


@dataclasses.dataclass(frozen=True)
class MatrixConstructor:
    """``ti.Matrix.zero``, ``ti.Vector.unit``...: a kernel-scope constructor named on the
    class, before the call supplies its arguments (``frontend/matrix_constructors.py``)."""

    name: str  # Taichi's ti.Vector.<name> is ti.Matrix.<name>: one marker for both


@dataclasses.dataclass
class DynamicSlot:
    """One component of a local vector/matrix chosen by a value known only when the
    kernel runs (``v[i] = x``): ``index`` (an i32 statement) picks one of ``choices``,
    the slots it may name (``frontend/dynamic_index.py``)."""

    choices: list
    index: ir.Stmt


@dataclasses.dataclass
class LoopIndex:
    """A loop variable: read-only inside the loop body."""

    stmt: ir.Stmt
