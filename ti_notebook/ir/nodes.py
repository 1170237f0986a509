"""The ti_notebook IR: statements in nested blocks, each value a statement.

Structured like Taichi's CHI IR: a kernel is a :class:`Block`; control flow owns
child blocks; a statement's operands are earlier statements. After the offload pass
the kernel's top block holds only :class:`OffloadedStmt` tasks.

    >>> from ti_notebook.lang.types import i32
    >>> b = Block()
    >>> one = b.append(ConstStmt(1, i32))
    >>> two = b.append(BinaryOpStmt("add", one, one, i32))
    >>> two.operands() == [one, one]
    True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from ti_notebook.errors import SourcePos
from ti_notebook.lang.types import DataType, i64

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
        for stmt in stmts or []:
            self.append(stmt)

    def append(self, stmt: Stmt) -> Stmt:
        stmt.parent = self
        self.stmts.append(stmt)
        return stmt

    def insert(self, index: int, stmt: Stmt) -> Stmt:
        stmt.parent = self
        self.stmts.insert(index, stmt)
        return stmt

    def walk(self) -> Iterator[Stmt]:
        """Every statement in this block and its children, in program order."""
        for stmt in self.stmts:
            yield stmt
            for child in stmt.blocks():
                yield from child.walk()


def _block(owner: Stmt, block: Block | None) -> Block:
    block = block if block is not None else Block()
    block.owner = owner
    return block


# -- values ------------------------------------------------------------------------
class ConstStmt(Stmt):
    def __init__(self, value: Any, dtype: DataType) -> None:
        super().__init__(dtype)
        self.value = float(value) if dtype.is_float else int(value)


class ArgLoadStmt(Stmt):
    """A scalar kernel argument, read from the launch context."""

    def __init__(self, arg_index: int, dtype: DataType) -> None:
        super().__init__(dtype)
        self.arg_index = arg_index


class ExternalShapeStmt(Stmt):
    """``arr.shape[axis]`` of an ndarray argument (i32)."""

    def __init__(self, arg_index: int, axis: int, dtype: DataType) -> None:
        super().__init__(dtype)
        self.arg_index = arg_index
        self.axis = axis


class BinaryOpStmt(Stmt):
    """Arithmetic, comparison and bit operations; ``dtype`` is the result type.

    ops: add sub mul truediv floordiv mod pow min max atan2 bit_and bit_or bit_xor
    shl shr lt le gt ge eq ne logical_and logical_or
    """

    operand_names = ("lhs", "rhs")

    def __init__(self, op: str, lhs: Stmt, rhs: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.op, self.lhs, self.rhs = op, lhs, rhs


class UnaryOpStmt(Stmt):
    """ops: neg bit_not logical_not abs sqrt sin cos tan exp log floor ceil round ..."""

    operand_names = ("operand",)

    def __init__(self, op: str, operand: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.op, self.operand = op, operand


class CastStmt(Stmt):
    """Numeric conversion (``bitcast=True`` reinterprets the bits instead)."""

    operand_names = ("operand",)

    def __init__(self, operand: Stmt, dtype: DataType, bitcast: bool = False) -> None:
        super().__init__(dtype)
        self.operand, self.bitcast = operand, bitcast


class SelectStmt(Stmt):
    operand_names = ("cond", "true_value", "false_value")

    def __init__(self, cond: Stmt, true_value: Stmt, false_value: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.cond, self.true_value, self.false_value = cond, true_value, false_value


class RandStmt(Stmt):
    """``ti.random(dtype)``: uniform in [0, 1) for floats, every value of an integer type
    equally likely; ``normal``: ``ti.randn(dtype)``, a standard normal float.

    Side-effecting so no pass merges or drops draws: two calls are two numbers.
    """

    has_side_effect = True

    def __init__(self, dtype: DataType, normal: bool = False) -> None:
        super().__init__(dtype)
        self.normal = normal


class ClockStmt(Stmt):
    """``ti.clock_counter()``: the CPU's cycle counter (i64)."""

    has_side_effect = True


class LoopIndexStmt(Stmt):
    """Index ``axis`` of the enclosing range/struct for ``loop``."""

    def __init__(self, loop: Stmt, axis: int, dtype: DataType) -> None:
        super().__init__(dtype)
        self.loop, self.axis = loop, axis


class LoopLinearIndexStmt(Stmt):
    """The memory-order number (i64) of the cell a struct-for ``loop`` is visiting."""

    def __init__(self, loop: Stmt) -> None:
        super().__init__(i64)
        self.loop = loop


# -- locals --------------------------------------------------------------------------
class AllocaStmt(Stmt):
    """A kernel-local variable of type ``dtype``."""

    def __init__(self, dtype: DataType, name: str = "") -> None:
        super().__init__(dtype)
        self.name = name


class LocalLoadStmt(Stmt):
    operand_names = ("alloca",)

    def __init__(self, alloca: Stmt) -> None:
        super().__init__(alloca.dtype)
        self.alloca = alloca


class LocalStoreStmt(Stmt):
    operand_names = ("alloca", "value")
    has_side_effect = True

    def __init__(self, alloca: Stmt, value: Stmt) -> None:
        super().__init__(None)
        self.alloca, self.value = alloca, value


# The statement families live in their own modules; passes see them all as ``ir.X``.
from ti_notebook.ir.control_stmts import *  # noqa: E402, F403
from ti_notebook.ir.memory_stmts import *  # noqa: E402, F403
