"""The shape and scalar type of a vector or matrix element, and nothing else.

:class:`ElementType` is what an ndarray, a graph argument or an annotation needs to know
of ``ti.types.vector(3, ti.f32)``: ``n``, ``m``, ``ndim``, ``shape`` and the scalar
``dtype``. The public type, which also makes values and fields, is its subclass
:class:`~ti_notebook.lang.matrix_types.MatrixType`; this module imports none of the
value or field machinery, so ``lang/ndarray.py`` can use it without an import cycle.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> t = ElementType(3, 1, None, 1)
    >>> t.shape, t.dtype, t.resolve(ti.i64, ti.f64), ElementType(2, 2, int, 2)
    ((3,), f32, f64, matrix(2, 2, int))

``dtype`` may be a ti type, ``None``/``float`` (``ti.init``'s ``default_fp``), ``int``
(``default_ip``) or :data:`DEFAULT_UNSIGNED` (``ti.math.uvec3``: ``u32``, or ``u64``
when ``default_ip`` is 64-bit, as Taichi's ``default_up``), resolved when it is used.
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import types


class _DefaultUnsigned:
    """Marker: the unsigned integer type as wide as ``default_ip``."""

    def __repr__(self) -> str:
        return "default_up"


DEFAULT_UNSIGNED = _DefaultUnsigned()


def resolve_dtype(spec, default_ip: types.DataType, default_fp: types.DataType):
    """A dtype spec (a ti type, ``None``, ``float``, ``int``, :data:`DEFAULT_UNSIGNED`,
    a NumPy type) as a ti type, or None when it names no type.

    >>> resolve_dtype(DEFAULT_UNSIGNED, types.i64, types.f32)
    u64
    """
    if spec is None:
        return default_fp
    if spec is DEFAULT_UNSIGNED:
        return types.u32 if default_ip.bits <= 32 else types.u64
    return types.to_dtype(spec, default_ip, default_fp)


def component_count(value, what: str, name: str) -> int:
    """``n`` or ``m`` of a vector/matrix type or field: a positive int, else an error
    naming the argument (a TiTypeError for a non-integer, a TiValueError below 1).

    >>> component_count(3, "ti.Vector.field", "n")
    3
    >>> component_count(0, "ti.Matrix.field", "m")
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiValueError: ti.Matrix.field: m=0 must be at least 1 (the number of ...
    """
    hint = (
        "write e.g. ti.Vector.field(3, ti.f32, shape=n) or ti.Matrix.field(2, 2, ti.f32, shape=n)"
    )
    if what.startswith("ti.types"):
        hint = "write e.g. ti.types.vector(3, ti.f32) or ti.types.matrix(2, 2, ti.f32)"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TiTypeError(f"{what}: {name}={value!r} must be a positive int", hint=hint)
    if value < 1:
        raise TiValueError(
            f"{what}: {name}={value!r} must be at least 1 (the number of components)",
            hint=hint,
        )
    return int(value)


class ElementType:
    """An ``n x m`` matrix (``ndim == 2``) or an ``n``-vector (``ndim == 1``) type."""

    def __init__(self, n: int, m: int, dtype, ndim: int) -> None:
        what = f"ti.types.{'vector' if ndim == 1 else 'matrix'}"
        n, m = component_count(n, what, "n"), component_count(m, what, "m")
        self.n, self.m, self.ndim = n, m, ndim
        self._dtype = dtype

    @property
    def dtype(self) -> types.DataType:
        """The element type, ``None``/``float``/``int`` resolved by ``ti.init``'s defaults."""
        cfg = _settings.current()
        return self.resolve(cfg.default_ip, cfg.default_fp)

    def resolve(self, default_ip: types.DataType, default_fp: types.DataType) -> types.DataType:
        """The element type under these defaults (a kernel's compile options, say)."""
        resolved = resolve_dtype(self._dtype, default_ip, default_fp)
        if resolved is None:
            raise TiTypeError(f"{self!r}: {self._dtype!r} is not an element type")
        return resolved

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n,) if self.ndim == 1 else (self.n, self.m)

    def scalar_and_shape(self) -> tuple[types.DataType, tuple[int, ...]]:
        """The element type and shape, as ndarrays of this type store them
        (``lang/ndarray.py`` reads compound element types through this method).

        >>> ElementType(3, 1, "f4", 1).scalar_and_shape()
        (f32, (3,))
        """
        return self.dtype, self.shape

    @property
    def size(self) -> int:
        """How many scalars an element holds."""
        return self.n * self.m

    def _key(self) -> tuple:
        return (self.n, self.m, self.ndim, self._dtype)

    def __eq__(self, other) -> bool:
        return isinstance(other, ElementType) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        spec = self._dtype
        dtype = (
            "None"
            if spec is None
            else getattr(spec, "name", None) or getattr(spec, "__name__", repr(spec))
        )
        if self.ndim == 1:
            return f"vector({self.n}, {dtype})"
        return f"matrix({self.n}, {self.m}, {dtype})"
