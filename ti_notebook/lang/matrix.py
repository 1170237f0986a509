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

from ti_notebook.errors import TiValueError
from ti_notebook.lang import config as _config
from ti_notebook.lang import types
from ti_notebook.lang.field import Field, _assigned_name, normalize_shape, place_with_shape


class MatrixField:
    """A field whose elements are ``n x m`` matrices (``m is None``: vectors)."""

    def __init__(self, n: int, m: int | None, dtype: types.DataType, name: str) -> None:
        self.n, self.m = n, m
        self.dtype = dtype
        self.name = name or "field"
        count = n * (m or 1)
        self.components = [Field(dtype, f"{self.name}[{k}]") for k in range(count)]

    @property
    def element_shape(self) -> tuple[int, ...]:
        return (self.n,) if self.m is None else (self.n, self.m)

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
                f"from_numpy: array of shape {array.shape} does not match vector/matrix "
                f"field '{self.name}' of shape {expected}"
            )
        flat = array.reshape(self.shape + (-1,))
        for k, component in enumerate(self.components):
            component.from_numpy(flat[..., k])

    def fill(self, value) -> None:
        values = np.broadcast_to(np.asarray(value), self.element_shape).reshape(-1)
        for component, item in zip(self.components, values, strict=True):
            component.fill(item.item())

    def __getitem__(self, key) -> np.ndarray:
        values = [c[key] for c in self.components]
        return np.array(values, dtype=self.dtype.np_dtype).reshape(self.element_shape)

    def __setitem__(self, key, value) -> None:
        values = np.broadcast_to(np.asarray(value), self.element_shape).reshape(-1)
        for component, item in zip(self.components, values, strict=True):
            component[key] = item.item()

    def __repr__(self) -> str:
        return f"<ti.Matrix.field {self.name}: {self.dtype}{list(self.element_shape)}>"


def _dtype(dtype) -> types.DataType:
    cfg = _config.current()
    found = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if found is None:
        raise TypeError(f"{dtype!r} is not a type")
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
    def field(n, m, dtype, shape=None, name: str = "", **_unused) -> MatrixField:
        import sys

        return _make_field(n, m, dtype, shape, name, sys._getframe(1))

    @staticmethod
    def identity(dtype, n):
        return np.eye(n, dtype=_dtype(dtype).np_dtype)

    @staticmethod
    def zero(dtype, n, m=None):
        return np.zeros((n,) if m is None else (n, m), dtype=_dtype(dtype).np_dtype)


class Vector(Matrix):
    """``ti.Vector``: a column vector."""

    @staticmethod
    def field(n, dtype, shape=None, name: str = "", **_unused) -> MatrixField:
        import sys

        return _make_field(n, None, dtype, shape, name, sys._getframe(1))

    @staticmethod
    def zero(dtype, n):
        return np.zeros((n,), dtype=_dtype(dtype).np_dtype)
