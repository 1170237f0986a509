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
    """``ti.random(dtype)``: uniform in [0, 1) for floats, any bits for integers."""

    has_side_effect = True


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


# -- memory ----------------------------------------------------------------------------
class GlobalPtrStmt(Stmt):
    """Pointer to ``field[indices]`` (before lowering to address arithmetic)."""

    operand_names = ("indices",)

    def __init__(self, field: Any, indices: list[Stmt]) -> None:
        super().__init__(field.dtype)
        self.field, self.indices = field, indices
        # (scratch buffer, tree offset it starts at): the element's private copy instead
        # (passes/privatize_scatter.py)
        self.private: tuple[Stmt, int] | None = None


class ExternalPtrStmt(Stmt):
    """Pointer to ``arr[indices]`` of ndarray argument ``arg_index``."""

    operand_names = ("indices",)

    def __init__(self, arg_index: int, ndim: int, indices: list[Stmt], dtype: DataType) -> None:
        super().__init__(dtype)
        self.arg_index, self.ndim, self.indices = arg_index, ndim, indices


class RootPtrStmt(Stmt):
    """Base address of SNode tree ``tree_id`` (after lowering)."""

    def __init__(self, tree_id: int) -> None:
        super().__init__(None)
        self.tree_id = tree_id


class TempPtrStmt(Stmt):
    """Address of a kernel temporary (a local shared between tasks) at ``offset``."""

    def __init__(self, offset: int, dtype: DataType) -> None:
        super().__init__(dtype)
        self.offset = offset


class PtrOffsetStmt(Stmt):
    """``base + byte_offset`` seen as a pointer to ``dtype``."""

    operand_names = ("base", "byte_offset")

    def __init__(self, base: Stmt, byte_offset: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.base, self.byte_offset = base, byte_offset


class GlobalLoadStmt(Stmt):
    operand_names = ("ptr",)

    def __init__(self, ptr: Stmt) -> None:
        super().__init__(ptr.dtype)
        self.ptr = ptr


class GlobalStoreStmt(Stmt):
    operand_names = ("ptr", "value")
    has_side_effect = True

    def __init__(self, ptr: Stmt, value: Stmt) -> None:
        super().__init__(None)
        self.ptr, self.value = ptr, value


class AtomicOpStmt(Stmt):
    """Atomic read-modify-write on a global or local; the value is the old one.

    ops: add sub min max bit_and bit_or bit_xor
    """

    operand_names = ("dest", "value")
    has_side_effect = True

    def __init__(self, op: str, dest: Stmt, value: Stmt) -> None:
        super().__init__(value.dtype)
        self.op, self.dest, self.value = op, dest, value


class SNodeOpStmt(Stmt):
    """``ti.is_active/activate/deactivate(snode, indices)``; ``lower_access`` expands it.

    ``indices`` are in the node's own index space (cells of ``snode.shape``).
    """

    operand_names = ("indices",)
    has_side_effect = True

    def __init__(self, op: str, snode: Any, indices: list[Stmt], dtype=None) -> None:
        super().__init__(dtype)
        self.op, self.snode, self.indices = op, snode, list(indices)


class BlockLocalStmt(Stmt):
    """``ti.block_local(*fields)`` at the top of a struct-for; ``make_block_local`` acts."""

    has_side_effect = True

    def __init__(self, fields: list) -> None:
        super().__init__(None)
        self.fields = list(fields)


class LocalArrayStmt(Stmt):
    """A per-task stack array of ``count`` elements of ``dtype``; its value is the address.

    The block-local storage buffer on the CPU (shared memory on a GPU).
    """

    def __init__(self, dtype: DataType, count: int, name: str = "bls") -> None:
        super().__init__(dtype)
        self.count, self.name = count, name


class ScratchAllocStmt(Stmt):
    """``nbytes`` of zeroed heap memory (a task chunk's private copy of fields)."""

    has_side_effect = True

    def __init__(self, nbytes: int) -> None:
        super().__init__(None)
        self.nbytes = nbytes


class ScratchFreeStmt(Stmt):
    operand_names = ("buffer",)
    has_side_effect = True

    def __init__(self, buffer: Stmt) -> None:
        super().__init__(None)
        self.buffer = buffer


class MemsetZeroStmt(Stmt):
    """Zeroes ``nbytes`` bytes at ``ptr`` (a deactivated sparse cell's storage)."""

    operand_names = ("ptr",)
    has_side_effect = True

    def __init__(self, ptr: Stmt, nbytes: int) -> None:
        super().__init__(None)
        self.ptr, self.nbytes = ptr, nbytes


# -- control flow -------------------------------------------------------------------------
class IfStmt(Stmt):
    operand_names = ("cond",)
    block_names = ("true_block", "false_block")
    has_side_effect = True

    def __init__(self, cond: Stmt) -> None:
        super().__init__(None)
        self.cond = cond
        self.true_block = _block(self, None)
        self.false_block = _block(self, None)


class WhileStmt(Stmt):
    """Loops until a :class:`BreakStmt`; ``while c: body`` is ``if not c: break`` first."""

    block_names = ("body",)
    has_side_effect = True

    def __init__(self) -> None:
        super().__init__(None)
        self.body = _block(self, None)


class RangeForStmt(Stmt):
    """``for i in range(begin, end)``; an outermost one becomes a parallel task.

    ``shape`` (when not None) splits the flat index into ndrange axes; ``config`` holds
    the ``ti.loop_config`` that applied to it.
    """

    operand_names = ("begin", "end", "extents", "starts")
    block_names = ("body",)
    has_side_effect = True

    def __init__(
        self,
        begin: Stmt,
        end: Stmt,
        config: dict | None = None,
        extents: list[Stmt] | None = None,
        starts: list[Stmt] | None = None,
    ) -> None:
        super().__init__(None)
        self.begin, self.end = begin, end
        # ndrange: the flat index splits into axes; axis k is
        # starts[k] + (flat // prod(extents[k+1:])) % extents[k]. Empty: one axis = flat.
        self.extents = list(extents or [])
        self.starts = list(starts or [])
        self.config = dict(config or {})
        self.body = _block(self, None)


class StructForStmt(Stmt):
    """``for I in field``: visits the active cells of ``field``'s SNode."""

    block_names = ("body",)
    has_side_effect = True

    def __init__(self, field: Any, config: dict | None = None) -> None:
        super().__init__(None)
        self.field = field
        self.config = dict(config or {})
        self.body = _block(self, None)


class BreakStmt(Stmt):
    has_side_effect = True


class ContinueStmt(Stmt):
    has_side_effect = True


class ReturnStmt(Stmt):
    operand_names = ("value",)
    has_side_effect = True

    def __init__(self, value: Stmt) -> None:
        super().__init__(None)
        self.value = value


class PrintStmt(Stmt):
    """``print(...)``: ``items`` are text, ``(value, format_spec)`` pairs, and None where
    the separator goes."""

    operand_names = ("values",)
    has_side_effect = True

    def __init__(self, items: list, end: str = "\n", sep: str = " ") -> None:
        super().__init__(None)
        self.end, self.sep = end, sep
        self.values = [item[0] for item in items if isinstance(item, tuple)]
        self.specs = [item[1] for item in items if isinstance(item, tuple)]
        # the layout, with each value replaced by its position in ``values``
        layout, k = [], 0
        for item in items:
            if isinstance(item, tuple):
                layout.append(k)
                k += 1
            else:
                layout.append(item)
        self.layout = layout


class AssertStmt(Stmt):
    """Debug check: when ``cond`` is 0, the launch stops with error ``message``.

    ``args`` are values the message shows (e.g. the bad index).
    """

    operand_names = ("cond", "args")
    has_side_effect = True

    def __init__(self, cond: Stmt, message: str, args: list[Stmt], kind: str = "assert") -> None:
        super().__init__(None)
        self.cond, self.message, self.args, self.kind = cond, message, args, kind


class OffloadedStmt(Stmt):
    """A task: ``serial``, ``range_for`` or ``struct_for``.

    A parallel task runs ``prologue`` once per chunk, ``body`` per index of
    [begin, end), then ``epilogue`` once per chunk. ``begin``/``end`` are statements of
    the kernel's serial code (evaluated before the launch) or ints.
    """

    operand_names = ("begin", "end", "extents", "starts")
    block_names = ("prologue", "body", "epilogue")
    has_side_effect = True

    def __init__(self, kind: str, config: dict | None = None) -> None:
        super().__init__(None)
        self.kind = kind
        self.config = dict(config or {})
        self.begin: Stmt | int = 0
        self.end: Stmt | int = 0
        self.field: Any = None
        self.loop: Stmt | None = None  # the for statement this task came from
        # ndrange axes of the loop, as values available inside the task
        self.extents: list[Stmt] = []
        self.starts: list[Stmt] = []
        self.prologue = _block(self, None)
        self.body = _block(self, None)
        self.epilogue = _block(self, None)
