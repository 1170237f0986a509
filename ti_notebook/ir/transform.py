"""Small IR rewriting helpers the passes share.

>>> from ti_notebook.ir import nodes as ir
>>> from ti_notebook.ir.types import i32
>>> b = ir.Block()
>>> one, two = b.append(ir.ConstStmt(1, i32)), b.append(ir.ConstStmt(2, i32))
>>> add = b.append(ir.BinaryOpStmt("add", one, one, i32))
>>> replace_uses(b, one, two); add.lhs is two
True
"""

from __future__ import annotations

from collections import Counter

from ti_notebook.ir import nodes as ir

# statements that name their loop (an attribute, not an operand)
_NAMES_A_LOOP = (
    ir.LoopIndexStmt,
    ir.LoopLinearIndexStmt,
    ir.RowStartStmt,
    ir.RowOffsetStmt,
    ir.SkipRowsStmt,
)


def replace_uses(root: ir.Block, old: ir.Stmt, new: ir.Stmt) -> None:
    """Makes every statement under ``root`` that reads ``old`` read ``new``."""
    for stmt in root.walk():
        if old in stmt.operands():
            stmt.replace_operand(old, new)
        loop = getattr(stmt, "loop", None)
        if loop is old and isinstance(stmt, _NAMES_A_LOOP):
            stmt.loop = new


def use_counts(root: ir.Block) -> Counter:
    counts: Counter = Counter()
    for stmt in root.walk():
        for operand in stmt.operands():
            counts[operand.id] += 1
    return counts


def users_of(stmts) -> dict[int, list[ir.Stmt]]:
    """Statement id → the statements (of ``stmts``, e.g. ``block.walk()``) reading it."""
    users: dict[int, list[ir.Stmt]] = {}
    for stmt in stmts:
        for operand in stmt.operands():
            users.setdefault(operand.id, []).append(stmt)
    return users


def indexes_own_cell(ptr: ir.GlobalPtrStmt, loop: ir.Stmt) -> bool:
    """True when ``ptr`` is ``field[i0, i1, ...]`` with exactly ``loop``'s indices, in order:
    each iteration of a parallel ``loop`` then touches an element no other one does."""
    return bool(ptr.indices) and all(
        isinstance(index, ir.LoopIndexStmt) and index.loop is loop and index.axis == axis
        for axis, index in enumerate(ptr.indices)
    )


def enclosing_struct_for(stmt: ir.Stmt) -> ir.Stmt | None:
    """The nearest struct-for around ``stmt`` (a serial one, or a task's loop), if the
    nearest loop-like owner is one."""
    loop = enclosing(stmt, (ir.StructForStmt, ir.OffloadedStmt))
    if isinstance(loop, ir.OffloadedStmt):
        return loop.loop if loop.kind == "struct_for" else None
    return loop


def remove(stmt: ir.Stmt) -> None:
    stmt.parent.stmts.remove(stmt)
    stmt.parent = None


def insert_after(anchor: ir.Stmt, stmt: ir.Stmt) -> ir.Stmt:
    block = anchor.parent
    return block.insert(block.stmts.index(anchor) + 1, stmt)


def insert_before(anchor: ir.Stmt, stmt: ir.Stmt) -> ir.Stmt:
    block = anchor.parent
    return block.insert(block.stmts.index(anchor), stmt)


def enclosing(stmt: ir.Stmt, kinds: tuple) -> ir.Stmt | None:
    """The nearest statement of one of ``kinds`` that contains ``stmt``."""
    block = stmt.parent
    while block is not None and block.owner is not None:
        if isinstance(block.owner, kinds):
            return block.owner
        block = block.owner.parent
    return None


def contains(outer: ir.Stmt, stmt: ir.Stmt) -> bool:
    block = stmt.parent
    while block is not None:
        if block.owner is outer:
            return True
        block = block.owner.parent if block.owner is not None else None
    return False
