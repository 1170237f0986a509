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
from ti_notebook.lang import exact_numbers, field_text, types
from ti_notebook.lang import settings as _settings
from ti_notebook.lang.field import normalize_shape
from ti_notebook.runtime import array_homes, host_copy


class Template:
    """``ti.template()``: the argument is a compile-time value (a field, an int...)."""


def template() -> Template:
    return Template()


class NdarrayType:
    """``ti.types.ndarray(dtype=None, ndim=None)``: an array argument passed by reference.

    ``dtype`` may be a vector/matrix type: ``ti.types.ndarray(dtype=ti.math.vec3, ndim=2)``
    takes an (h, w, 3) array whose elements a kernel reads as vectors (``a[i, j].x``).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> ti.types.ndarray(dtype=ti.types.vector(3, ti.f32), ndim=2)
        ndarray(dtype=f32, ndim=2, element_shape=(3,))
    """

    def __init__(self, dtype=None, ndim: int | None = None, **_unused) -> None:
        self.dtype, self.element_shape = _element_type(dtype)
        self.ndim = ndim

    def __repr__(self) -> str:
        shape = f", element_shape={self.element_shape}" if self.element_shape else ""
        return f"ndarray(dtype={self.dtype}, ndim={self.ndim}{shape})"


def _element_type(dtype) -> tuple[types.DataType | None, tuple[int, ...]]:
    """A scalar type, or a vector/matrix type's element type and shape (anything with
    ``scalar_and_shape()``: ``lang/matrix_types.py`` makes those; reading the method, not
    the class, keeps ``ndarray`` free of an import cycle through ``matrix``)."""
    compound = getattr(dtype, "scalar_and_shape", None)
    if compound is not None:
        return compound()
    if dtype is None:
        return None, ()
    cfg = _settings.current()
    resolved = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if resolved is None:
        raise TiTypeError(
            f"{dtype!r} is not an ndarray element type",
            hint="use a scalar type (ti.f32, float...) or ti.types.vector/matrix(...)",
        )
    return resolved, ()


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
    """A NumPy-backed array that kernels take as a ``ti.types.ndarray()`` argument.

    Its elements are scalars, or vectors/matrices (``ti.Vector.ndarray(3, ti.f32, (4,))``,
    ``ti.ndarray(ti.math.vec3, 4)``): ``shape`` is the element grid, ``element_shape``
    the vector's, and ``to_numpy()`` has both, the element's dimensions last.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> a = ti.Vector.ndarray(2, ti.f32, shape=3)
        >>> a[1] = [1, 2]
        >>> a.shape, a.element_shape, a.to_numpy().shape, a[1].tolist()
        ((3,), (2,), (3, 2), [1.0, 2.0])
    """

    def __init__(
        self,
        dtype,
        shape,
        element_shape: tuple[int, ...] = (),
        needs_grad: bool = False,
        needs_dual: bool = False,
    ) -> None:
        self.dtype, own_shape = _element_type(dtype)
        self.element_shape = own_shape or tuple(element_shape)
        if self.dtype is None:
            raise TiTypeError(f"ti.ndarray: {dtype!r} is not a type")
        self.shape = normalize_shape(shape)
        self._array = np.zeros(self.shape + self.element_shape, dtype=self.dtype.np_dtype)
        # a device copy once a CUDA kernel takes it (runtime/array_homes.py)
        self._home = array_homes.home_of(self._array)
        # needs_grad / needs_dual: arrays of the same shape that grad kernels take with it
        self.grad = Ndarray(dtype, shape, element_shape) if needs_grad else None
        self.dual = Ndarray(dtype, shape, element_shape) if needs_dual else None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def to_numpy(self) -> np.ndarray:
        self._home.before_host_access(write=False)
        return host_copy.copy_out(self._array, None, _settings.current().num_threads)

    def from_numpy(self, array) -> None:
        array = exact_numbers.as_array(array, self.dtype, "ndarray")
        if array.shape != self._array.shape:
            raise TiValueError(
                f"from_numpy: shape {array.shape} != ndarray shape {self._array.shape}"
            )
        self._home.before_host_access(write=True, covers=True)
        host_copy.copy_into(self._array, array, _settings.current().num_threads)
        self._home.after_bulk_write()

    def copy_from(self, other: Ndarray) -> None:
        """Copies ``other``'s elements (same shape and element shape) into this array."""
        other._home.before_host_access(write=False)
        self.from_numpy(other._array)

    def fill(self, value) -> None:
        typed = exact_numbers.typed_array(value, self.dtype, "ndarray")
        self._home.before_host_access(write=True, covers=True)
        self._array[...] = typed
        self._home.after_bulk_write()

    def __getitem__(self, key):
        self._home.before_host_access(write=False)
        element = self._array[key]
        return element.item() if np.ndim(element) == 0 else element.copy()

    def __setitem__(self, key, value) -> None:
        typed = exact_numbers.typed_array(value, self.dtype, "ndarray")
        self._home.before_host_access(write=True)
        self._array[key] = typed

    def __repr__(self) -> str:
        return field_text.ndarray_repr(self)

    def __str__(self) -> str:
        return field_text.ndarray_str(self)


def ndarray(dtype, shape, needs_grad: bool = False, needs_dual: bool = False) -> Ndarray:
    """``ti.ndarray(dtype, shape)``: ``dtype`` a scalar type or a vector/matrix type;
    ``needs_grad=True`` gives it ``a.grad``, which ``kernel.grad(a)`` accumulates into."""
    return Ndarray(dtype, shape, needs_grad=needs_grad, needs_dual=needs_dual)
