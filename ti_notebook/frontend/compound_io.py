"""Vector, matrix, struct and tuple kernel arguments and return values, in the trace.

The launcher passes a compound argument as scalar slots, one per component, in order
(``compiler/request.py``'s ``CompoundType``); :func:`argument` loads them and rebuilds
the kernel's value: a :class:`~ti_notebook.frontend.values.Vector` or a
:class:`~ti_notebook.frontend.struct_values.StructValue`. A compound ``return`` is
flattened the same way into return slots (:func:`emit_return`), which the launcher
reads back and the language layer turns into Python values (``session/compound_args.py``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def swap(v: ti.types.vector(2, ti.i32)) -> ti.types.vector(2, ti.i32):
    ...     return ti.Vector([v.y, v.x])
    >>> swap([1, 2]).tolist()
    [2, 1]
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.places import load
from ti_notebook.frontend.struct_values import (
    StructSlots,
    StructValue,
    convert,
    convert_matrix,
    is_struct,
)
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types
from ti_notebook.lang.matrix_types import MatrixType
from ti_notebook.lang.struct_base import StructTypeBase as StructType
from ti_notebook.lang.struct_base import resolve


def argument(ctx: TraceContext, compound, first_slot: int):
    """The value of a compound parameter whose scalars start at argument ``first_slot``."""
    b = ctx.builder
    loads = iter(b.emit(ir.ArgLoadStmt(first_slot + k, t)) for k, t in enumerate(compound.leaves))
    return _rebuild(compound.lang_type, loads)


def _rebuild(lang_type, loads):
    resolved = resolve(lang_type)
    if isinstance(resolved, MatrixType):
        return Vector([next(loads) for _ in range(resolved.n * resolved.m)], resolved.shape)
    if isinstance(resolved, StructType):
        members = {key: _rebuild(resolved.members[key], loads) for key in resolved.members}
        return StructValue(resolved, members)
    return next(loads)


def emit_return(ctx: TraceContext, value, compound, node: ast.Return) -> None:
    """``return value`` of a kernel whose return type is ``compound``: one ReturnStmt per
    scalar, in slot order."""
    lang_type = compound.lang_type
    if isinstance(lang_type, tuple):
        count = len(lang_type)
        if not isinstance(value, (tuple, list)) or len(value) != count:
            raise ctx.error(
                TiTypeError,
                node.value,
                f"this kernel returns {count} values ({_names(lang_type)}), got {_count(value)}",
                "return them as a tuple: 'return a, b'",
            )
        parts = [
            _flatten(ctx, t, v, node.value, f"return value {k}")
            for k, (t, v) in enumerate(zip(lang_type, value, strict=True))
        ]
        leaves = [leaf for part in parts for leaf in part]
    else:
        leaves = _flatten(ctx, lang_type, value, node.value, "the return value")
    for slot, leaf in enumerate(leaves):
        ctx.builder.emit(ir.ReturnStmt(leaf, slot))


def _flatten(ctx: TraceContext, lang_type, value, node, what: str) -> list:
    if isinstance(value, StructSlots):
        value = load(ctx, value)
    resolved = resolve(lang_type)
    if isinstance(resolved, StructType):
        if not is_struct(value):
            raise ctx.error(
                TiTypeError, node, f"{what} must be a {resolved.label}, got {_kind(value)}"
            )
        return _leaves(convert(ctx, resolved, value, node))
    if isinstance(resolved, MatrixType):
        return list(convert_matrix(ctx, resolved, value, node, what))
    if not isinstance(value, (ir.Stmt, bool, int, float)):
        raise ctx.error(
            TiTypeError,
            node,
            f"{what} must be a scalar ({resolved}), got {_kind(value)}",
            "annotate the return type as a vector/matrix or struct type to return one",
        )
    return [ctx.builder.cast(value, resolved)]


def _leaves(value) -> list:
    if isinstance(value, StructValue):
        return [leaf for member in value.members.values() for leaf in _leaves(member)]
    if isinstance(value, Vector):
        return list(value)
    return [value]


def _kind(value) -> str:
    if isinstance(value, Vector):
        return f"a vector/matrix of shape {value.shape}"
    if isinstance(value, StructValue):
        return f"a value of {value.type.label}"
    if isinstance(value, (tuple, list)):
        return f"{len(value)} values"
    return "a number" if isinstance(value, (ir.Stmt, int, float)) else type(value).__name__


def _count(value) -> str:
    return f"{len(value)}" if isinstance(value, (tuple, list)) else "one"


def _names(lang_types: tuple) -> str:
    return ", ".join(t.name if isinstance(t, types.DataType) else repr(t) for t in lang_types)
