"""Element types of Python-scope vectors and matrices: inferred, promoted, resolved.

A value made without ``dt`` keeps only the *kind* of its items, Python's ``int`` or
``float`` (a "weak" type), stored as int64/float64 as Taichi's Python-scope matrices
are; ``v.dtype`` and a kernel reading it resolve the kind with ``ti.init``'s
``default_ip``/``default_fp``, as Taichi types such a vector in a kernel. A value made
with ``dt`` (or by ``ti.math.vec3``, a field element) has that ti type. Operations
follow the kernel's rules (``frontend/builder.py``): a weak operand meets a typed one as
its default type, two integers divide (``/``) into ``default_fp``, comparisons give
``i32``:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> infer([1, 2]), infer([1, 2.5]), binary("truediv", int, int), binary("add", ti.i32, float)
    (<class 'int'>, <class 'float'>, <class 'float'>, f32)
    >>> binary("lt", float, float), resolve(int), storage(float)
    (i32, i32, dtype('float64'))
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import types

COMPARE = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
BITWISE = frozenset({"bit_and", "bit_or", "bit_xor", "shl", "shr"})
# like the builder's FLOAT_ONLY_UNARY: an integer operand becomes default_fp first
FLOAT_ONLY = frozenset({"sqrt", "sin", "cos", "tan", "exp", "log", "asin", "acos", "tanh"})


def infer(items) -> type:
    """The weak kind of some numbers (a NumPy array or nested lists of them).

    >>> infer([[True, 2]])
    <class 'int'>
    """
    array = np.asarray(items)
    if array.dtype.kind in "biu":
        return int
    if array.dtype.kind == "f":
        return float
    raise TiTypeError(
        f"a vector/matrix holds numbers, got {array.dtype} items",
        hint="build it from ints and floats, e.g. ti.Vector([1.0, 2.0])",
    )


def resolve(spec, default_ip=None, default_fp=None) -> types.DataType:
    """A spec as a ti type: weak kinds by the defaults (``ti.init``'s unless given)."""
    if isinstance(spec, types.DataType):
        return spec
    if default_ip is None:
        cfg = _settings.current()
        default_ip, default_fp = cfg.default_ip, cfg.default_fp
    return default_fp if spec is float else default_ip


def storage(spec) -> np.dtype:
    """The NumPy type items of this spec are kept in."""
    if isinstance(spec, types.DataType):
        return spec.np_dtype
    return np.dtype(np.float64 if spec is float else np.int64)


def is_float(spec) -> bool:
    return spec.is_float if isinstance(spec, types.DataType) else spec is float


def explicit(dtype) -> types.DataType:
    """A ``dt`` argument as a ti type (``float``/``int`` by ``ti.init``'s defaults)."""
    cfg = _settings.current()
    found = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if found is None:
        raise TiTypeError(f"{dtype!r} is not a type", hint="use e.g. ti.f32 or ti.i32")
    return found


def binary(op: str, a, b):
    """The result spec of ``a op b`` (``op`` named as in the IR: add, truediv, lt...)."""
    if op in BITWISE and (is_float(a) or is_float(b)):
        raise TiTypeError(
            f"bit operation '{op}' needs integers, got {_name(a)} and {_name(b)}",
            hint="cast with .cast(ti.i32) first",
        )
    if op in COMPARE:
        return types.i32
    if not isinstance(a, types.DataType) and not isinstance(b, types.DataType):
        if op in ("shl", "shr"):
            return a
        if op in ("truediv", "atan2") or float in (a, b):
            return float
        return int
    left, right = resolve(a), resolve(b)
    if op in ("shl", "shr"):
        return left
    if op in ("truediv", "atan2") and not left.is_float and not right.is_float:
        return resolve(float)
    return types.promote(left, right)


def unary(op: str, a):
    """The result spec of ``op(a)``: float-only functions turn integers into floats."""
    if op == "bit_not" and is_float(a):
        raise TiTypeError(f"'~' needs an integer, got {_name(a)}")
    if op == "logical_not":
        return types.i32
    if op in FLOAT_ONLY and not is_float(a):
        return float if not isinstance(a, types.DataType) else resolve(float)
    return a


def _name(spec) -> str:
    return spec.name if isinstance(spec, types.DataType) else f"Python {spec.__name__}"
