"""Struct types: ``ti.types.struct(pos=vec3, mass=ti.f32)`` and ``@ti.dataclass``.

A :class:`StructType` names its members, in order, and their types: scalar types
(``ti.f32``, or Python's ``float``/``int`` for ``ti.init``'s defaults), vector/matrix
types (``ti.types.vector(3, ti.f32)``) and other struct types. It makes values
(``Particle(pos=[1, 2, 3], mass=2.0)``, in Python and in kernels), fields
(``Particle.field(shape=8)``: one scalar field per scalar in the struct, placed in one
cell, AoS), and annotates kernel and ti.func parameters and return values.
``@ti.dataclass`` makes one from a class's annotations; its ``@ti.func`` methods run on
struct values in kernels (``p[i].speed()``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> vec2 = ti.types.vector(2, ti.f32)
    >>> Particle = ti.types.struct(pos=vec2, mass=ti.f32)
    >>> Particle
    Particle(pos=vector(2, f32), mass=f32)
    >>> [(path, dtype.name) for path, dtype in leaves(Particle)]
    [('.pos[0]', 'f32'), ('.pos[1]', 'f32'), ('.mass', 'f32')]
    >>> Particle(mass=2).to_dict()["mass"]
    2.0
"""

from __future__ import annotations

import sys

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.lang.field import _assigned_name
from ti_notebook.lang.struct_base import StructTypeBase, describe, leaves, resolve
from ti_notebook.lang.struct_field import make_struct_field
from ti_notebook.lang.struct_values import make_value

__all__ = ["StructType", "dataclass", "describe", "leaves", "resolve", "struct"]


class StructType(StructTypeBase):
    """A struct type: ``Particle(...)`` makes a value, ``Particle.field(...)`` a field."""

    def __call__(self, *args, **kwargs):
        """A value of this type in Python: members by position or keyword, missing
        ones zero (in kernels the frontend builds the value)."""
        return make_value(self, args, kwargs)

    def field(self, shape=None, name: str = "", **options):
        """A field of this type's values (AoS: every scalar of an element in one cell)."""
        name = name or _assigned_name(sys._getframe(1)) or self.name
        return make_struct_field(self, shape, name, **options)


def struct(**members) -> StructType:
    """``ti.types.struct(name=type, ...)``: a struct type, named after the variable it
    is assigned to (``Particle = ti.types.struct(...)``) for errors and reprs."""
    return StructType(members, name=_assigned_name(sys._getframe(1)))


def dataclass(cls: type) -> StructType:
    """``@ti.dataclass``: the struct type of ``cls``'s annotations, with its methods.

    Annotated names are the members, in order (a default value is an error, as in
    Taichi); the class's functions (``@ti.func`` ones run in kernels) become methods.

        >>> import ti_notebook as ti
        >>> @ti.dataclass
        ... class Circle:
        ...     r: ti.f32
        ...
        ...     @ti.func
        ...     def area(self):
        ...         return 3.0 * self.r * self.r
        >>> Circle, sorted(Circle.methods)
        (Circle(r=f32), ['area'])
    """
    if not isinstance(cls, type):
        raise TiTypeError(
            f"@ti.dataclass decorates a class, not {type(cls).__name__}",
            hint="put @ti.dataclass above 'class Name:' with annotated members",
        )
    annotations = cls.__dict__.get("__annotations__", {})
    # string annotations (`from __future__ import annotations`) name what the code
    # defining the class sees: its module, or the function it is defined in
    module = sys.modules.get(cls.__module__)
    caller = sys._getframe(1)
    scope = {**(vars(module) if module is not None else {}), **caller.f_globals}
    scope.update(caller.f_locals)
    members = {}
    for key, annotation in annotations.items():
        if key in cls.__dict__:
            raise TiSyntaxError(
                f"@ti.dataclass {cls.__name__}: member '{key}' has a default value, which "
                "struct types do not have",
                hint="remove '= ...'; a struct's members start at zero",
            )
        if isinstance(annotation, str):  # `from __future__ import annotations`
            try:
                annotation = eval(annotation, scope, dict(vars(cls)))  # noqa: S307 - user's own
            except Exception as error:
                raise TiTypeError(
                    f"@ti.dataclass {cls.__name__}: cannot evaluate the annotation of "
                    f"'{key}' ({annotation!r}): {error}"
                ) from None
        members[key] = annotation
    methods = {
        name: getattr(cls, name)
        for name in dir(cls)
        if not name.startswith("__") and callable(getattr(cls, name)) and not hasattr(object, name)
    }
    result = StructType(members, methods, cls.__name__)
    result.qualname = f"{cls.__module__}.{cls.__qualname__}"
    result.__doc__ = cls.__doc__
    return result
