"""Struct-fors become row loops: index splitting and inactive-block skipping, as IR.

A struct-for visits its field's cells in memory order through a flat counter (the
order ``plan/visit.py`` states as data). Splitting the counter into field indices costs
a division and a remainder per level and axis, so it is done once per *row*, in the
loop's ``row_head``; the row's cells follow by adding the cell's position in the row
(``RowOffsetStmt``) to the innermost axis, or, for a nested layout whose leaf block
splits two or more axes, by splitting the position inside the leaf block (a few shifts):

    row_head:  start = RowStart                        # once per row
               corner = split(start)                   # or split(start - start % width)
               if deepest sparse block above the leaf is inactive: SkipRows(next block)
    body:      I = corner + RowOffset                  # per cell: LoopIndex(loop, axis)

Activation keeps the ancestors of an active cell active, so the deepest sparse level
above the leaf decides whether a whole block is skipped; a sparse leaf's own bit is
checked per cell (``passes/lower_sparse.py``). A dynamic leaf's row is one list, and the
row head skips the part of it past the list's length. Every backend emits the same row loop
(``ir/control_stmts.StructForStmt`` says what it means); none re-derives the order.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.refs import FieldRef
    >>> from ti_notebook.ir.types import f32, i32
    >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
    >>> lv = LevelPlan("dense", (0, 1), (3, 4), (1, 1), 4, (16, 4), 0, 12, None, (3, 4))
    >>> plan = FieldLayout(0, "x", "f32", (3, 4), (lv,), 0, 4)
    >>> x = FieldRef("x", "field 'x'", f32, plan)
    >>> k = KernelIR("f", ir.Block())
    >>> loop = k.block.append(ir.StructForStmt(x, {"serialize": True}))
    >>> j = loop.body.append(ir.LoopIndexStmt(loop, 1, i32))
    >>> run(k, None, None), loop.row_width
    (True, 4)
    >>> any(isinstance(s, ir.LoopIndexStmt) for s in k.block.walk())
    False
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import plan_arith as arith
from ti_notebook.plan import visit
from ti_notebook.plan.layout import FieldLayout


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    owners: list[ir.Stmt] = [t for t in kernel.tasks() if t.kind == "struct_for"]
    owners += [s for s in kernel.block.walk() if isinstance(s, ir.StructForStmt)]
    for owner in owners:
        _lower(owner)
        profiled = options is not None and options.kernel_profiler
        if profiled and isinstance(owner, ir.OffloadedStmt) and owner.field.layout().is_sparse:
            _count_active_cells(owner)
    return bool(owners)


def _count_active_cells(task: ir.OffloadedStmt) -> None:
    """For the profiler: a chunk of a sparse struct-for spans inactive cells too, so the
    cells it really visits are counted where the body runs for an active cell."""
    count = ir.CountIterationStmt()
    count.pos = task.pos
    if task.cell_guard is not None:  # a sparse leaf: inside its activity test
        task.cell_guard.true_block.insert(0, count)
    else:  # only sparse levels above the leaf: the row head skipped inactive blocks
        task.body.insert(0, count)


def _lower(owner: ir.Stmt) -> None:
    """Makes ``owner`` (a struct-for, or a task that was one) a row loop."""
    loop = owner.loop if isinstance(owner, ir.OffloadedStmt) else owner
    layout: FieldLayout = owner.field.layout()
    if not layout.levels:  # a 0-D field: one cell, no splitting
        owner.row_width = 1
        _replace_indices(owner, loop, [], None)
        return
    rows = visit.struct_rows(layout)
    owner.row_width = rows.width
    head = arith.BlockEmitter(owner.row_head, owner.pos)
    row_start = head(ir.RowStartStmt(loop))
    start = head(ir.CastStmt(row_start, types.u32))
    if rows.whole_blocks:  # the corner is the leaf block's first cell
        into_row = head.op("mod", start, head.const(rows.width, types.u32))
        first = head(ir.BinaryOpStmt("sub", start, into_row, types.u32, True))
        corner = _cell_indices(head, layout, first)
    else:
        corner = _cell_indices(head, layout, start)
    _skip_inactive_blocks(head, layout, loop, corner, start)
    blocks = visit.skip_level(layout)
    # The CUDA list of active blocks runs the row head for a block's first cell: a skip
    # there drops the whole block, right only when that block is one list.
    one_list = blocks is None or blocks[1] == rows.width
    if layout.levels[-1].is_dynamic and not rows.whole_blocks and one_list:
        _skip_past_length(head, layout, loop, corner, start, rows.width)
    # the cell: the corner plus the position in the row (or in the leaf block)
    old_body = list(owner.body.stmts)
    owner.body.stmts = []
    cell = arith.BlockEmitter(owner.body, owner.pos)
    offset = cell(ir.RowOffsetStmt(loop))
    if rows.whole_blocks:
        local = cell(
            ir.BinaryOpStmt("add", into_row, cell(ir.CastStmt(offset, types.u32)), types.u32, True)
        )
        parts = _split(cell, local, layout.levels[-1].extents)
        indices = list(corner)
        for axis, part in zip(layout.levels[-1].axes, parts, strict=True):
            indices[axis] = _add(cell, indices[axis], part)
    else:
        indices = list(corner)
        indices[rows.inner_axis] = _add(cell, corner[rows.inner_axis], offset)
    linear = cell(ir.BinaryOpStmt("add", row_start, offset, types.i32, True))
    linear = cell(ir.CastStmt(linear, types.i64))
    for stmt in old_body:
        owner.body.append(stmt)
    _replace_indices(owner, loop, indices, linear)


def _add(emit: arith.Emitter, base: ir.Stmt, part: ir.Stmt) -> ir.Stmt:
    """``base + part`` as a field index (i32); neither overflows (cells < 2**31)."""
    if part.dtype is not types.i32:
        part = emit(ir.CastStmt(part, types.i32))
    return emit(ir.BinaryOpStmt("add", base, part, types.i32, True))


def _split(emit: arith.Emitter, number: ir.Stmt, extents) -> list[ir.Stmt]:
    """``number`` (u32) split row-major over ``extents``: one part per extent."""
    parts: list[ir.Stmt] = []
    rest = number
    for k in range(len(extents) - 1, -1, -1):
        if k == 0:
            parts.append(rest)
        else:
            size = emit.const(extents[k], types.u32)
            parts.append(emit.op("mod", rest, size))
            rest = emit.op("floordiv", rest, size)
    return parts[::-1]


def _cell_indices(emit: arith.Emitter, layout: FieldLayout, flat: ir.Stmt) -> list[ir.Stmt]:
    """Field indices (i32) of cell number ``flat`` (u32) in memory order: the IR twin of
    ``plan.visit.cell_indices``, level by level from the leaf up."""
    indices: list[ir.Stmt | None] = [None] * len(layout.shape)
    rest = flat
    levels = layout.levels
    for depth in range(len(levels) - 1, -1, -1):
        level = levels[depth]
        if depth == 0:
            local = rest
        else:
            count = emit.const(level.num_cells, types.u32)
            local, rest = emit.op("mod", rest, count), emit.op("floordiv", rest, count)
        for axis, part, below in zip(
            level.axes, _split(emit, local, level.extents), level.below, strict=True
        ):
            if below > 1:
                part = emit(
                    ir.BinaryOpStmt("mul", part, emit.const(below, types.u32), types.u32, True)
                )
            if indices[axis] is None:
                indices[axis] = part
            else:
                indices[axis] = emit(ir.BinaryOpStmt("add", indices[axis], part, types.u32, True))
    return [
        emit(ir.CastStmt(i, types.i32)) if i is not None else emit.const(0, types.i32)
        for i in indices
    ]


def _skip_inactive_blocks(
    emit: arith.Emitter, layout: FieldLayout, loop: ir.Stmt, corner: list[ir.Stmt], start
) -> None:
    """Skips the whole block when its deepest non-leaf sparse cell is inactive. The bits
    come from the task's copy when it took one (``RootPtrStmt(snapshot=True)``)."""
    found = visit.skip_level(layout)
    if found is None:
        return
    depth, span = found
    level = layout.levels[depth]
    number = arith.cell_number(emit, layout, level, corner)
    ptr, bit = arith.mask_word(emit, layout.tree_id, level, number, snapshot=True)
    word = emit(ir.GlobalLoadStmt(ptr))
    zero = emit.const(0, types.u32)
    inactive = emit(ir.BinaryOpStmt("eq", emit.op("bit_and", word, bit), zero, types.i32))
    branch = emit(ir.IfStmt(inactive))
    inner = emit.within(branch.true_block)
    size = inner.const(span, types.u32)
    blocks = inner(
        ir.BinaryOpStmt(
            "add", inner.op("floordiv", start, size), inner.const(1, types.u32), types.u32, True
        )
    )
    following = inner(ir.BinaryOpStmt("mul", blocks, size, types.u32, True))
    inner(ir.SkipRowsStmt(loop, inner(ir.CastStmt(following, types.i32))))


def _skip_past_length(
    emit: arith.Emitter, layout: FieldLayout, loop: ir.Stmt, corner, start, width: int
) -> None:
    """A row of a dynamic leaf is one list: from the position where the list's length
    ends, the rest of the row is skipped (cells before it are checked one by one,
    ``passes/lower_sparse.py``). The length comes from the task's copy when it took one."""
    level = layout.levels[-1]
    position = corner[level.axes[0]]
    length = emit(ir.GlobalLoadStmt(arith.length_ptr(emit, layout, level, corner, True)))
    past = emit(ir.BinaryOpStmt("ge", position, length, types.i32))
    branch = emit(ir.IfStmt(past))
    inner = emit.within(branch.true_block)
    size = inner.const(width, types.u32)
    rows = inner(
        ir.BinaryOpStmt(
            "add", inner.op("floordiv", start, size), inner.const(1, types.u32), types.u32, True
        )
    )
    following = inner(ir.BinaryOpStmt("mul", rows, size, types.u32, True))
    inner(ir.SkipRowsStmt(loop, inner(ir.CastStmt(following, types.i32))))


def _replace_indices(owner: ir.Stmt, loop: ir.Stmt, indices: list, linear) -> None:
    """Every ``LoopIndex``/``LoopLinearIndex`` of ``loop`` in ``owner``'s body reads the
    row loop's values instead; the index statements go (all in one walk: an unrolled body
    holds one index statement per access)."""
    new_for: dict[int, ir.Stmt] = {}
    for stmt in list(owner.body.walk()):
        if isinstance(stmt, ir.LoopIndexStmt) and stmt.loop is loop:
            new_for[stmt.id] = indices[stmt.axis] if indices else _zero_before(stmt)
        elif isinstance(stmt, ir.LoopLinearIndexStmt) and stmt.loop is loop:
            new_for[stmt.id] = linear if linear is not None else _zero_before(stmt, types.i64)
        else:
            continue
        transform.remove(stmt)
    transform.replace_all_uses(owner.body, new_for)


def _zero_before(stmt: ir.Stmt, dtype=types.i32) -> ir.Stmt:
    return transform.insert_before(stmt, ir.ConstStmt(0, dtype))
