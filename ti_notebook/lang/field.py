"""``ti.field``: a typed, N-dimensional array that kernels and Python both index.

A field is declared, placed in an SNode tree (``ti.field(dtype, shape)`` places it with
``ti.root.dense(...)``), and lives at the addresses its tree's memory plan gives;
codegen, ``to_numpy`` and the layout widget all read the same plan.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(2, 3))
    >>> x[1, 2] = 5
    >>> x.to_numpy()[1, 2].item(), x.layout().address((1, 2))
    (5.0, 20)
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

from ti_notebook.errors import (
    TiIndexError,
    TiOverflowError,
    TiRuntimeError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.lang import (
    autodiff,
    exact_numbers,
    field_options,
    field_placement,
    field_text,
    loop_registry,
    types,
)
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import snode as _snode
from ti_notebook.lang.assigned_names import assigned_name
from ti_notebook.lang.validate import extents
from ti_notebook.plan.layout import FieldLayout
from ti_notebook.runtime import host_copy
from ti_notebook.runtime.memory import (
    before_view_access,
    writing_every_element,
)

_live_trees: weakref.WeakSet = weakref.WeakSet()


def normalize_shape(shape) -> tuple[int, ...]:
    # a NumPy integer is a shape too (``shape=n`` with ``n = a.size``); ``n == ()``
    # would compare elementwise
    if shape is None or (isinstance(shape, (tuple, list)) and len(shape) == 0):
        return ()
    return extents(shape, "field shape")


def _integral_from_float(value: float, dtype: types.DataType, label: str) -> int:
    """``x[i] = 2.7`` on an integer field truncates as C does; a value the type cannot
    hold (1e20 into i32, inf, nan) is an error rather than an arbitrary number."""
    bits = dtype.bits - 1 if dtype.is_signed else dtype.bits
    low = -(1 << bits) if dtype.is_signed else 0
    if not (low - 1 < value < (1 << bits)):  # also False for nan
        raise TiOverflowError(
            f"{value!r} does not fit {label} of type {dtype} [{low}, {(1 << bits) - 1}]",
            hint="store a value in range, or declare the field with a wider or float type",
        )
    return int(value)


class Field:
    """A scalar field; see :func:`field`."""

    def __init__(self, dtype: types.DataType, name: str = "") -> None:
        self.dtype = dtype
        self.name = name or "field"
        self._snode: _snode.SNode | None = None
        self._tree = None
        self._layout: FieldLayout | None = None
        self._view: np.ndarray | None = None
        self._memory = None  # the tree's memory, kept for the device-copy check
        self.owner = None  # the vector/matrix field this is a component of, if any
        # needs_grad / needs_dual: the adjoint fields (lang/autodiff.py)
        self._grad: Field | None = None
        self._dual: Field | None = None
        self.is_adjoint = False

    @property
    def grad(self) -> Field:
        """The gradient field (``needs_grad=True``): same shape, type and layout."""
        return autodiff.adjoint_of(self, "grad")

    @property
    def dual(self) -> Field:
        """The dual field of forward mode (``needs_dual=True``)."""
        return autodiff.adjoint_of(self, "dual")

    @property
    def label(self) -> str:
        """How errors name the field: ``field 'x'``, or its vector/matrix field's name."""
        if self.owner is not None:
            return self.owner.label
        return f"field '{self.name}'"

    def _place_hint(self) -> str:
        if self.is_adjoint:
            option = "needs_grad" if self.name.endswith(".grad") else "needs_dual"
            return f"declare '{self.primal.name}' with {option}=True, or place {self.name}"
        name = self.owner.name if self.owner is not None else self.name
        return (
            f"place it first, e.g. ti.root.dense(ti.i, n).place({name}), "
            "or declare it with a shape: shape=n"
        )

    # -- placement ---------------------------------------------------------------------
    def _bind(self, tree, layout: FieldLayout) -> None:
        self._tree = tree
        self._memory = tree.memory
        self._layout = layout
        _live_trees.add(tree)
        strides = layout.strides
        if strides is not None and not layout.is_sparse:
            base = layout.offset
            self._view = tree.memory.view(self.dtype.np_dtype, base, layout.shape, strides)

    def _materialize(self) -> None:
        if self._layout is not None:
            if self._tree.destroyed:
                raise TiRuntimeError(
                    f"{self.label} belongs to an SNode tree that was destroyed "
                    "(tree.destroy() or ti.reset())",
                    hint="declare the field again in a new tree",
                )
            return
        if self._snode is None and autodiff.place_with_primal(self):
            return
        if self._snode is None:
            raise TiRuntimeError(
                f"{self.label} was declared without a shape and never placed",
                hint=self._place_hint(),
            )
        builder = self._snode.builder
        if builder.discarded:
            raise TiRuntimeError(
                f"{self.label} was declared before ti.reset(), which destroyed it",
                hint="declare the field again after ti.init()",
            )
        if builder is _snode.default_builder():
            _snode.materialize_default()
        else:
            raise TiRuntimeError(
                f"{self.label} belongs to a FieldsBuilder that is not finalized",
                hint="call fb.finalize() before using its fields",
            )

    @property
    def snode(self) -> _snode.SNode:
        if self._snode is None:
            raise TiRuntimeError(f"{self.label} is not placed yet", hint=self._place_hint())
        return self._snode

    @property
    def shape(self) -> tuple[int, ...]:
        if self._layout is not None:
            return self._layout.shape
        return self.snode.parent().shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def layout(self) -> FieldLayout:
        """The field's memory plan (read-only; see ``plan/layout.py``)."""
        self._materialize()
        return self._layout

    def plan(self) -> FieldLayout:
        """The field's memory plan (as ``layout()``; ``snode.plan()`` gives a subtree's).

        >>> import ti_notebook as ti
        >>> x = ti.field(ti.f32, shape=(2, 3))
        >>> x.plan().address((1, 2)) - x.plan().offset
        20
        """
        return self.layout()

    @property
    def tree(self):
        self._materialize()
        return self._tree

    def parent(self, n: int = 1):
        return self.snode.parent(n)

    # -- Python-scope access -------------------------------------------------------------
    def _index(self, key) -> tuple[int, ...]:
        if key is None:
            key = ()
        elif not isinstance(key, tuple):  # a NumPy integer too: never ``key == ()``
            key = (key,)
        shape = self.shape
        if len(key) != len(shape):
            raise TiIndexError(
                f"{self.label} has {len(shape)} dimension(s) but was indexed with {len(key)}",
                hint="use x[None] for a 0-D field" if not shape else "",
            )
        index = []
        origin = self._layout.origin if self._layout is not None else (0,) * len(shape)
        for axis, (i, extent, lo) in enumerate(zip(key, shape, origin, strict=True)):
            if not isinstance(i, (int, np.integer)):
                raise TiTypeError(f"field index {i!r} on axis {axis} is not an integer")
            if not lo <= i < lo + extent:
                where = f"of shape {shape}"
                if any(origin):  # offset=: say the range the indices have
                    where += " indexed from " + str(origin)
                raise TiIndexError(
                    f"index {tuple(key)} is out of range for {self.label} {where} (axis {axis})"
                )
            index.append(int(i))
        return tuple(index)

    def _position(self, index: tuple[int, ...]) -> tuple[int, ...]:
        """The position (from 0) in the plan of a checked user index (``offset=``)."""
        if not self._layout.index_offset:
            return index
        return self._layout.position(index)

    def _element(self, index: tuple[int, ...]) -> np.ndarray:
        """A 0-D view of one element."""
        address = self._layout.address(index)
        return self._tree.memory.view(self.dtype.np_dtype, address, (), ())

    def __getitem__(self, key):
        self._materialize()
        index = self._position(self._index(key))
        if self._memory.device is not None:  # a CUDA copy: see runtime/memory.py
            before_view_access(self._memory, False, self._view)
        if self._view is not None:
            return self._view[index].item()
        return self._element(index)[()].item()

    def __setitem__(self, key, value) -> None:
        self._materialize()
        index = self._position(self._index(key))
        if self.dtype.is_integral and isinstance(value, (int, np.integer)):
            # narrow types wrap as a store in a kernel would; 64-bit ones check
            value = exact_numbers.integer(value, self.dtype, self.label)
        elif self.dtype.is_integral and isinstance(value, (float, np.floating)):
            value = _integral_from_float(value, self.dtype, self.label)
        from ti_notebook.lang import sparse

        if self._memory.device is not None:
            before_view_access(self._memory, True, self._view)
        if self._view is not None:
            self._view[index] = value
            return
        sparse.activate_path(self, index)
        self._element(index)[()] = value

    def fill(self, value) -> None:
        self._materialize()
        value = exact_numbers.scalar(value, self.dtype, self.label)
        if self._view is not None:
            with writing_every_element(self._memory, self._view):
                self._view[...] = value
            return
        # Taichi's rule: the active cells only, activating none
        loop_registry.loops().fill(self, [value])

    def to_numpy(self, dtype=None) -> np.ndarray:
        self._materialize()
        if self._view is not None:
            if self._memory.device is not None:
                before_view_access(self._memory, False, self._view)
            return host_copy.copy_out(self._view, dtype, _settings.current().num_threads)
        values = loop_registry.loops().to_numpy(self)  # inactive: 0
        return values.astype(dtype) if dtype is not None else values

    def from_numpy(self, array) -> None:
        self._materialize()
        array = exact_numbers.as_array(array, self.dtype, self.label)
        if array.shape != self.shape:
            raise TiValueError(
                f"from_numpy: array of shape {array.shape} does not match field "
                f"'{self.name}' of shape {self.shape}"
            )
        if self._view is not None:
            with writing_every_element(self._memory, self._view):
                host_copy.copy_into(self._view, array, _settings.current().num_threads)
            return
        # as fill(): active cells only
        loop_registry.loops().from_numpy(self, array)

    def copy_from(self, other: Field) -> None:
        """``self[I] = other[I]`` for every index, as Taichi's: the fields' shapes must
        match; every cell of a sparse ``self`` becomes active (an inactive cell of
        ``other`` reads 0).

        >>> import ti_notebook as ti
        >>> a, b = ti.field(ti.i32, shape=3), ti.field(ti.i32, shape=3)
        >>> a.from_numpy(np.array([1, 2, 3], dtype=np.int32))
        >>> b.copy_from(a)
        >>> b.to_numpy().tolist()
        [1, 2, 3]
        """
        loop_registry.loops().copy_from(self, other)

    def __repr__(self) -> str:
        return field_text.field_repr(self)

    def __str__(self) -> str:
        return field_text.field_str(self)


def field(
    dtype,
    shape=None,
    name: str = "",
    offset=None,
    needs_grad: bool = False,
    needs_dual: bool = False,
    **options,
) -> Field:
    """Declares a field of ``dtype``; with ``shape`` it is placed in ``ti.root`` at once.
    ``needs_grad`` / ``needs_dual`` give it ``x.grad`` / ``x.dual`` (``lang/autodiff.py``);
    ``offset=`` and ``order=`` are Taichi's (``lang/field_options.py``); a vector, matrix
    or struct ``dtype`` makes a vector, matrix or struct field.

    >>> import ti_notebook as ti
    >>> s = ti.field(ti.i32, shape=())
    >>> s[None] = 3
    >>> s[None]
    3
    """
    name = name or _assigned_name(sys._getframe(1))
    if _is_compound(dtype):  # ti.math.vec3, ti.types.matrix(...), a struct type
        adjoint = {"needs_grad": needs_grad, "needs_dual": needs_dual}
        return dtype.field(shape=shape, name=name, offset=offset, **adjoint, **options)
    options["offset"] = offset
    opts = field_options.take("ti.field", options, shape)
    cfg = _settings.current()
    dt = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if dt is None:
        raise TiTypeError(f"ti.field: {dtype!r} is not a type", hint="use e.g. ti.f32")
    result = Field(dt, name)
    autodiff.attach(result, bool(needs_grad), bool(needs_dual))
    if shape is not None:
        place_with_shape(result, normalize_shape(shape), opts)
    return result


def _is_compound(dtype) -> bool:
    """A vector, matrix or struct type: one that makes its own fields (``.field``)."""
    return not isinstance(dtype, (type, types.DataType)) and callable(getattr(dtype, "field", None))


def _assigned_name(frame) -> str:
    """``x`` in ``x = ti.field(...)``: the name errors and pictures use for the field."""
    return assigned_name(frame)


def place_with_shape(f, shape: tuple[int, ...], options=None) -> None:
    """``ti.field(..., shape=s)``: sugar for ``ti.root.dense(axes, s).place(f)``, built as
    ``options`` (``field_options.FieldOptions``: offset, order, layout) say."""
    field_placement.place(f, shape, options)


def live_trees() -> list:
    """The trees that have fields bound (alive or destroyed), for ``ti.deactivate_all_snodes``."""
    return list(_live_trees)


def free_all_fields() -> None:
    """``ti.reset()``: frees every tree's memory and forgets ``ti.root``'s declarations."""
    for tree in list(_live_trees):
        tree.memory.free()
    _snode.reset_default()
