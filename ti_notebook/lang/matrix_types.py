"""``ti.types.vector(n, dtype)`` / ``ti.types.matrix(n, m, dtype)``: small-matrix types.

A :class:`MatrixType` names the shape and element type of a small vector or matrix
(:class:`~ti_notebook.lang.element_type.ElementType`) and makes values, fields and
ndarrays of it. It also annotates ``ti.func`` parameters and kernel locals, and types
struct members. Calling it takes its ``n * m`` items in any grouping - scalars, lists,
vectors (GLSL's ``vec4(v.xyz, 1.0)``) - or one scalar to fill it, and casts them to the
element type; in a kernel the frontend does the same (``frontend/matrix_types.py``):

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec3 = ti.types.vector(3, ti.f32)
    >>> vec3.n, vec3.m, vec3.ndim, vec3.shape, vec3.dtype
    (3, 1, 1, (3,), f32)
    >>> vec3(1, 2, 3).tolist(), vec3(0).tolist(), ti.types.vector(4, int)(vec3(1, 2, 3), 9)
    ([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1 2 3 9])
    >>> mat2 = ti.types.matrix(2, 2, ti.i32)
    >>> mat2([[1, 2], [3, 4]]).tolist(), mat2(1, 2, 3, 4).tolist(), mat2
    ([[1, 2], [3, 4]], [[1, 2], [3, 4]], matrix(2, 2, i32))
    >>> vec3.field(shape=4).shape
    (4,)

``dtype=None`` (or Python's ``float``/``int``) takes ``ti.init``'s ``default_fp`` or
``default_ip`` when the type is used, as Taichi's ``ti.math.vec3`` does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from ti_notebook.errors import TiTypeError
from ti_notebook.lang import autodiff, exact_numbers, field_options, ndarray
from ti_notebook.lang import matrix as _matrix
from ti_notebook.lang import matrix_dtypes as dtypes
from ti_notebook.lang.element_type import DEFAULT_UNSIGNED, ElementType

__all__ = ["DEFAULT_UNSIGNED", "MatrixType", "gather", "matrix", "vector"]


def gather(kind: ElementType, args: tuple, items_of: Callable) -> list:
    """The ``n * m`` items a call of ``kind`` gives, row-major.

    ``items_of(x)`` lists the items of a vector-like argument (None for a scalar): one
    scalar fills the value; otherwise every argument gives its items in order, lists and
    vectors flattened.

        >>> vec2 = ElementType(2, 1, None, 1)
        >>> gather(vec2, (5,), lambda x: None), gather(vec2, ([1, 2],), lambda x: None)
        ([5, 5], [1, 2])
    """
    name = repr(kind)
    if not args:
        raise TiTypeError(f"{name}() needs values", hint=_how(kind))
    if len(args) == 1 and not isinstance(args[0], (list, tuple)) and items_of(args[0]) is None:
        return [args[0]] * kind.size
    found: list = []

    def flatten(value) -> None:
        items = list(value) if isinstance(value, (list, tuple)) else items_of(value)
        if items is None:
            found.append(value)
        else:
            for item in items:
                flatten(item)

    for arg in args:
        flatten(arg)
    if len(found) != kind.size:
        raise TiTypeError(
            f"{name}() takes {kind.size} values (or one to fill it), got {len(found)}",
            hint=_how(kind),
        )
    return found


def _how(kind: ElementType) -> str:
    order = " row by row" if kind.ndim == 2 else ""
    return (
        f"give {kind.size} numbers{order} (alone, or in vectors and lists), or one number "
        "to fill it"
    )


def _python_items(value):
    """The items of a Python-scope vector-like value, or None for a scalar."""
    if isinstance(value, _matrix.Matrix):
        return value.entries.reshape(-1).tolist()
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    return None


class MatrixType(ElementType):
    """The type of an ``n x m`` matrix (``ndim == 2``) or an ``n``-vector (``ndim == 1``)."""

    def __call__(self, *args) -> _matrix.Matrix:
        """A value of this type (Python scope; kernels: ``frontend/matrix_types.py``)."""
        items = gather(self, args, _python_items)
        if not all(exact_numbers.is_number(x) for x in items):
            raise TiTypeError(f"{self!r}() takes numbers, got {items!r}")
        dtype = self.dtype  # each item in it: np.array(items) rounds [2**63, 1] via float
        data = exact_numbers.typed_array(items, dtypes.resolve(dtype), f"{self!r}()")
        return _matrix.Matrix._new(data.reshape(self.shape), dtype)

    def field(self, shape=None, name: str = "", **options) -> _matrix.MatrixField:
        """A field of this type's elements, as ``ti.Vector.field``/``ti.Matrix.field``."""
        kind = "vector" if self.ndim == 1 else "matrix"
        adjoint = autodiff.take_options(options)
        opts = field_options.take(f"ti.types.{kind}(...).field", options, shape)
        m = None if self.ndim == 1 else self.m
        made = _matrix._make_field(self.n, m, self.dtype, shape, name, sys._getframe(1), opts)
        return autodiff.attached(made, adjoint)

    def ndarray(self, shape) -> ndarray.Ndarray:
        """An ndarray of this type's elements, as ``ti.Vector.ndarray``."""
        return ndarray.Ndarray(self, shape)


def vector(n: int, dtype=None) -> MatrixType:
    """``ti.types.vector(n, dtype)``.

    >>> vector(2, None)
    vector(2, None)
    """
    return MatrixType(n, 1, dtype, 1)


def matrix(n: int, m: int, dtype=None) -> MatrixType:
    """``ti.types.matrix(n, m, dtype)``.

    >>> matrix(3, 3).shape
    (3, 3)
    """
    return MatrixType(n, m, dtype, 2)
