"""The IR's two building blocks: :class:`Stmt` (one statement, which is also its value)
and :class:`Block` (statements run in order). The statement kinds live in
``value_stmts.py``, ``control_stmts.py`` and ``memory_stmts.py``; ``ir/nodes.py``
gathers them all.

    >>> from ti_notebook.ir.types import i32
    >>> b = Block()
    >>> s = b.append(Stmt(i32))
    >>> s.parent is b, list(b.walk()) == [s]
    (True, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ti_notebook.errors import SourcePos
from ti_notebook.ir.types import DataType

_ids = itertools.count()


class Stmt:
    """One IR statement. ``dtype`` is the value's type (None: no value)."""

    operand_names: tuple[str, ...] = ()
    block_names: tuple[str, ...] = ()
    has_side_effect = False

    def __init__(self, dtype: DataType | None = None) -> None:
        self.id = next(_ids)
        self.dtype = dtype
        self.pos: SourcePos | None = None
        self.parent: Block | None = None

    def operands(self) -> list[Stmt]:
        found: list[Stmt] = []
        for name in self.operand_names:
            value = getattr(self, name)
            if isinstance(value, Stmt):
                found.append(value)
            elif isinstance(value, list):
                found.extend(v for v in value if isinstance(v, Stmt))
        return found

    def replace_operand(self, old: Stmt, new: Stmt) -> None:
        for name in self.operand_names:
            value = getattr(self, name)
            if value is old:
                setattr(self, name, new)
            elif isinstance(value, list):
                setattr(self, name, [new if v is old else v for v in value])

    def blocks(self) -> list[Block]:
        return [b for name in self.block_names if (b := getattr(self, name)) is not None]

    def walk_all(self) -> Iterator[Stmt]:
        """Every statement in this statement's child blocks, in program order."""
        for block in self.blocks():
            yield from block.walk()

    def __repr__(self) -> str:
        return f"${self.id}"


class Block:
    """A list of statements executed in order."""

    def __init__(self, stmts: list[Stmt] | None = None) -> None:
        self.stmts: list[Stmt] = []
        self.owner: Stmt | None = None
        # where the last lookup or insertion was: passes rewrite a block front to back, so
        # the next statement they ask for is just after it (``index`` stays O(1) per call)
        self._hint = 0
        for stmt in stmts or []:
            self.append(stmt)

    def append(self, stmt: Stmt) -> Stmt:
        stmt.parent = self
        self.stmts.append(stmt)
        return stmt

    def insert(self, index: int, stmt: Stmt) -> Stmt:
        stmt.parent = self
        self.stmts.insert(index, stmt)
        self._hint = index
        return stmt

    def index(self, stmt: Stmt) -> int:
        """The position of ``stmt`` in this block (ValueError when it is not there);
        searched from where the last lookup or insertion was, then from the start.

        >>> from ti_notebook.ir.types import i32
        >>> b = Block([Stmt(i32), Stmt(i32)])
        >>> b.index(b.stmts[1]), b.index(b.stmts[0])
        (1, 0)
        """
        stmts = self.stmts
        start = max(self._hint - 1, 0)
        try:
            found = stmts.index(stmt, start)
        except ValueError:
            found = stmts.index(stmt, 0, start)
        self._hint = found
        return found

    def walk(self) -> Iterator[Stmt]:
        """Every statement in this block and its children, in program order."""
        for stmt in self.stmts:
            yield stmt
            if stmt.block_names:  # most statements hold no block: skip the list
                for child in stmt.blocks():
                    yield from child.walk()


def owned_block(owner: Stmt, block: Block | None = None) -> Block:
    """``block`` (a new one if None), owned by the statement ``owner``."""
    block = block if block is not None else Block()
    block.owner = owner
    return block
