"""What a struct type is: members in order, their types, methods (the data of it).

:class:`StructTypeBase` holds a struct type's members (name → a scalar type, a
vector/matrix type or another struct type) and methods; :func:`resolve`,
:func:`leaves` and :func:`describe` answer what code needs of any member type. The
user-facing type (``ti.types.struct``, ``@ti.dataclass``: ``lang/struct_types.py``)
adds making values and fields; struct values and fields (``lang/struct_values.py``,
``lang/struct_field.py``) need only this.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> pair = StructTypeBase({"a": ti.types.vector(2, ti.f32), "n": int}, name="Pair")
    >>> pair, pair.label, pair.member_type("n")
    (Pair(a=vector(2, f32), n=int), 'struct Pair', i32)
    >>> [(path, dtype.name) for path, dtype in leaves(pair)]
    [('.a[0]', 'f32'), ('.a[1]', 'f32'), ('.n', 'i32')]
"""

from __future__ import annotations

from ti_notebook.errors import TiTypeError
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import types
from ti_notebook.lang.matrix_types import MatrixType

__all__ = ["StructTypeBase", "describe", "leaves", "resolve"]


def resolve(member_type):
    """A member type as code uses it: scalars as DataTypes (``float`` → ``default_fp``),
    vector/matrix and struct types as they are; None for anything else."""
    if isinstance(member_type, (MatrixType, StructTypeBase)):
        return member_type
    cfg = _settings.current()
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
    if isinstance(resolved, StructTypeBase):
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
    if isinstance(resolved, StructTypeBase):
        inner = ",".join(f"{k}:{describe(v)}" for k, v in resolved.members.items())
        return f"struct {resolved.qualname}{{{inner}}}"
    raise TiTypeError(f"{compound!r} is not a scalar, vector/matrix or struct type")


class StructTypeBase:
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
