"""Vector, matrix and struct kernel arguments; vector, matrix, struct and tuple returns.

Taichi 1.7 lets a kernel take ``v: ti.types.vector(3, ti.f32)``, a matrix type or a
struct type, and return any of those or a tuple of values (``-> tuple[ti.i32,
ti.f32]``, ``-> (ti.i32, vec2)``; a 1-tuple returns its one value). The launcher sees
only scalars: each compound is flattened into one argument or return slot per
component (:func:`compound_type`), a Python value into those scalars at every call
(:func:`flatten`), and the scalars a launch returns back into Python values
(:func:`rebuild`: vectors as ``ti.Vector`` makes them, structs as struct values).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec2 = ti.types.vector(2, ti.f32)
    >>> @ti.kernel
    ... def polar(v: vec2) -> tuple[ti.f32, ti.f32]:
    ...     return v.norm(), ti.atan2(v.y, v.x)
    >>> [round(x, 4) for x in polar([0.0, 2.0])]
    [2.0, 1.5708]
"""

from __future__ import annotations

import typing

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.ir.compound_types import CompoundType
from ti_notebook.lang import exact_numbers
from ti_notebook.lang.matrix_types import MatrixType
from ti_notebook.lang.struct_base import StructTypeBase, describe, leaves, resolve
from ti_notebook.lang.struct_values import make_value, python_matrix

__all__ = ["CompoundLauncher", "compound_type", "flatten", "rebuild", "return_type_of"]


def is_compound(annotation) -> bool:
    """A vector/matrix type or a struct type (a kernel argument of several scalars)."""
    return isinstance(annotation, (MatrixType, StructTypeBase))


def compound_type(annotation) -> CompoundType:
    """The compiler's view of a vector/matrix/struct type: its scalar slots in order.

    >>> import ti_notebook as ti
    >>> compound_type(ti.types.vector(2, ti.i32)).paths
    ('[0]', '[1]')
    """
    found = leaves(annotation)
    return CompoundType(
        annotation,
        tuple(dtype for _, dtype in found),
        describe(annotation),
        tuple(path for path, _ in found),
    )


def return_type_of(annotation, kernel: str):
    """What a kernel's return annotation means: None, a scalar DataType, or a
    CompoundType (a vector/matrix, a struct, or a tuple of any of them)."""
    members = _tuple_members(annotation)
    if members is not None:
        if len(members) == 1:  # Taichi returns a 1-tuple's value itself
            return return_type_of(members[0], kernel)
        resolved = tuple(_return_member(m, kernel) for m in members)
        found = [leaf for m in resolved for leaf in leaves(m)]
        return CompoundType(
            resolved,
            tuple(dtype for _, dtype in found),
            "tuple(" + ",".join(describe(m) for m in resolved) + ")",
            tuple(path for path, _ in found),
        )
    resolved = _return_member(annotation, kernel)
    return compound_type(resolved) if is_compound(resolved) else resolved


def _tuple_members(annotation) -> tuple | None:
    if isinstance(annotation, (tuple, list)):
        return tuple(annotation)
    if typing.get_origin(annotation) is tuple:
        members = typing.get_args(annotation)
        if Ellipsis in members:
            raise TiTypeError(
                "a kernel's return annotation cannot be tuple[..., ...]",
                hint="name every value's type: tuple[ti.i32, ti.f32]",
            )
        return members
    return None


def _return_member(annotation, kernel: str):
    resolved = resolve(annotation)
    if resolved is None:
        raise TiTypeError(
            f"kernel '{kernel}': unsupported return annotation {annotation!r}",
            hint="return a scalar type (ti.f32), a vector/matrix or struct type, or a "
            "tuple of them: -> tuple[ti.i32, ti.f32]",
        )
    return resolved


# -- Python values → scalars ---------------------------------------------------------------
def flatten(value, lang_type, name: str) -> list:
    """The scalars of ``value`` as an argument of ``lang_type`` (named ``name`` in
    errors), in slot order; the launcher converts and range-checks each."""
    resolved = resolve(lang_type)
    if isinstance(resolved, MatrixType):
        return _flatten_matrix(value, resolved, name)
    if isinstance(resolved, StructTypeBase):
        members = _struct_members(value, resolved, name)
        return [
            scalar
            for key in resolved.members
            for scalar in flatten(members[key], resolved.members[key], f"{name}.{key}")
        ]
    return [value]


def _flatten_matrix(value, matrix_type: MatrixType, name: str) -> list:
    to_numpy = getattr(value, "to_numpy", None)
    if callable(to_numpy) and not isinstance(value, np.ndarray):
        value = to_numpy()
    # item by item: np.asarray([2**63, 1]) would round both through float64
    try:
        items, shape = exact_numbers.nested_items(value)
    except ValueError:  # ragged nested lists
        items, shape = [None], ()
    if not all(exact_numbers.is_number(x) for x in items):
        raise TiTypeError(
            f"argument '{name}' must be a {matrix_type!r} (a list, a NumPy array or a "
            f"ti.Vector/ti.Matrix), got {type(value).__name__}"
        )
    if shape != matrix_type.shape:
        raise TiValueError(
            f"argument '{name}' must have shape {matrix_type.shape}, got {shape}",
            hint=f"pass {matrix_type.n * matrix_type.m} numbers shaped {matrix_type.shape}",
        )
    return items


def _struct_members(value, struct_type: StructTypeBase, name: str) -> dict:
    to_dict = getattr(value, "to_dict", None)
    members = to_dict() if callable(to_dict) and not isinstance(value, dict) else value
    if not isinstance(members, dict):
        raise TiTypeError(
            f"argument '{name}' must be a value of {struct_type.label}, got {type(value).__name__}",
            hint="pass a struct value (made by the struct type), a struct field's element "
            "or a dict of its members",
        )
    if list(members) != list(struct_type.members):
        raise TiTypeError(
            f"argument '{name}' must have the members {list(struct_type.members)} of "
            f"{struct_type.label}, got {list(members)}"
        )
    return members


# -- scalars → Python values -----------------------------------------------------------------
def rebuild(lang_type, scalars):
    """The Python value of ``lang_type`` made of ``scalars`` (an iterator, consumed)."""
    if isinstance(lang_type, tuple):
        return tuple(rebuild(member, scalars) for member in lang_type)
    resolved = resolve(lang_type)
    if isinstance(resolved, MatrixType):
        values = [next(scalars) for _ in range(resolved.n * resolved.m)]
        return python_matrix(values, resolved.shape, resolved.dtype)
    if isinstance(resolved, StructTypeBase):
        members = {key: rebuild(resolved.members[key], scalars) for key in resolved.members}
        return make_value(resolved, (), members)
    return next(scalars)


def example_value(lang_type):
    """A zero argument of ``lang_type`` (``kernel.stages()`` without arguments)."""
    resolved = resolve(lang_type)
    if isinstance(resolved, MatrixType):
        return np.zeros(resolved.shape, resolved.dtype.np_dtype)
    if isinstance(resolved, StructTypeBase):
        return {key: example_value(t) for key, t in resolved.members.items()}
    return 0.0 if resolved.is_float else 0


class CompoundLauncher:
    """A compiled kernel with compound parameters or return value: flattens each
    call's arguments and rebuilds the returned value around the compiled launch."""

    def __init__(self, compiled, params: list, return_type) -> None:
        self.compiled = compiled
        self.params = [(p.name, p.compound.lang_type if p.compound else None) for p in params]
        self.return_type = return_type

    def launch(self, args):
        if len(args) != len(self.params):
            raise TiTypeError(
                f"kernel '{self.compiled.name}' takes {len(self.params)} argument(s) but "
                f"{len(args)} were given"
            )
        flat = []
        for (name, lang_type), value in zip(self.params, args, strict=True):
            if lang_type is None:
                flat.append(value)
            else:
                flat.extend(flatten(value, lang_type, name))
        result = self.compiled.launch(flat)
        if isinstance(self.return_type, CompoundType):
            return rebuild(self.return_type.lang_type, iter(result))
        return result
