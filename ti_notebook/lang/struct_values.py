"""Struct values in Python: ``ti.Struct(...)``, ``Particle(...)`` and what kernels return.

A :class:`Struct` holds its members by name: numbers, vectors/matrices (what
``ti.Vector``/``ti.Matrix`` make in Python: :func:`python_matrix` is the one place that
decides) and nested structs. Members read and write as attributes or items; a typed
value (made by a struct type, or returned by a kernel) converts what is assigned to the
member's type and carries the type's methods.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> Particle = ti.types.struct(pos=ti.types.vector(2, ti.f32), mass=ti.f32)
    >>> p = Particle(pos=[1, 2])
    >>> p.mass = 3
    >>> p.mass, p["pos"].tolist(), p.keys
    (3.0, [1.0, 2.0], ['pos', 'mass'])
    >>> ti.Struct(a=1, b=ti.Struct(c=2.5)).to_dict()
    {'a': 1, 'b': {'c': 2.5}}
"""

from __future__ import annotations

import numbers

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import exact_numbers, types
from ti_notebook.lang import matrix as _matrix
from ti_notebook.lang.matrix_types import MatrixType
from ti_notebook.lang.struct_base import StructTypeBase as StructType
from ti_notebook.lang.struct_base import resolve

__all__ = ["Struct", "convert_member", "make_value", "python_matrix"]


def python_matrix(values, shape: tuple[int, ...], dtype: types.DataType):
    """A vector/matrix value in Python scope, as ``ti.Vector``/``ti.Matrix`` make it.

    The one place struct members, kernel arguments and kernel results become Python
    vectors: it follows whatever ``ti.Vector([...])`` gives.

    >>> python_matrix([1, 2, 3, 4], (2, 2), types.i32).tolist()
    [[1, 2], [3, 4]]
    """
    array = exact_numbers.typed_array(values, dtype).reshape(shape)
    if len(shape) == 1:
        return _matrix.Vector(array.tolist(), dtype)
    return _matrix.Matrix(array.tolist(), dtype)


def convert_member(owner: str, key: str, member_type, value):
    """``value`` as member ``key`` of type ``member_type`` holds it in Python."""
    resolved = resolve(member_type)
    if isinstance(resolved, StructType):
        if isinstance(value, numbers.Number):  # Taichi fills a nested struct with it
            return make_value(resolved, (), dict.fromkeys(resolved.members, value))
        return _struct_from(owner, key, resolved, value)
    if isinstance(resolved, MatrixType):
        try:  # in the member's type from the start: no rounding of big integers
            array = exact_numbers.typed_array(_plain(value), resolved.dtype, f"{owner}.{key}")
        except (TiTypeError, TiValueError):
            raise TiTypeError(
                f"{owner}: member '{key}' is a {resolved!r}, got {type(value).__name__} {value!r}"
            ) from None
        if array.ndim == 0:
            array = np.full(resolved.shape, array)
        if array.shape != resolved.shape:
            raise TiValueError(
                f"{owner}: member '{key}' has shape {resolved.shape}, got a value of shape "
                f"{array.shape}"
            )
        return python_matrix(array, resolved.shape, resolved.dtype)
    if isinstance(value, (bool, numbers.Number, np.number)) and np.ndim(value) == 0:
        return float(value) if resolved.is_float else exact_numbers.integer(value, resolved)
    raise TiTypeError(
        f"{owner}: member '{key}' is a scalar ({resolved}), got {type(value).__name__} {value!r}",
        hint="give it a number; vectors go in members of a ti.types.vector type",
    )


def _plain(value):
    to_numpy = getattr(value, "to_numpy", None)
    return to_numpy() if callable(to_numpy) else value


def _struct_from(owner: str, key: str, struct_type: StructType, value):
    if isinstance(value, dict):
        return make_value(struct_type, (), value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return make_value(struct_type, (), to_dict())
    raise TiTypeError(
        f"{owner}: member '{key}' is a struct ({struct_type!r}), got {type(value).__name__}",
        hint="give it a value of that struct type, or a dict of its members",
    )


def make_value(struct_type: StructType, args: tuple, kwargs: dict) -> Struct:
    """``StructType(*args, **kwargs)`` in Python: members by position, then by name;
    the others are zero. A name that is not a member is an error (Taichi ignores it)."""
    keys = list(struct_type.members)
    owner = struct_type.label
    if len(args) > len(keys):
        raise TiTypeError(f"{owner} has {len(keys)} member(s) but {len(args)} values were given")
    given = dict(zip(keys, args, strict=False))
    for key, value in kwargs.items():
        if key not in struct_type.members:
            raise TiTypeError(
                f"{owner} has no member '{key}'", hint=f"its members are {', '.join(keys)}"
            )
        if key in given:
            raise TiTypeError(f"{owner}: member '{key}' was given twice")
        given[key] = value
    entries = {
        key: convert_member(owner, key, struct_type.members[key], given.get(key, 0)) for key in keys
    }
    return Struct._typed(entries, struct_type)


class Struct:
    """A struct value in Python (``ti.Struct(a=1, v=[1, 2])`` or ``ti.Struct({...})``).

    ``Struct.field(members, shape=...)`` makes a struct field (Taichi's spelling of
    ``ti.types.struct(**members).field(shape=...)``).
    """

    def __init__(self, *args, **kwargs) -> None:
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            entries = dict(args[0])
        elif not args:
            entries = kwargs
        else:
            raise TiTypeError(
                "ti.Struct takes a dict or keyword arguments",
                hint="write ti.Struct(pos=v, mass=1.0) or ti.Struct({'pos': v, 'mass': 1.0})",
            )
        entries.pop("__struct_methods", None)
        for key, value in entries.items():
            if isinstance(value, (list, tuple)):
                entries[key] = _untyped_matrix(value)
            elif isinstance(value, dict):
                entries[key] = Struct(value)
        object.__setattr__(self, "_entries", entries)
        object.__setattr__(self, "_type", None)

    @classmethod
    def _typed(cls, entries: dict, struct_type: StructType) -> Struct:
        value = cls.__new__(cls)
        object.__setattr__(value, "_entries", entries)
        object.__setattr__(value, "_type", struct_type)
        return value

    @classmethod
    def field(
        cls, members: dict, methods: dict | None = None, shape=None, name: str = "", **options
    ):
        """``ti.Struct.field({"pos": vec3, "mass": ti.f32}, shape=n)``: a struct field."""
        import sys

        from ti_notebook.lang.field import _assigned_name
        from ti_notebook.lang.struct_field import make_struct_field

        if not isinstance(members, dict):
            raise TiTypeError(
                f"ti.Struct.field takes a dict of member types, got {type(members).__name__}",
                hint='write ti.Struct.field({"pos": vec3, "mass": ti.f32}, shape=n)',
            )
        struct_type = StructType(members, methods)
        name = name or _assigned_name(sys._getframe(1)) or "struct"
        struct_type.name = name
        return make_struct_field(struct_type, shape, name, **options)

    # -- members ----------------------------------------------------------------------------
    @property
    def keys(self) -> list[str]:
        """The member names, in order."""
        return list(self._entries)

    @property
    def items(self):
        return self._entries.items()

    @property
    def entries(self) -> dict:
        return self._entries

    def __getattr__(self, name: str):
        entries = self.__dict__.get("_entries", {})
        if name in entries:
            return entries[name]
        struct_type = self.__dict__.get("_type")
        if struct_type is not None and name in struct_type.methods:
            method = struct_type.methods[name]
            return method.__get__(self, type(self)) if hasattr(method, "__get__") else method
        raise AttributeError(f"struct has no member '{name}' (its members: {list(entries)})")

    def __setattr__(self, name: str, value) -> None:
        if name not in self._entries:
            raise AttributeError(f"struct has no member '{name}' (its members: {self.keys})")
        self[name] = value

    def __getitem__(self, key: str):
        return self._entries[key]

    def __setitem__(self, key: str, value) -> None:
        if key not in self._entries:
            raise KeyError(key)
        if self._type is not None:
            value = convert_member(self._type.label, key, self._type.members[key], value)
        self._entries[key] = value

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries.values())

    def to_dict(self) -> dict:
        """Members by name; vectors/matrices as nested lists, structs as dicts."""
        return {key: _plain_member(value) for key, value in self._entries.items()}

    def __repr__(self) -> str:
        return str(self.to_dict())


def _plain_member(value):
    if isinstance(value, Struct):
        return value.to_dict()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _untyped_matrix(values):
    array = exact_numbers.weak_array(values, "ti.Struct")
    dtype = types.from_numpy_dtype(array.dtype) or types.f64
    return python_matrix(array, array.shape, dtype)
