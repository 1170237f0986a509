"""``ti.types.vector(n, dtype)`` / ``ti.types.matrix(n, m, dtype)``: small-matrix types.

A :class:`MatrixType` names the shape and element type of a small vector or matrix. It
makes values (``vec3(1, 2, 3)``), fields (``vec3.field(shape=8)``), and annotates
``ti.func``/kernel parameters, return values and struct members:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec3 = ti.types.vector(3, ti.f32)
    >>> vec3.n, vec3.m, vec3.ndim, vec3.shape, vec3.dtype
    (3, 1, 1, (3,), f32)
    >>> ti.types.matrix(2, 2, ti.i32)
    matrix(2, 2, i32)
    >>> vec3.field(shape=4).shape
    (4,)

``dtype=None`` (or Python's ``float``/``int``) takes ``ti.init``'s ``default_fp`` or
``default_ip`` when the type is used, as Taichi's ``ti.math.vec3`` does.
"""

from __future__ import annotations

from ti_notebook.errors import TiTypeError
from ti_notebook.lang import config as _config
from ti_notebook.lang import types


class MatrixType:
    """The type of an ``n x m`` matrix (``ndim == 2``) or an ``n``-vector (``ndim == 1``)."""

    def __init__(self, n: int, m: int, dtype, ndim: int) -> None:
        for name, extent in (("n", n), ("m", m)):
            if not isinstance(extent, int) or extent < 1:
                raise TiTypeError(
                    f"ti.types.{'vector' if ndim == 1 else 'matrix'}: {name}={extent!r} "
                    "must be a positive int",
                    hint="write e.g. ti.types.vector(3, ti.f32) or ti.types.matrix(2, 2, ti.f32)",
                )
        self.n, self.m, self.ndim = n, m, ndim
        self._dtype = dtype

    @property
    def dtype(self) -> types.DataType:
        """The element type, with ``None``/``float``/``int`` resolved by ``ti.init``'s defaults."""
        cfg = _config.current()
        if self._dtype is None:
            return cfg.default_fp
        resolved = types.to_dtype(self._dtype, cfg.default_ip, cfg.default_fp)
        if resolved is None:
            raise TiTypeError(f"{self!r}: {self._dtype!r} is not an element type")
        return resolved

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n,) if self.ndim == 1 else (self.n, self.m)

    def scalar_and_shape(self) -> tuple[types.DataType, tuple[int, ...]]:
        """The element type and shape, as ndarrays of this type store them.

        >>> vector(3, "f4").scalar_and_shape()
        (f32, (3,))
        """
        return self.dtype, self.shape

    def field(self, shape=None, name: str = "", **options):
        """A field of this type's elements, as ``ti.Vector.field``/``ti.Matrix.field``."""
        import sys

        from ti_notebook.lang import matrix
        from ti_notebook.lang.field import refuse_unsupported_options

        kind = "vector" if self.ndim == 1 else "matrix"
        refuse_unsupported_options(f"ti.types.{kind}(...).field", **options)
        m = None if self.ndim == 1 else self.m
        return matrix._make_field(self.n, m, self.dtype, shape, name, sys._getframe(1))

    def _key(self) -> tuple:
        return (self.n, self.m, self.ndim, self._dtype)

    def __eq__(self, other) -> bool:
        return isinstance(other, MatrixType) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        dtype = "None" if self._dtype is None else getattr(self._dtype, "name", self._dtype)
        if self.ndim == 1:
            return f"vector({self.n}, {dtype})"
        return f"matrix({self.n}, {self.m}, {dtype})"


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
