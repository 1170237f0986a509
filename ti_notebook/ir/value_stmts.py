"""IR statements that compute values or use kernel-local variables.

Re-exported by :mod:`ti_notebook.ir.nodes`, which every pass imports as ``ir``.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import i32
    >>> one = ir.ConstStmt(1, i32)
    >>> ir.BinaryOpStmt("add", one, one, i32).operands() == [one, one]
    True
"""

from __future__ import annotations

from typing import Any

from ti_notebook.ir.stmt import Stmt
from ti_notebook.ir.types import DataType, i32, i64


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

    ``no_wrap`` (add, sub, mul of integers): the compiler knows the result fits, as for
    index arithmetic it made itself; a backend may optimise on it (LLVM's nsw/nuw).
    """

    operand_names = ("lhs", "rhs")

    def __init__(
        self, op: str, lhs: Stmt, rhs: Stmt, dtype: DataType, no_wrap: bool = False
    ) -> None:
        super().__init__(dtype)
        self.op, self.lhs, self.rhs = op, lhs, rhs
        self.no_wrap = no_wrap


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


class RowStartStmt(Stmt):
    """In a row loop's ``row_head`` (see ``control_stmts.StructForStmt``): the flat counter
    (i32) at the first cell of the row being started."""

    def __init__(self, loop: Stmt) -> None:
        super().__init__(i32)
        self.loop = loop


class RowOffsetStmt(Stmt):
    """In a row loop's ``body``: the cell's position (i32) after the row's first cell."""

    def __init__(self, loop: Stmt) -> None:
        super().__init__(i32)
        self.loop = loop


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
