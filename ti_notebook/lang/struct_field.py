"""Struct fields: ``ti.Struct.field({...}, shape=n)``, ``Particle.field(shape=n)``.

A struct field is one field per member - a scalar field, a vector/matrix field or
another struct field - whose scalar components are placed in one cell like a vector
field's (AoS): ``components`` lists them all, in member order, and ``place`` and the
memory plan treat them as one element.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec2 = ti.types.vector(2, ti.f32)
    >>> s = ti.Struct.field({"pos": vec2, "mass": ti.f32}, shape=4)
    >>> s[3].pos = [1, 2]
    >>> s[3].mass = 5
    >>> s.mass.to_numpy().tolist(), s.to_numpy()["pos"][3].tolist()
    ([0.0, 0.0, 0.0, 5.0], [1.0, 2.0])
    >>> [c.layout().address((1,)) - s.pos.components[0].layout().offset for c in s.components]
    [12, 16, 20]
"""

from __future__ import annotations

import numbers

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import autodiff, field_text, matrix
from ti_notebook.lang.field import Field, normalize_shape, place_with_shape
from ti_notebook.lang.field import field as scalar_field
from ti_notebook.lang.matrix_types import MatrixType
from ti_notebook.lang.struct_base import StructTypeBase as StructType

__all__ = ["StructElement", "StructField", "make_struct_field"]


def make_struct_field(struct_type: StructType, shape, name: str, **options) -> StructField:
    """The field of ``struct_type`` values; placed in ``ti.root`` when ``shape`` is given."""
    from ti_notebook.lang import field_options

    adjoint = autodiff.take_options(options)
    opts = field_options.take("ti.Struct.field", options, shape)
    result = StructField(_member_fields(struct_type, name), struct_type, name)
    autodiff.attach(result, *adjoint)
    if shape is not None:
        place_with_shape(result, normalize_shape(shape), opts)
    return result


def _member_fields(struct_type: StructType, name: str) -> dict:
    members = {}
    for key in struct_type.members:
        member_type, member_name = struct_type.member_type(key), f"{name}.{key}"
        if isinstance(member_type, StructType):
            members[key] = StructField(
                _member_fields(member_type, member_name), member_type, member_name
            )
        elif isinstance(member_type, MatrixType):
            m = None if member_type.ndim == 1 else member_type.m
            members[key] = matrix.MatrixField(member_type.n, m, member_type.dtype, member_name)
        else:
            members[key] = scalar_field(member_type, name=member_name)
    return members


class StructField:
    """A field of struct values; ``s.mass`` is the member's own field (a member named
    like one of the field's own attributes, ``shape`` or ``fill``, is reached with
    ``s.get_member_field("shape")``)."""

    def __init__(self, members: dict, struct_type: StructType, name: str) -> None:
        self._members = members
        self.struct_type = struct_type
        self.name = name or "struct"
        self.components: list[Field] = []
        for member in members.values():
            self.components.extend(getattr(member, "components", None) or [member])

    # -- members --------------------------------------------------------------------------
    @property
    def keys(self) -> list[str]:
        """The member names, in order."""
        return list(self._members)

    @property
    def members(self) -> dict:
        """Member name → its field (a copy of the mapping)."""
        return dict(self._members)

    def get_member_field(self, key: str):
        """The field of member ``key``."""
        if key not in self._members:
            raise TiTypeError(
                f"{self.label} has no member '{key}'", hint=f"its members are {self.keys}"
            )
        return self._members[key]

    def __getattr__(self, name: str):
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        raise AttributeError(
            f"struct field '{self.__dict__.get('name')}' has no member or attribute '{name}'"
        )

    @property
    def grad(self) -> StructField:
        """The gradient field (``needs_grad=True``): its members' gradients."""
        return autodiff.adjoint_of(self, "grad")

    @property
    def dual(self) -> StructField:
        """The dual field of forward mode (``needs_dual=True``)."""
        return autodiff.adjoint_of(self, "dual")

    # -- shape and placement ----------------------------------------------------------------
    @property
    def label(self) -> str:
        return f"struct field '{self.name}'"

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
        """The first component's plan (``[c.layout() for c in s.components]`` has all)."""
        return self.components[0].layout()

    # -- data ---------------------------------------------------------------------------------
    def to_numpy(self) -> dict:
        """Member name → its ``to_numpy()`` (a dict for a nested struct)."""
        return {key: member.to_numpy() for key, member in self._members.items()}

    def from_numpy(self, arrays: dict) -> None:
        """Fills every member from ``arrays[member]`` (what :meth:`to_numpy` returns)."""
        if not isinstance(arrays, dict):
            raise TiTypeError(
                f"from_numpy: {self.label} takes a dict of arrays, got {type(arrays).__name__}",
                hint=f"pass {{{', '.join(repr(k) + ': ...' for k in self.keys)}}}",
            )
        missing = [key for key in self._members if key not in arrays]
        unknown = [key for key in arrays if key not in self._members]
        if missing or unknown:
            raise TiValueError(
                f"from_numpy: {self.label} has members {self.keys}; "
                + (f"missing {missing}" if missing else f"unknown {unknown}")
            )
        for key, member in self._members.items():
            member.from_numpy(arrays[key])

    def fill(self, value) -> None:
        """Every scalar of every element set to ``value`` (a number)."""
        for member in self._members.values():
            member.fill(value)

    def copy_from(self, other: StructField) -> None:
        if not isinstance(other, StructField) or other.keys != self.keys:
            raise TiTypeError(f"copy_from: {self.label} needs a struct field of the same members")
        # member by member, as Taichi: every element is copied (a sparse one activated)
        for key, member in self._members.items():
            member.copy_from(other._members[key])

    def __getitem__(self, key) -> StructElement:
        first = self.components[0]
        first._materialize()
        return StructElement(self, first._index(key))

    def __setitem__(self, key, value) -> None:
        self[key]._assign(value)

    def __repr__(self) -> str:
        return field_text.field_repr(self)

    def __str__(self) -> str:
        return field_text.field_str(self)


class StructElement:
    """``s[i]`` from Python: one element of a struct field, read and written live.

    ``s[i].mass`` reads the member now, ``s[i].pos`` is the vector field's live element
    and ``s[i].mass = 2`` writes it; ``to_dict()`` copies every member.
    """

    __slots__ = ("_field", "_key")

    def __init__(self, field: StructField, key: tuple[int, ...]) -> None:
        object.__setattr__(self, "_field", field)
        object.__setattr__(self, "_key", key)

    @property
    def keys(self) -> list[str]:
        return self._field.keys

    def _member(self, name: str):
        members = self._field._members
        if name not in members:
            raise AttributeError(
                f"{self._field.label} has no member '{name}' (its members: {self._field.keys})"
            )
        return members[name]

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        struct_type = self._field.struct_type
        if name not in self._field._members and name in struct_type.methods:
            method = struct_type.methods[name]
            return method.__get__(self, type(self)) if hasattr(method, "__get__") else method
        return self._member(name)[self._key]

    def __setattr__(self, name: str, value) -> None:
        member = self._member(name)
        if isinstance(member, StructField):
            member[self._key]._assign(value)
            return
        if isinstance(member, Field) and not _is_number(value):
            raise TiTypeError(
                f"{self._field.label}: member '{name}' is a scalar ({member.dtype}), got "
                f"{type(value).__name__}"
            )
        member[self._key] = value

    __getitem__ = __getattr__
    __setitem__ = __setattr__

    def _assign(self, value) -> None:
        """The whole element from a struct value, another element or a dict."""
        if hasattr(value, "to_dict") and not isinstance(value, dict):
            value = value.to_dict()
        if not isinstance(value, dict):
            raise TiTypeError(
                f"{self._field.label}: an element takes a struct value or a dict of its "
                f"members, got {type(value).__name__}"
            )
        unknown = [key for key in value if key not in self._field._members]
        if unknown:
            raise TiTypeError(
                f"{self._field.label} has no member '{unknown[0]}'",
                hint=f"its members are {self._field.keys}",
            )
        for key, item in value.items():
            setattr(self, key, item)

    def to_dict(self) -> dict:
        """Every member's current value: numbers, nested lists, dicts."""
        out = {}
        for key, member in self._field._members.items():
            item = member[self._key]
            out[key] = item.to_dict() if isinstance(item, StructElement) else _plain(item)
        return out

    def __repr__(self) -> str:
        return str(self.to_dict())


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.number)) and not isinstance(value, complex)
