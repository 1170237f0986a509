"""``ti.ndarray`` and the ``ti.types.ndarray()`` / ``ti.template()`` annotations.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu)
>>> a = ti.ndarray(ti.f32, shape=4)
>>> a.fill(2)
>>> a.to_numpy().tolist()
[2.0, 2.0, 2.0, 2.0]
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import config as _config
from ti_notebook.lang import types
from ti_notebook.lang.field import normalize_shape


class Template:
    """``ti.template()``: the argument is a compile-time value (a field, an int...)."""


def template() -> Template:
    return Template()


class NdarrayType:
    """``ti.types.ndarray(dtype=None, ndim=None)``: an array argument passed by reference."""

    def __init__(self, dtype=None, ndim: int | None = None, **_unused) -> None:
        cfg = _config.current()
        self.dtype = (
            None if dtype is None else types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
        )
        self.ndim = ndim

    def __repr__(self) -> str:
        return f"ndarray(dtype={self.dtype}, ndim={self.ndim})"


class NDArray:
    """gstaichi's spelling of an ndarray annotation: ``ti.types.NDArray[ti.i64, 2]`` is
    ``ti.types.ndarray(dtype=ti.i64, ndim=2)``.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> ti.types.NDArray[ti.i64, 2]
        ndarray(dtype=i64, ndim=2)
    """

    def __class_getitem__(cls, item) -> NdarrayType:
        dtype, ndim = item if isinstance(item, tuple) else (item, None)
        return NdarrayType(dtype, ndim)


class Ndarray:
    """A NumPy-backed array that kernels take as a ``ti.types.ndarray()`` argument."""

    def __init__(self, dtype, shape) -> None:
        cfg = _config.current()
        self.dtype = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
        if self.dtype is None:
            raise TiTypeError(f"ti.ndarray: {dtype!r} is not a type")
        self.shape = normalize_shape(shape)
        self._array = np.zeros(self.shape, dtype=self.dtype.np_dtype)

    def to_numpy(self) -> np.ndarray:
        return self._array.copy()

    def from_numpy(self, array) -> None:
        array = np.asarray(array)
        if array.shape != self.shape:
            raise TiValueError(f"from_numpy: shape {array.shape} != ndarray shape {self.shape}")
        self._array[...] = array

    def fill(self, value) -> None:
        self._array[...] = value

    def __getitem__(self, key):
        return self._array[key].item() if np.ndim(self._array[key]) == 0 else self._array[key]

    def __setitem__(self, key, value) -> None:
        self._array[key] = value

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype} {self.shape}>"


def ndarray(dtype, shape) -> Ndarray:
    return Ndarray(dtype, shape)
