"""``ti.field``: a typed, N-dimensional array that kernels and Python both index.

A field's elements live in its SNode tree's buffer at the addresses its
:class:`FieldPlan` gives; codegen computes addresses from the same plan.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(2, 3))
    >>> x[1, 2] = 5
    >>> x.to_numpy()[1, 2], x.layout().address((1, 2))
    (5.0, 20)
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from ti_notebook.errors import TiIndexError, TiRuntimeError, TiTypeError, TiValueError
from ti_notebook.lang import config as _config
from ti_notebook.lang import types
from ti_notebook.lang.memory import TreeMemory, allocate_tree

_live_fields: weakref.WeakSet = weakref.WeakSet()


@dataclasses.dataclass(frozen=True)
class FieldPlan:
    """Where a field's elements are: ``base + offset + sum(index[a] * strides[a])``.

    Read-only compiler data (DESIGN.md section 4): addresses are relative to the base
    of tree ``tree_id``.
    """

    tree_id: int
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    cell_size: int
    dtype_name: str

    def address(self, index: tuple[int, ...]) -> int:
        """Byte address of ``index`` relative to the tree's base."""
        return self.offset + sum(i * s for i, s in zip(index, self.strides, strict=True))


def _row_major_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def normalize_shape(shape) -> tuple[int, ...]:
    if shape is None or shape == ():
        return ()
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s <= 0 for s in shape):
        raise TiValueError(f"field shape {shape} must have positive extents")
    return shape


class Field:
    """A scalar field; see :func:`field`."""

    def __init__(self, dtype: types.DataType, shape: tuple[int, ...], name: str = "") -> None:
        self.dtype = dtype
        self.shape = shape
        self.name = name or "field"
        itemsize = dtype.size
        count = int(np.prod(shape)) if shape else 1
        self._memory: TreeMemory = allocate_tree(count * itemsize)
        self._plan = FieldPlan(
            self._memory.tree_id,
            0,
            shape,
            _row_major_strides(shape, itemsize),
            itemsize,
            dtype.name,
        )
        self._view = self._memory.view(dtype.np_dtype, 0, shape, self._plan.strides)
        _live_fields.add(self)

    # -- compiler data -----------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    def layout(self) -> FieldPlan:
        """The field's memory plan (read-only)."""
        self._check_alive()
        return self._plan

    @property
    def plan(self) -> FieldPlan:
        return self.layout()

    def _check_alive(self) -> None:
        if not self._memory.alive:
            raise TiRuntimeError(
                f"field '{self.name}' was freed (ti.reset() or its tree was destroyed)",
                hint="create the field again after ti.reset()",
            )

    def destroy(self) -> None:
        self._memory.free()

    # -- Python-scope access -------------------------------------------------------------
    def _index(self, key) -> tuple[int, ...]:
        if key is None or key == ():
            key = ()
        elif not isinstance(key, tuple):
            key = (key,)
        if len(key) != self.ndim:
            raise TiIndexError(
                f"field '{self.name}' has {self.ndim} dimension(s) but was indexed with {len(key)}",
                hint="use x[None] for a 0-D field" if self.ndim == 0 else "",
            )
        index = []
        for axis, (i, extent) in enumerate(zip(key, self.shape, strict=True)):
            if not isinstance(i, (int, np.integer)):
                raise TiTypeError(f"field index {i!r} on axis {axis} is not an integer")
            if not 0 <= i < extent:
                raise TiIndexError(
                    f"index {tuple(key)} is out of range for field '{self.name}' of shape "
                    f"{self.shape} (axis {axis})"
                )
            index.append(int(i))
        return tuple(index)

    def __getitem__(self, key):
        self._check_alive()
        return self._view[self._index(key)].item()

    def __setitem__(self, key, value) -> None:
        self._check_alive()
        index = self._index(key)
        if self.dtype.is_integral and isinstance(value, int):
            value = _wrap(value, self.dtype)  # as a store in a kernel would
        self._view[index] = value

    def fill(self, value) -> None:
        self._check_alive()
        self._view[...] = value

    def to_numpy(self, dtype=None) -> np.ndarray:
        self._check_alive()
        return np.array(self._view, dtype=dtype, copy=True)

    def from_numpy(self, array) -> None:
        self._check_alive()
        array = np.asarray(array)
        if array.shape != self.shape:
            raise TiValueError(
                f"from_numpy: array of shape {array.shape} does not match field "
                f"'{self.name}' of shape {self.shape}"
            )
        self._view[...] = array

    def __repr__(self) -> str:
        return f"<ti.field {self.name}: {self.dtype} {self.shape}>"


def field(dtype, shape=(), name: str = "", **_unused) -> Field:
    """Creates a zero-initialised field of ``dtype`` and ``shape`` (``()``: 0-D).

    >>> import ti_notebook as ti
    >>> s = ti.field(ti.i32, shape=())
    >>> s[None] = 3
    >>> s[None]
    3
    """
    cfg = _config.current()
    dt = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if dt is None:
        raise TiTypeError(f"ti.field: {dtype!r} is not a type", hint="use e.g. ti.f32")
    return Field(dt, normalize_shape(shape), name)


def _wrap(value: int, dtype: types.DataType) -> int:
    value &= (1 << dtype.bits) - 1
    if dtype.is_signed and value >= 1 << (dtype.bits - 1):
        value -= 1 << dtype.bits
    return value


def free_all_fields() -> None:
    """``ti.reset()``: frees every field's memory."""
    for f in list(_live_fields):
        f.destroy()
