"""``ti.Vector`` / ``ti.Matrix``: small vectors and matrices, and fields of them.

A vector or matrix field is ``n*m`` scalar component fields placed in one cell, so a
vector field is AoS over its components and follows ``place`` like scalars:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector.field(3, ti.f32, shape=4)
    >>> v[1] = [1, 2, 3]
    >>> v.to_numpy().shape, v[1].tolist()
    ((4, 3), [1.0, 2.0, 3.0])
    >>> [c.layout().address((1,)) for c in v.components]
    [12, 16, 20]
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiIndexError, TiTypeError, TiValueError
from ti_notebook.lang import autodiff, types
from ti_notebook.lang import config as _config
from ti_notebook.lang.field import Field, _assigned_name, normalize_shape, place_with_shape


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
    def grad(self):
        """Autodiff is not supported yet: raises TiNotImplementedError naming the field."""
        return autodiff.gradient_attribute(self.name, "grad")

    @property
    def dual(self):
        """Forward-mode autodiff is not supported yet: raises TiNotImplementedError."""
        return autodiff.gradient_attribute(self.name, "dual")

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

    def to_numpy(self, dtype=None) -> np.ndarray:
        parts = [c.to_numpy(dtype) for c in self.components]
        stacked = np.stack(parts, axis=-1)
        return stacked.reshape(self.shape + self.element_shape)

    def from_numpy(self, array) -> None:
        array = np.asarray(array)
        expected = self.shape + self.element_shape
        if array.shape != expected:
            raise TiValueError(
                f"from_numpy: array of shape {array.shape} does not match {self.label} "
                f"of shape {expected}"
            )
        flat = array.reshape(self.shape + (-1,))
        for k, component in enumerate(self.components):
            component.from_numpy(flat[..., k])

    def fill(self, value) -> None:
        values = np.broadcast_to(np.asarray(value), self.element_shape).reshape(-1)
        for component, item in zip(self.components, values, strict=True):
            component.fill(item.item())

    def __getitem__(self, key) -> MatrixElement:
        first = self.components[0]
        first._materialize()
        return MatrixElement(self, first._index(key))

    def __setitem__(self, key, value) -> None:
        values = np.broadcast_to(np.asarray(value), self.element_shape).reshape(-1)
        for component, item in zip(self.components, values, strict=True):
            component[key] = item.item()

    def __repr__(self) -> str:
        return f"<ti.Matrix.field {self.name}: {self.dtype}{list(self.element_shape)}>"


class MatrixElement:
    """``v[i]`` from Python: one element of a vector/matrix field, read and written live.

    Indexing it reads or writes the field itself, so ``v[i][k] = s`` changes the field,
    as in Taichi. Everything else (arithmetic, comparisons, ``np.asarray``, ``tolist``,
    ``repr``) works on a NumPy copy of the element's current value.

    >>> import ti_notebook as ti
    >>> v = ti.Vector.field(3, ti.f32, shape=4)
    >>> v[2][1] = 7
    >>> v[2].y, v[2].tolist(), v.to_numpy()[2].tolist()
    (7.0, [0.0, 7.0, 0.0], [0.0, 7.0, 0.0])
    >>> v[2] * 2
    array([ 0., 14.,  0.], dtype=float32)
    """

    __slots__ = ("_field", "_key")
    __hash__ = None  # compares like an array

    def __init__(self, field: MatrixField, key: tuple[int, ...]) -> None:
        self._field = field
        self._key = key

    @property
    def n(self) -> int:
        return self._field.n

    @property
    def m(self) -> int:
        return self._field.m

    def to_numpy(self) -> np.ndarray:
        """A copy of the element's current value."""
        field = self._field
        values = [c[self._key] for c in field.components]
        return np.array(values, dtype=field.dtype.np_dtype).reshape(field.element_shape)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        value = self.to_numpy()
        return value if dtype is None else value.astype(dtype)

    def _components(self, index) -> np.ndarray:
        """The flat component numbers that ``index`` selects, shaped like the selection."""
        field = self._field
        numbers = np.arange(len(field.components)).reshape(field.element_shape)
        try:
            return np.asarray(numbers[index])
        except (IndexError, TypeError) as exc:
            raise TiIndexError(
                f"index {index!r} does not select from an element of {field.label} of "
                f"shape {field.element_shape}: {exc}",
                hint="use v[i][k] for a vector, m[i][r, c] for a matrix",
            ) from None

    def __getitem__(self, index):
        field = self._field
        selected = self._components(index)
        if selected.ndim == 0:
            return field.components[int(selected)][self._key]
        values = [field.components[k][self._key] for k in selected.reshape(-1)]
        return np.array(values, dtype=field.dtype.np_dtype).reshape(selected.shape)

    def __setitem__(self, index, value) -> None:
        field = self._field
        selected = self._components(index)
        try:
            values = np.broadcast_to(np.asarray(value), selected.shape)
        except ValueError:
            raise TiValueError(
                f"cannot write a value of shape {np.shape(value)} into {selected.shape} "
                f"components of {field.label}"
            ) from None
        for k, item in zip(selected.reshape(-1), values.reshape(-1), strict=True):
            field.components[k][self._key] = item.item()

    def __getattr__(self, name: str):
        if name.startswith("_"):  # also keeps unset slots from recursing here
            raise AttributeError(name)
        return getattr(self.to_numpy(), name)  # tolist, shape, dtype, sum, dot...

    def __len__(self) -> int:
        return self._field.n

    def __iter__(self):
        return iter(self.to_numpy())

    def __repr__(self) -> str:
        return repr(self.to_numpy())

    def __str__(self) -> str:
        return str(self.to_numpy())


def _component_property(k: int) -> property:
    def get(self: MatrixElement):
        return self[k]

    def set(self: MatrixElement, value) -> None:
        self[k] = value

    return property(get, set, doc=f"Component {k} of a vector element.")


for _k, _axis in enumerate("xyzw"):
    setattr(MatrixElement, _axis, _component_property(_k))


def _delegate(name: str):
    def method(self: MatrixElement, *args):
        return getattr(self.to_numpy(), name)(*args)

    method.__name__ = name
    return method


for _name in (
    *("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__"),
    *("__neg__", "__pos__", "__abs__", "__invert__"),
    *("__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__"),
    *("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__"),
    *("__rpow__", "__matmul__", "__rmatmul__", "__and__", "__or__", "__xor__"),
    *("__rand__", "__ror__", "__rxor__", "__lshift__", "__rshift__"),
):
    setattr(MatrixElement, _name, _delegate(_name))


def _dtype(dtype) -> types.DataType:
    cfg = _config.current()
    found = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if found is None:
        raise TiTypeError(f"{dtype!r} is not a type", hint="use e.g. ti.f32 or ti.i32")
    return found


def _make_field(n, m, dtype, shape, name, frame) -> MatrixField:
    result = MatrixField(int(n), None if m is None else int(m), _dtype(dtype), name)
    if not name:
        result.name = _assigned_name(frame) or "field"
        for k, component in enumerate(result.components):
            component.name = f"{result.name}[{k}]"
    if shape is not None:
        place_with_shape(result, normalize_shape(shape))
    return result


class Matrix:
    """``ti.Matrix``: in kernels a small matrix value; in Python a NumPy array."""

    def __new__(cls, values, dtype=None):
        return np.array(values, dtype=None if dtype is None else _dtype(dtype).np_dtype)

    @staticmethod
    def field(n, m, dtype, shape=None, name: str = "", **options) -> MatrixField:
        import sys

        from ti_notebook.lang.field import refuse_unsupported_options

        refuse_unsupported_options("ti.Matrix.field", **options)
        return _make_field(n, m, dtype, shape, name, sys._getframe(1))

    @staticmethod
    def ndarray(n: int, m: int, dtype, shape):
        """``ti.Matrix.ndarray(n, m, dtype, shape)``: an ndarray of n x m matrices."""
        from ti_notebook.lang import ndarray

        return ndarray.Ndarray(dtype, shape, element_shape=(n, m))

    @staticmethod
    def identity(dtype, n):
        return np.eye(n, dtype=_dtype(dtype).np_dtype)

    @staticmethod
    def zero(dtype, n, m=None):
        return np.zeros((n,) if m is None else (n, m), dtype=_dtype(dtype).np_dtype)


class Vector(Matrix):
    """``ti.Vector``: a column vector."""

    @staticmethod
    def field(n, dtype, shape=None, name: str = "", **options) -> MatrixField:
        import sys

        from ti_notebook.lang.field import refuse_unsupported_options

        refuse_unsupported_options("ti.Vector.field", **options)
        return _make_field(n, None, dtype, shape, name, sys._getframe(1))

    @staticmethod
    def ndarray(n: int, dtype, shape):
        """``ti.Vector.ndarray(n, dtype, shape)``: an ndarray of n-vectors."""
        from ti_notebook.lang import ndarray

        return ndarray.Ndarray(dtype, shape, element_shape=(n,))

    @staticmethod
    def zero(dtype, n):
        return np.zeros((n,), dtype=_dtype(dtype).np_dtype)
