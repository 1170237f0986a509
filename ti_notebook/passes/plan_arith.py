"""IR for the memory plan's formulas: element addresses and sparse-cell bits.

Shared by ``lower_access`` (field accesses, activation on write) and the sparse
builtins (``ti.is_active``...). Every number comes from ``field.layout()``.
"""

from __future__ import annotations

import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.plan.layout import FieldLayout, LevelPlan, mask_bytes


class Emitter:
    """Inserts statements before ``anchor`` (all with its source position)."""

    def __init__(self, anchor: ir.Stmt) -> None:
        self.anchor = anchor
        self.pos = anchor.pos

    def place(self, stmt: ir.Stmt) -> ir.Stmt:
        return transform.insert_before(self.anchor, stmt)

    def __call__(self, stmt: ir.Stmt) -> ir.Stmt:
        stmt.pos = self.pos
        return self.place(stmt)

    def const(self, value: int, dtype=types.i64) -> ir.Stmt:
        return self(ir.ConstStmt(value, dtype))

    def i32(self, value: int) -> ir.Stmt:
        return self.const(value, types.i32)

    def op(self, op: str, a: ir.Stmt, b: ir.Stmt, dtype=None) -> ir.Stmt:
        return self(ir.BinaryOpStmt(op, a, b, dtype or a.dtype))

    def within(self, block: ir.Block) -> BlockEmitter:
        """An emitter appending to ``block`` (an if's branch, a loop's body)."""
        return BlockEmitter(block, self.pos)


class BlockEmitter(Emitter):
    """Appends statements to the end of ``block``, all at source position ``pos``."""

    def __init__(self, block: ir.Block, pos) -> None:
        self.block, self.pos = block, pos

    def place(self, stmt: ir.Stmt) -> ir.Stmt:
        return self.block.append(stmt)


def level_coordinate(emit: Emitter, index: ir.Stmt, below: int, extent: int | None) -> ir.Stmt:
    """``(index // below) % extent`` in u32 (indices are non-negative here)."""
    value = emit(ir.CastStmt(index, types.u32))
    if below > 1:
        value = emit.op("floordiv", value, emit.const(below, types.u32))
    if extent is not None:
        value = emit.op("mod", value, emit.const(extent, types.u32))
    return value


def element_offset(emit: Emitter, layout: FieldLayout, indices: list[ir.Stmt]) -> ir.Stmt:
    """Byte offset (i64) of ``indices`` in the tree, from the plan's levels."""
    seen: set[int] = set()
    offset = layout.offset_in_cell + sum(level.offset for level in layout.levels)
    total: ir.Stmt = emit.const(offset)
    for level in layout.levels:
        for a, extent, below, stride in zip(
            level.axes, level.extents, level.below, level.strides, strict=True
        ):
            if below == 1 and a not in seen:
                # The outermost split of an axis with nothing below: the index itself.
                wide = emit(ir.CastStmt(indices[a], types.i64))
            else:
                topmost = a not in seen
                coord = level_coordinate(emit, indices[a], below, None if topmost else extent)
                wide = emit(ir.CastStmt(coord, types.i64))
            seen.add(a)
            term = emit.op("mul", wide, emit.const(stride))
            total = emit.op("add", total, term)
    return total


def cell_number(
    emit: Emitter, layout: FieldLayout, level: LevelPlan, indices: list[ir.Stmt]
) -> ir.Stmt:
    """Row-major number (u32) of the ``level`` cell holding ``indices``: its bitmask bit."""
    number: ir.Stmt = emit.const(0, types.u32)
    divisors = layout.cell_divisors(level)
    for a, (cells, divisor) in enumerate(zip(level.grid, divisors, strict=True)):
        coord = level_coordinate(emit, indices[a], divisor, None)
        number = emit.op("add", emit.op("mul", number, emit.const(cells, types.u32)), coord)
    return number


def mask_word(
    emit: Emitter, tree_id: int, level: LevelPlan, number: ir.Stmt, snapshot: bool = False
):
    """(pointer to the u32 bitmask word, the cell's bit in it); ``snapshot`` reads the
    enclosing task's copy of the bitmasks."""
    word = emit.op("shr", number, emit.const(5, types.u32))
    byte = emit.op("mul", emit(ir.CastStmt(word, types.i64)), emit.const(4))
    byte = emit.op("add", byte, emit.const(level.mask_offset))
    root = emit(ir.RootPtrStmt(tree_id, snapshot))
    ptr = emit(ir.PtrOffsetStmt(root, byte, types.u32))
    shift = emit.op("bit_and", number, emit.const(31, types.u32))
    bit = emit.op("shl", emit.const(1, types.u32), shift)
    return ptr, bit


def mask_span(layout: FieldLayout) -> tuple[int, int]:
    """(tree offset, bytes) of the activity bitmasks of ``layout``'s sparse levels (the
    tree keeps them side by side, 64-bit words, after the cells)."""
    spans = []
    for level in layout.levels:
        if level.is_sparse:
            end = level.mask_offset + mask_bytes(math.prod(level.grid))
            spans.append((level.mask_offset, end))
    start = min(a for a, _ in spans)
    return start, max(b for _, b in spans) - start


def activate(emit: Emitter, layout: FieldLayout, indices: list[ir.Stmt], levels=None) -> None:
    """Sets the activity bits of the sparse cells on ``indices``' path.

    The bit is read first and the (locked) atomic or runs only when it is clear: most
    writes go to cells that are already active.
    """
    for level in levels if levels is not None else layout.levels:
        if level.is_sparse:
            number = cell_number(emit, layout, level, indices)
            ptr, bit = mask_word(emit, layout.tree_id, level, number)
            word = emit(ir.GlobalLoadStmt(ptr))
            clear = emit(
                ir.BinaryOpStmt(
                    "eq", emit.op("bit_and", word, bit), emit.const(0, types.u32), types.i32
                )
            )
            branch = emit(ir.IfStmt(clear))
            emit.within(branch.true_block)(ir.AtomicOpStmt("bit_or", ptr, bit))


def is_active(
    emit: Emitter, layout: FieldLayout, indices: list[ir.Stmt], levels, snapshot: bool = False
) -> ir.Stmt:
    """i32 1 when every sparse level of ``levels`` holding ``indices`` is active."""
    result = None
    for level in levels:
        number = cell_number(emit, layout, level, indices)
        ptr, bit = mask_word(emit, layout.tree_id, level, number, snapshot)
        word = emit(ir.GlobalLoadStmt(ptr))
        hit = emit(
            ir.BinaryOpStmt(
                "ne", emit.op("bit_and", word, bit), emit.const(0, types.u32), types.i32
            )
        )
        result = hit if result is None else emit.op("logical_and", result, hit)
    return result if result is not None else emit.const(1, types.i32)
