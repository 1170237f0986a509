"""Fields declared with ``offset=``: the user's indices against the plan's positions.

A field's plan counts positions from 0; the user indexes it from its offset
(``FieldLayout.origin``). As Taichi does, the offset is subtracted where an access is
made (``x[i, j]`` reads position ``(i - o0, j - o1)``) and added to a struct-for's
indices, so every pass, layout and backend after the frontend sees positions only;
the bounds check adds it back to say which index failed.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=4, offset=-2)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = i
    >>> fill()
    >>> x.to_numpy().tolist(), x[-2]
    ([-2, -1, 0, 1], -2)
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types


def to_positions(b, indices: list, offset: tuple[int, ...]) -> list:
    """``indices`` (i32 statements) minus ``offset``; an index that is ``p + o`` (a
    struct-for's own index over the field) gives ``p`` back, so accesses at a loop's
    cell keep their fast paths."""
    if not any(offset):
        return indices
    return [_minus(b, index, o) for index, o in zip(indices, offset, strict=True)]


def _minus(b, index: ir.Stmt, o: int) -> ir.Stmt:
    if o == 0:
        return index
    if (
        isinstance(index, ir.BinaryOpStmt)
        and index.op == "add"
        and isinstance(index.rhs, ir.ConstStmt)
        and index.rhs.value == o
    ):
        return index.lhs
    return b.emit(ir.BinaryOpStmt("sub", index, b.const(o, types.i32), types.i32))


def to_indices(b, positions: list, offset: tuple[int, ...]) -> list:
    """A struct-for's positions plus ``offset``: the indices the loop binds."""
    if not any(offset):
        return positions
    return [
        p if o == 0 else b.emit(ir.BinaryOpStmt("add", p, b.const(o, types.i32), types.i32))
        for p, o in zip(positions, offset, strict=True)
    ]


def offset_of(ref) -> tuple[int, ...]:
    """A field descriptor's offset (empty for none, and for SNodes: Taichi indexes a
    node's cells from 0)."""
    return tuple(getattr(ref.plan, "index_offset", ()) or ())
