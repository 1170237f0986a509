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
from ti_notebook.lang import config as _config
from ti_notebook.lang import types
from ti_notebook.lang.matrix_types import MatrixType

__all__ = ["StructType", "dataclass", "describe", "leaves", "resolve", "struct"]


def resolve(member_type):
    """A member type as code uses it: scalars as DataTypes (``float`` → ``default_fp``),
    vector/matrix and struct types as they are; None for anything else."""
    if isinstance(member_type, (MatrixType, StructType)):
        return member_type
    cfg = _config.current()
    if member_type is None:
        return None
    try:
        return types.to_dtype(member_type, cfg.default_ip, cfg.default_fp)
    except (TypeError, ValueError):
        return None


def leaves(compound) -> list[tuple[str, types.DataType]]:
    """The scalars a value of ``compound`` holds, in order: (path, type) pairs, the
    path as code would write it (``.pos[0]``, ``[1, 0]``, ``.inner.mass``).

    >>> import ti_notebook as ti
    >>> leaves(ti.types.matrix(2, 2, ti.i32))[1]
    ('[0, 1]', i32)
    """
    resolved = resolve(compound)
    if isinstance(resolved, types.DataType):
        return [("", resolved)]
    if isinstance(resolved, MatrixType):
        dtype = resolved.dtype
        if resolved.ndim == 1:
            return [(f"[{k}]", dtype) for k in range(resolved.n)]
        return [(f"[{r}, {c}]", dtype) for r in range(resolved.n) for c in range(resolved.m)]
    if isinstance(resolved, StructType):
        found = []
        for name, member in resolved.members.items():
            found.extend((f".{name}{path}", dtype) for path, dtype in leaves(member))
        return found
    raise TiTypeError(f"{compound!r} is not a scalar, vector/matrix or struct type")


def describe(compound) -> str:
    """A canonical text of a resolved type: what the offline cache keys on.

    >>> import ti_notebook as ti
    >>> describe(ti.types.struct(a=ti.types.vector(2, float), b=int))
    'struct struct{a:vector(2,f32),b:i32}'
    """
    resolved = resolve(compound)
    if isinstance(resolved, types.DataType):
        return resolved.name
    if isinstance(resolved, MatrixType):
        if resolved.ndim == 1:
            return f"vector({resolved.n},{resolved.dtype.name})"
        return f"matrix({resolved.n},{resolved.m},{resolved.dtype.name})"
    if isinstance(resolved, StructType):
        inner = ",".join(f"{k}:{describe(v)}" for k, v in resolved.members.items())
        return f"struct {resolved.qualname}{{{inner}}}"
    raise TiTypeError(f"{compound!r} is not a scalar, vector/matrix or struct type")


class StructType:
    """The type of a struct: members (name → type, in order) and methods (name → a
    ``ti.func`` or a plain function, run on values of this type)."""

    def __init__(self, members: dict, methods: dict | None = None, name: str = "") -> None:
        self.name = name or "struct"
        self.qualname = self.name
        self.members: dict = {}
        for key, member_type in members.items():
            if not isinstance(key, str) or not key.isidentifier() or key.startswith("_"):
                raise TiTypeError(
                    f"{self.name}: member name {key!r} is not a public identifier",
                    hint="name members like Python attributes: pos, mass, color",
                )
            if resolve(member_type) is None:
                raise TiTypeError(
                    f"{self.name}: member '{key}' has type {member_type!r}, which is not a "
                    "scalar, vector/matrix or struct type",
                    hint="use e.g. ti.f32, ti.types.vector(3, ti.f32), or another struct type",
                )
            self.members[key] = member_type
        self.methods: dict = dict(methods or {})

    @property
    def label(self) -> str:
        """How errors name it: ``struct Particle``, or ``the struct`` when unnamed."""
        return "the struct" if self.name == "struct" else f"struct {self.name}"

    def member_type(self, key: str):
        """The resolved type of member ``key`` (see :func:`resolve`)."""
        return resolve(self.members[key])

    def keys(self) -> list[str]:
        return list(self.members)

    def __call__(self, *args, **kwargs):
        """A value of this type in Python: members by position or keyword, missing
        ones zero (in kernels the frontend builds the value)."""
        from ti_notebook.lang.struct_values import make_value

        return make_value(self, args, kwargs)

    def field(self, shape=None, name: str = "", **options):
        """A field of this type's values (AoS: every scalar of an element in one cell)."""
        from ti_notebook.lang.field import _assigned_name
        from ti_notebook.lang.struct_field import make_struct_field

        name = name or _assigned_name(sys._getframe(1)) or self.name
        return make_struct_field(self, shape, name, **options)

    def __getattr__(self, name: str):
        methods = self.__dict__.get("methods", {})
        if name in methods:  # Particle.speed: the method itself, as on a class
            return methods[name]
        raise AttributeError(f"struct type '{self.__dict__.get('name')}' has no attribute {name!r}")

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={_type_text(v)}" for k, v in self.members.items())
        return f"{self.name}({inner})"


def _type_text(member_type) -> str:
    if isinstance(member_type, types.DataType):
        return member_type.name
    if isinstance(member_type, type):
        return member_type.__name__
    return repr(member_type)


def struct(**members) -> StructType:
    """``ti.types.struct(name=type, ...)``: a struct type, named after the variable it
    is assigned to (``Particle = ti.types.struct(...)``) for errors and reprs."""
    from ti_notebook.lang.field import _assigned_name

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
