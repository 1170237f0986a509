"""``ti.Vector`` / ``ti.Matrix``: small vector and matrix values, and fields of them.

In Python a ``ti.Vector([...])`` or ``ti.Matrix([[...], ...])`` is a value (NumPy
inside): indexing, swizzles, operators (``lang/matrix_arith.py``) and Taichi's methods
(``lang/matrix_algebra.py``); a kernel that reads one uses it as a constant. Its element
type is ``dt`` when given, else the kind of its items resolved by ``ti.init``'s defaults
(``lang/matrix_dtypes.py``; ``lang/matrix_entries.py`` turns items into components):

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> p = ti.Vector([1.0, 2.0, 3.0])
    >>> p.x, p.yz.tolist(), p.dtype, (p * 2).tolist(), p.norm_sqr()
    (1.0, [2.0, 3.0], f32, [2.0, 4.0, 6.0], 14.0)
    >>> ti.Matrix.identity(ti.i32, 2)
    [[1 0]
     [0 1]]

A vector or matrix field is ``n*m`` scalar component fields placed in one cell, so a
vector field is AoS over its components and follows ``place`` like scalars; ``v[i]``
is a live view of one element (a value whose writes go to the field, as in Taichi).
Reading and writing a field's elements from Python is ``lang/matrix_field_io.py``'s:

    >>> v = ti.Vector.field(3, ti.f32, shape=4)
    >>> v[1] = [1, 2, 3]
    >>> v[1].y = 7
    >>> v.to_numpy().shape, v[1].tolist(), isinstance(v[1], ti.Vector)
    ((4, 3), [1.0, 7.0, 3.0], True)
    >>> [c.layout().address((1,)) for c in v.components]
    [12, 16, 20]
"""

from __future__ import annotations

import sys

import numpy as np

from ti_notebook.errors import TiIndexError, TiTypeError, TiValueError
from ti_notebook.lang import (
    autodiff,
    field_options,
    field_text,
    loop_registry,
    matrix_entries,
    matrix_field_io,
    ndarray,
    types,
)
from ti_notebook.lang import matrix_dtypes as dtypes
from ti_notebook.lang.element_type import component_count
from ti_notebook.lang.field import (
    Field,
    _assigned_name,
    normalize_shape,
    place_with_shape,
)
from ti_notebook.lang.matrix_algebra import MatrixAlgebra
from ti_notebook.lang.matrix_arith import MatrixArithmetic
from ti_notebook.lang.swizzles import add_swizzles


@add_swizzles
class Matrix(MatrixArithmetic, MatrixAlgebra):
    """``ti.Matrix(arr, dt=None)``: a small matrix (a vector from a flat list) in Python;
    in kernels the frontend builds it (``frontend/vectors.py``)."""

    def __init__(self, arr, dt=None, **options) -> None:
        dt = options.pop("dtype", dt)
        options.pop("ndim", None)  # Taichi's reshape hint: the shape of ``arr`` decides
        if options:
            raise TiTypeError(f"ti.Matrix() got unexpected keyword(s) {sorted(options)}")
        what = f"ti.{type(self).__name__}()"
        if isinstance(arr, Matrix) and dt is None:  # a copy keeps its kind, weak or typed
            self._data, self._spec = arr.entries.copy(), arr._spec
        elif isinstance(arr, (np.ndarray, list, tuple, Matrix)):
            self._data, self._spec = matrix_entries.from_items(arr, what, dt)
        else:
            raise TiTypeError(
                f"{what} takes a list of values, got {type(arr).__name__}",
                hint="e.g. ti.Vector([1.0, 2.0]) or ti.Matrix([[1, 2], [3, 4]])",
            )

    @staticmethod
    def _new(data: np.ndarray, spec) -> Matrix:
        """An operation's result: a Vector when 1-D, else a Matrix."""
        value = object.__new__(Vector if data.ndim == 1 else Matrix)
        value._data, value._spec = data, spec
        return value

    # -- what it is ----------------------------------------------------------------------
    @property
    def entries(self) -> np.ndarray:
        """The components (not a copy: ``to_numpy()`` is one)."""
        return self._data

    @property
    def shape(self) -> tuple[int, ...]:
        return self.entries.shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def n(self) -> int:
        return self.shape[0]

    @property
    def m(self) -> int:
        return self.shape[1] if len(self.shape) == 2 else 1

    @property
    def dtype(self) -> types.DataType:
        return dtypes.resolve(self._spec)

    def get_shape(self) -> tuple[int, ...]:
        return self.shape

    # -- components ----------------------------------------------------------------------
    def __getitem__(self, index):
        try:
            selected = self.entries[index]
        except (IndexError, TypeError, ValueError) as exc:
            raise TiIndexError(
                f"index {index!r} does not select from a value of shape {self.shape}: {exc}",
                hint="use v[i] for a vector, m[i, j] (or m[i] for a row) for a matrix",
            ) from None
        if np.ndim(selected) == 0:
            return selected.item()
        return self._new(np.array(selected), self._spec)

    def __setitem__(self, index, value) -> None:
        self._store(index, value)

    def _store(self, index, value) -> None:
        try:
            self._data[index] = matrix_entries.written(value, self._spec)
        except (IndexError, TypeError) as exc:
            raise TiIndexError(
                f"index {index!r} does not select from a value of shape {self.shape}: {exc}"
            ) from None
        except ValueError:
            raise TiValueError(
                f"cannot write a value of shape {np.shape(value)} into "
                f"{np.shape(self._data[index])} components"
            ) from None

    def _select(self, indices: list[int]) -> Vector:
        return self._new(self.entries[indices].copy(), self._spec)

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(self.entries.tolist())  # numbers of a vector, lists of a matrix's rows

    # -- conversions -----------------------------------------------------------------------
    def to_numpy(self, dtype=None) -> np.ndarray:
        """A copy of the components."""
        return np.array(self.entries, dtype=dtype)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.to_numpy(dtype)

    def tolist(self) -> list:
        return self.entries.tolist()

    to_list = tolist  # Taichi's name

    def __repr__(self) -> str:
        return str(self.entries)  # as Taichi prints a Python-scope matrix

    __str__ = __repr__

    # -- constructors (Python scope; kernels have their own, frontend/) -----------------------
    @staticmethod
    def zero(dt, n: int, m: int | None = None) -> Matrix:
        """``n`` zeros (``n x m`` with ``m``) of type ``dt``."""
        return _filled(dt, n, m, 0)

    @staticmethod
    def one(dt, n: int, m: int | None = None) -> Matrix:
        """``n`` ones (``n x m`` with ``m``) of type ``dt``."""
        return _filled(dt, n, m, 1)

    @staticmethod
    def unit(n: int, i: int, dt=None) -> Vector:
        """The ``n``-vector with a one at ``i`` (``dt`` defaults to ``int``)."""
        if not 0 <= i < n:
            raise TiIndexError(f"ti.Vector.unit({n}, {i}): i must be in [0, {n})")
        return Vector([int(k == i) for k in range(n)], int if dt is None else dt)

    @staticmethod
    def identity(dt, n: int) -> Matrix:
        """The ``n x n`` identity matrix of type ``dt``."""
        return Matrix(np.eye(n), dt)

    @staticmethod
    def diag(dim: int, val) -> Matrix:
        """The ``dim x dim`` matrix with ``val`` on its diagonal."""
        return Matrix([[val if i == j else 0 for j in range(dim)] for i in range(dim)])

    @staticmethod
    def rows(rows) -> Matrix:
        """The matrix whose rows are these vectors (or lists)."""
        lengths = {len(r) for r in rows}
        if len(lengths) > 1:
            raise TiValueError(f"ti.Matrix.rows: rows of different lengths {sorted(lengths)}")
        return Matrix([list(r) for r in rows])

    @staticmethod
    def cols(cols) -> Matrix:
        """The matrix whose columns are these vectors (or lists)."""
        return Matrix.rows(cols).transpose()

    # -- containers of them ------------------------------------------------------------------
    @staticmethod
    def field(n, m, dtype, shape=None, name: str = "", **options) -> MatrixField:
        adjoint = autodiff.take_options(options)
        m = field_options.element_ndim("ti.Matrix.field", n, m, options.pop("ndim", None))
        opts = field_options.take("ti.Matrix.field", options, shape)
        made = _make_field(n, m, dtype, shape, name, sys._getframe(1), opts)
        return autodiff.attached(made, adjoint)

    @staticmethod
    def ndarray(n: int, m: int, dtype, shape, needs_grad: bool = False):
        """``ti.Matrix.ndarray(n, m, dtype, shape)``: an ndarray of n x m matrices."""
        n, m = (
            component_count(n, "ti.Matrix.ndarray", "n"),
            component_count(m, "ti.Matrix.ndarray", "m"),
        )
        return ndarray.Ndarray(dtype, shape, element_shape=(n, m), needs_grad=needs_grad)


class Vector(Matrix):
    """``ti.Vector(arr, dt=None)``: a column vector."""

    def __init__(self, arr, dt=None, **options) -> None:
        super().__init__(arr, dt, **options)
        if self._data.ndim != 1:
            raise TiValueError(
                f"ti.Vector() takes a flat list, got shape {self._data.shape}",
                hint="use ti.Matrix for 2-D values",
            )

    @staticmethod
    def field(n, dtype, shape=None, name: str = "", **options) -> MatrixField:
        adjoint = autodiff.take_options(options)
        field_options.element_ndim("ti.Vector.field", n, None, options.pop("ndim", None))
        opts = field_options.take("ti.Vector.field", options, shape)
        made = _make_field(n, None, dtype, shape, name, sys._getframe(1), opts)
        return autodiff.attached(made, adjoint)

    @staticmethod
    def ndarray(n: int, dtype, shape, needs_grad: bool = False):
        """``ti.Vector.ndarray(n, dtype, shape)``: an ndarray of n-vectors."""
        n = component_count(n, "ti.Vector.ndarray", "n")
        return ndarray.Ndarray(dtype, shape, element_shape=(n,), needs_grad=needs_grad)


def _filled(dt, n: int, m: int | None, value) -> Matrix:
    shape = (n,) if m is None else (n, m)
    return (Vector if m is None else Matrix)(np.full(shape, value), dt)


class MatrixField:
    """A field whose elements are ``n x m`` matrices; a vector field has ``m == 1``.

    >>> import ti_notebook as ti
    >>> m = ti.Matrix.field(2, 2, ti.f32, shape=3)
    >>> (m.n, m.m), m.element_shape, ti.Vector.field(3, ti.f32, shape=3).m
    ((2, 2), (2, 2), 1)
    """

    def __init__(self, n: int, m: int | None, dtype: types.DataType, name: str) -> None:
        # Taichi: a vector field's m is 1; its elements still have shape (n,), not (n, 1).
        self.is_vector = m is None
        self.n, self.m = n, 1 if m is None else m
        self.dtype = dtype
        self.name = name or "field"
        self.components = [Field(dtype, f"{self.name}[{k}]") for k in range(n * self.m)]
        for component in self.components:
            component.owner = self

    @property
    def grad(self) -> MatrixField:
        """The gradient field (``needs_grad=True``): its components' gradients."""
        return autodiff.adjoint_of(self, "grad")

    @property
    def dual(self) -> MatrixField:
        """The dual field of forward mode (``needs_dual=True``)."""
        return autodiff.adjoint_of(self, "dual")

    @property
    def label(self) -> str:
        """How errors name this field."""
        kind = "vector" if self.is_vector else "matrix"
        return f"{kind} field '{self.name}'"

    @property
    def element_shape(self) -> tuple[int, ...]:
        return (self.n,) if self.is_vector else (self.n, self.m)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.components[0].shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def snode(self):
        return self.components[0].snode

    def parent(self, n: int = 1):
        return self.snode.parent(n)

    def layout(self):
        """The first component's plan; ``component_layouts()`` has all of them."""
        return self.components[0].layout()

    def component_layouts(self) -> list:
        return [c.layout() for c in self.components]

    # -- host-side bulk I/O (matrix_field_io.py) --------------------------------------------
    def to_numpy(self, dtype=None) -> np.ndarray:
        """A copy of the elements, of shape ``shape + element_shape``."""
        return matrix_field_io.to_numpy(self, dtype)

    def from_numpy(self, array) -> None:
        """Writes ``array`` (of shape ``shape + element_shape``) into the field."""
        matrix_field_io.from_numpy(self, array)

    def fill(self, value) -> None:
        """Sets every element to ``value`` (a number, list or vector)."""
        matrix_field_io.fill(self, value)

    def copy_from(self, other: MatrixField) -> None:
        """``self[I] = other[I]`` for every index, as Taichi's (see ``Field.copy_from``):
        shapes and element shapes must match.

        >>> import ti_notebook as ti
        >>> a, b = ti.Vector.field(2, ti.f32, shape=2), ti.Vector.field(2, ti.f32, shape=2)
        >>> a.fill([1.0, 2.0])
        >>> b.copy_from(a)
        >>> b.to_numpy().tolist()
        [[1.0, 2.0], [1.0, 2.0]]
        """
        loop_registry.loops().copy_from(self, other)

    def __getitem__(self, key) -> MatrixElement | VectorElement:
        first = self.components[0]
        first._materialize()
        element = VectorElement if self.is_vector else MatrixElement
        return element(self, first._index(key))

    def __setitem__(self, key, value) -> None:
        items = matrix_field_io.element_values(self, value)
        for component, item in zip(self.components, items, strict=True):
            component[key] = item

    def __repr__(self) -> str:
        return field_text.field_repr(self)

    def __str__(self) -> str:
        return field_text.field_str(self)


class _LiveElement:
    """One element of a vector/matrix field, read and written live (``v[i]`` in Python):
    ``v[i][k] = s`` and ``v[i].y = s`` change the field, as in Taichi; reading it reads
    the field's current value; operations on it give new values."""

    def __init__(self, field: MatrixField, key: tuple[int, ...]) -> None:
        self._field, self._key, self._spec = field, key, field.dtype

    @property
    def entries(self) -> np.ndarray:
        return matrix_field_io.element_entries(self._field, self._key)

    def _store(self, index, value) -> None:
        matrix_field_io.store_components(self._field, self._key, index, value)


class VectorElement(_LiveElement, Vector):
    """``v[i]`` of a vector field (see :class:`_LiveElement`)."""


class MatrixElement(_LiveElement, Matrix):
    """``m[i]`` of a matrix field (see :class:`_LiveElement`)."""


def _dtype(dtype) -> types.DataType:
    return dtypes.explicit(dtype)


def _make_field(n, m, dtype, shape, name, frame, options=None) -> MatrixField:
    what = "ti.Vector.field" if m is None else "ti.Matrix.field"
    n = component_count(n, what, "n")
    m = None if m is None else component_count(m, what, "m")
    result = MatrixField(n, m, _dtype(dtype), name)
    if not name:
        result.name = _assigned_name(frame) or "field"
        for k, component in enumerate(result.components):
            component.name = f"{result.name}[{k}]"
    if shape is not None:
        place_with_shape(result, normalize_shape(shape), options)
    return result
