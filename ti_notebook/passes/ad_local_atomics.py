"""Atomic max/min on a local, spelled out for the autodiff passes.

``ti.atomic_max(acc, v)`` on a local is ``old = acc; acc = max(old, v)`` (its value is
``old``): one thread, no race. The autodiff passes differentiate loads, ``max`` and
stores already, so both run this first: the derivative then goes to whichever of ``old``
and ``v`` the ``max`` chose, in reverse and in forward mode alike.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import f64
    >>> block = ir.Block()
    >>> acc = block.append(ir.AllocaStmt(f64, "acc"))
    >>> v = block.append(ir.ConstStmt(2.0, f64))
    >>> _ = block.append(ir.AtomicOpStmt("max", acc, v))
    >>> spell_out(block)
    1
    >>> [type(s).__name__ for s in block.stmts[2:]]
    ['LocalLoadStmt', 'BinaryOpStmt', 'LocalStoreStmt']
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform

_SPELLED = ("max", "min")


def spell_out(block: ir.Block) -> int:
    """Rewrites every float atomic max/min on a local under ``block``; how many."""
    found = [
        stmt
        for top in block.stmts
        for stmt in [top, *top.walk_all()]
        if isinstance(stmt, ir.AtomicOpStmt)
        and isinstance(stmt.dest, ir.AllocaStmt)
        and stmt.op in _SPELLED
        and stmt.dtype is not None
        and stmt.dtype.is_float
    ]
    new_for = {}
    for atomic in found:
        old = transform.insert_before(atomic, ir.LocalLoadStmt(atomic.dest))
        value = transform.insert_before(
            atomic, ir.BinaryOpStmt(atomic.op, old, atomic.value, atomic.dtype)
        )
        store = transform.replace_stmt(atomic, ir.LocalStoreStmt(atomic.dest, value))
        for made in (old, value, store):
            made.pos = atomic.pos
        new_for[atomic.id] = old  # what the atomic returned
    if new_for:
        transform.replace_all_uses(block, new_for)
    return len(found)
