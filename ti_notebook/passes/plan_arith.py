"""IR for the memory plan's formulas: element addresses and sparse-cell bits.

Shared by ``lower_access`` (field accesses, activation on write) and the sparse
builtins (``ti.is_active``...). Every number comes from ``field.layout()``.
"""

from __future__ import annotations

from collections.abc import Callable

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.plan.layout import FieldLayout, LevelPlan


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

    def reused(self, key: tuple, make: Callable[[], ir.Stmt]) -> ir.Stmt:
        """``make()``'s statement, or the one an earlier ``make`` with the same ``key``
        placed where this one is seen (an emitter that keeps none makes it again)."""
        return make()

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
    """Byte offset (i64) of ``indices`` in the tree, from the plan's levels.

    An index ``i + c`` with a constant ``c`` (a stencil's ``x[i - 1, j + 2]``) adds
    ``c * stride`` to the constant part and shares ``i * stride`` with its neighbours
    through ``emit.reused``: an unrolled 9x9 stencil's 81 loads then differ by a
    constant each, and LLVM has a fifth of the arithmetic to optimise away. A blocked
    level's coordinate (``(i + c) // below % extent``) has no such split, but accesses
    with the same ``i`` and ``c`` share it: 9 per axis instead of 81."""
    seen: set[int] = set()
    offset = layout.offset_in_cell + sum(level.offset for level in layout.levels)
    terms: dict[int, list[ir.Stmt]] = {}  # by axis: an axis's part is shared whole
    for level in layout.levels:
        for a, extent, below, stride in zip(
            level.axes, level.extents, level.below, level.strides, strict=True
        ):
            base, shift = constant_shift(indices[a])
            if below == 1 and a not in seen:
                # The outermost split of an axis with nothing below: the index itself.
                offset += shift * stride
                if base is not None:
                    scaled = _scaled(emit, base, stride)
                    terms.setdefault(a, []).append(emit.reused(("term", base.id, stride), scaled))
            else:
                cells = None if a not in seen else extent  # the topmost split: no modulo
                key = ("level", None if base is None else base.id, shift, below, cells, stride)
                term = _level_term(emit, indices[a], below, cells, stride)
                terms.setdefault(a, []).append(emit.reused(key, term))
            seen.add(a)
    parts = [_shared_sum(emit, axis_terms) for _, axis_terms in sorted(terms.items())]
    if not parts:
        return emit.const(offset)
    total = _shared_sum(emit, parts)
    return emit.op("add", total, emit.const(offset)) if offset else total


def _shared_sum(emit: Emitter, terms: list[ir.Stmt]) -> ir.Stmt:
    """``terms[0] + terms[1] + ...``, each partial sum shared through ``emit.reused``."""
    total = terms[0]
    for n in range(1, len(terms)):
        key = ("sum", *(term.id for term in terms[: n + 1]))
        total = emit.reused(key, lambda total=total, n=n: emit.op("add", total, terms[n]))
    return total


def _level_term(
    emit: Emitter, index: ir.Stmt, below: int, cells: int | None, stride: int
) -> Callable[[], ir.Stmt]:
    """What makes a blocked level's ``coordinate * stride`` in i64."""

    def make() -> ir.Stmt:
        coord = level_coordinate(emit, index, below, cells)
        return emit.op("mul", emit(ir.CastStmt(coord, types.i64)), emit.const(stride))

    return make


def _scaled(emit: Emitter, index: ir.Stmt, stride: int) -> Callable[[], ir.Stmt]:
    """What makes ``index * stride`` in i64."""
    return lambda: emit.op("mul", emit(ir.CastStmt(index, types.i64)), emit.const(stride))


def constant_shift(index: ir.Stmt) -> tuple[ir.Stmt | None, int]:
    """``(base, c)`` with ``index == base + c`` for a signed integer index (``base`` None
    when the index is a constant). The sum is taken in i64, where ``i + c`` in i32 would
    wrap only for an index no field has.

        >>> from ti_notebook.ir.types import i32
        >>> i = ir.ArgLoadStmt(0, i32)
        >>> shifted = ir.BinaryOpStmt("sub", i, ir.ConstStmt(2, i32), i32)
        >>> base, c = constant_shift(ir.BinaryOpStmt("add", shifted, ir.ConstStmt(5, i32), i32))
        >>> base is i, c
        (True, 3)
    """
    shift = 0
    while isinstance(index, ir.BinaryOpStmt) and index.op in ("add", "sub"):
        if not (index.dtype.is_integral and index.dtype.is_signed):
            break
        lhs, rhs = index.lhs, index.rhs
        if isinstance(rhs, ir.ConstStmt):
            shift += rhs.value if index.op == "add" else -rhs.value
            index = lhs
        elif isinstance(lhs, ir.ConstStmt) and index.op == "add":
            shift += lhs.value
            index = rhs
        else:
            break
    if isinstance(index, ir.ConstStmt) and index.dtype.is_integral:
        return None, shift + index.value
    return index, shift


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
    """(tree offset, bytes) of the activity of ``layout``'s sparse levels: bitmasks and
    dynamic lengths (the tree keeps them side by side, in 64-bit words, after the cells)."""
    spans = []
    for level in layout.levels:
        if level.is_sparse:
            start, size = level.activity_span
            spans.append((start, start + size))
    start = min(a for a, _ in spans)
    return start, max(b for _, b in spans) - start


def list_number(
    emit: Emitter, layout: FieldLayout, level: LevelPlan, indices: list[ir.Stmt | None]
) -> ir.Stmt:
    """Row-major number (u32) of the list of dynamic ``level`` holding ``indices`` (the
    IR twin of ``FieldLayout.list_number``); the list axis's index is not read."""
    number: ir.Stmt = emit.const(0, types.u32)
    divisors = layout.cell_divisors(level)
    for a, (cells, divisor) in enumerate(zip(level.grid, divisors, strict=True)):
        if a != level.axes[0]:
            coord = level_coordinate(emit, indices[a], divisor, None)
            number = emit.op("add", emit.op("mul", number, emit.const(cells, types.u32)), coord)
    return number


def length_ptr(
    emit: Emitter, layout: FieldLayout, level: LevelPlan, indices, snapshot: bool = False
) -> ir.Stmt:
    """Pointer to the i32 length of the list of dynamic ``level`` holding ``indices``;
    ``snapshot`` reads the enclosing task's copy."""
    number = emit(ir.CastStmt(list_number(emit, layout, level, indices), types.i64))
    byte = emit.op("add", emit.op("mul", number, emit.const(4)), emit.const(level.mask_offset))
    root = emit(ir.RootPtrStmt(layout.tree_id, snapshot))
    return emit(ir.PtrOffsetStmt(root, byte, types.i32))


def within_length(
    emit: Emitter, layout: FieldLayout, level: LevelPlan, indices, snapshot: bool = False
) -> ir.Stmt:
    """i32 1 when ``indices``' position in its list is below the list's length."""
    length = emit(ir.GlobalLoadStmt(length_ptr(emit, layout, level, indices, snapshot)))
    return emit(ir.BinaryOpStmt("lt", indices[level.axes[0]], length, types.i32))


def activate(emit: Emitter, layout: FieldLayout, indices: list[ir.Stmt], levels=None) -> None:
    """Sets the activity bits of the sparse cells on ``indices``' path (and makes a
    dynamic list long enough to hold the element).

    The bit is read first and the (locked) atomic or runs only when it is clear: most
    writes go to cells that are already active.
    """
    for level in levels if levels is not None else layout.levels:
        if level.is_dynamic:  # the list grows to hold the element (Taichi's rule)
            ptr = length_ptr(emit, layout, level, indices)
            needed = emit.op("add", indices[level.axes[0]], emit.i32(1))
            short = emit(ir.BinaryOpStmt("lt", emit(ir.GlobalLoadStmt(ptr)), needed, types.i32))
            branch = emit(ir.IfStmt(short))
            emit.within(branch.true_block)(ir.AtomicOpStmt("max", ptr, needed))
        elif level.has_bits:
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
    """i32 1 when every sparse level of ``levels`` holding ``indices`` is active (for a
    dynamic level: the position is below the list's length)."""
    result = None
    for level in levels:
        if level.is_dynamic:
            hit = within_length(emit, layout, level, indices, snapshot)
            result = hit if result is None else emit.op("logical_and", result, hit)
            continue
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
