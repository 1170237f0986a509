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
    """Makes every statement under ``root`` that reads ``old`` read ``new``. A pass that
    replaces many statements collects them for one :func:`replace_all_uses` instead: a
    walk of the whole tree per replacement makes compile time quadratic."""
    replace_all_uses(root, {old.id: new})


def replace_all_uses(root: ir.Block, new_for: dict[int, ir.Stmt]) -> None:
    """Makes every statement under ``root`` that reads a statement whose id is a key of
    ``new_for`` read its value instead, in one walk. A replacement that is itself
    replaced is followed to the end, as if each were applied one after the other.

    >>> from ti_notebook.ir.types import i32
    >>> b = ir.Block()
    >>> one, two, three = (b.append(ir.ConstStmt(v, i32)) for v in (1, 2, 3))
    >>> add = b.append(ir.BinaryOpStmt("add", one, two, i32))
    >>> replace_all_uses(b, {one.id: two, two.id: three}); (add.lhs, add.rhs) == (three, three)
    True
    """
    if not new_for:
        return
    final: dict[int, ir.Stmt] = {}
    for key, new in new_for.items():
        seen = {key}
        while new.id in new_for and new.id not in seen:
            seen.add(new.id)
            new = new_for[new.id]
        final[key] = new
    for stmt in root.walk():
        for operand in stmt.operands():
            new = final.get(operand.id)
            if new is not None:
                stmt.replace_operand(operand, new)
        loop = getattr(stmt, "loop", None)
        if loop is not None and loop.id in final and isinstance(stmt, _NAMES_A_LOOP):
            stmt.loop = final[loop.id]


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


def replace_in_users(users: dict[int, list[ir.Stmt]], old: ir.Stmt, new: ir.Stmt) -> None:
    """Makes the statements of ``users`` (from :func:`users_of`, made once per pass) that
    read ``old`` read ``new``: no walk of the tree. Statements made after ``users`` are
    not in it; ``new``'s entry there gains ``old``'s readers.

    >>> from ti_notebook.ir.types import i32
    >>> b = ir.Block()
    >>> one, two = b.append(ir.ConstStmt(1, i32)), b.append(ir.ConstStmt(2, i32))
    >>> add = b.append(ir.BinaryOpStmt("add", one, one, i32))
    >>> users = users_of(b.walk())
    >>> replace_in_users(users, one, two); (add.lhs, add.rhs) == (two, two)
    True
    """
    readers = users.pop(old.id, [])
    for user in readers:
        user.replace_operand(old, new)
    users.setdefault(new.id, []).extend(readers)


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
    block = stmt.parent
    del block.stmts[block.index(stmt)]
    stmt.parent = None


def remove_all(stmts) -> None:
    """Removes ``stmts`` from their blocks, each block rebuilt once (removing them one by
    one shifts the rest of the block each time)."""
    gone: dict[int, list[ir.Stmt]] = {}
    blocks: dict[int, ir.Block] = {}
    for stmt in stmts:
        if stmt.parent is not None:
            gone.setdefault(id(stmt.parent), []).append(stmt)
            blocks[id(stmt.parent)] = stmt.parent
    for key, block in blocks.items():
        ids = {id(s) for s in gone[key]}
        block.stmts = [s for s in block.stmts if id(s) not in ids]
        for stmt in gone[key]:
            stmt.parent = None


def insert_after(anchor: ir.Stmt, stmt: ir.Stmt) -> ir.Stmt:
    block = anchor.parent
    return block.insert(block.index(anchor) + 1, stmt)


def insert_before(anchor: ir.Stmt, stmt: ir.Stmt) -> ir.Stmt:
    block = anchor.parent
    return block.insert(block.index(anchor), stmt)


def replace_stmt(old: ir.Stmt, new: ir.Stmt) -> ir.Stmt:
    """Puts ``new`` where ``old`` is in its block (uses of ``old`` are left as they are)."""
    block = old.parent
    block.stmts[block.index(old)] = new
    new.parent = block
    return new


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
