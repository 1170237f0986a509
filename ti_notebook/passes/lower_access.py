"""Lower field accesses to address arithmetic from the fields' memory plans.

``x[i, j]`` becomes ``root(tree) + offset + i*stride0 + j*stride1`` in i64 (with one
term per level for nested layouts), the numbers read from ``x.layout()`` only
(DESIGN.md section 4); ``lower_sparse`` ran before and added what sparse nodes need,
and ``prove_bounds`` before it the checks of the indices it could not prove in range,
so every access here is in range and takes the fastest form there is.
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import plan_arith as arith


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    lowered: dict[int, ir.Stmt] = {}
    # an access's arithmetic, by access: each block is rebuilt once at the end (inserting
    # it statement by statement shifts the rest of the block each time: quadratic)
    before: dict[int, list[ir.Stmt]] = {}
    blocks: dict[int, ir.Block] = {}
    # by block: the arithmetic its accesses share (an index's scaled term, a tree's root),
    # placed before the first access of the block that needs it
    shared: dict[int, dict[tuple, ir.Stmt]] = {}
    if capabilities.non_temporal_stores:
        _mark_streaming_stores(kernel)
    for stmt in list(kernel.block.walk()):
        if isinstance(stmt, ir.GlobalPtrStmt):
            emit = _Collect(
                stmt, before.setdefault(stmt.id, []), shared.setdefault(id(stmt.parent), {})
            )
            lowered[stmt.id] = _lower(kernel, stmt, emit)
            blocks[id(stmt.parent)] = stmt.parent
    for block in blocks.values():
        stmts: list[ir.Stmt] = []
        for stmt in block.stmts:
            if stmt.id in lowered:
                stmts += before[stmt.id]
                stmt = lowered[stmt.id]
            stmts.append(stmt)
        block.stmts = stmts
    if lowered:
        for stmt in kernel.block.walk():
            for operand in stmt.operands():
                if operand.id in lowered:
                    stmt.replace_operand(operand, lowered[operand.id])
    return bool(lowered)


class _Collect(arith.Emitter):
    """Emits into ``stmts``: the statements that go before ``anchor`` in its block;
    ``shared`` holds what earlier accesses of the block made, for ``reused``."""

    def __init__(self, anchor: ir.Stmt, stmts: list[ir.Stmt], shared: dict) -> None:
        super().__init__(anchor)
        self.stmts, self.shared = stmts, shared

    def reused(self, key: tuple, make) -> ir.Stmt:
        if key not in self.shared:
            self.shared[key] = make()
        return self.shared[key]

    def place(self, stmt: ir.Stmt) -> ir.Stmt:
        stmt.parent = self.anchor.parent
        self.stmts.append(stmt)
        return stmt


def _lower(kernel: KernelIR, ptr: ir.GlobalPtrStmt, emit: arith.Emitter) -> ir.Stmt:
    """The address of ``ptr``'s element, its arithmetic emitted by ``emit``."""
    field = ptr.field
    plan = field.layout()
    loop = _visiting_loop(ptr)
    if loop is not None:
        # The loop's own cell of a field laid out like the loop's: base + k * cell.
        linear = emit(ir.LoopLinearIndexStmt(loop))
        step = emit.op("mul", linear, emit.const(plan.levels[-1].cell_size))
        offset = emit.op("add", step, emit.const(plan.offset))
    else:
        offset = arith.element_offset(emit, plan, ptr.indices)
    if ptr.private is not None:  # the chunk's private copy of the tree's span
        buffer, start = ptr.private
        offset = emit.op("sub", offset, emit.const(start))
        root = buffer
    else:
        root = emit.reused(("root", plan.tree_id), lambda: emit(ir.RootPtrStmt(plan.tree_id)))
    address = ir.PtrOffsetStmt(root, offset, field.dtype)
    address.pos = ptr.pos
    address.field = field if ptr.private is None else None
    address.parent = ptr.parent
    return address


# Fields this big do not stay in the last-level cache, so stores that stream through them
# skip it (non-temporal): no read-for-ownership, a third less memory traffic.
STREAMING_BYTES = 64 << 20


def _mark_streaming_stores(kernel: KernelIR) -> None:
    """``x[I] = ...`` over a huge field the task never reads: a non-temporal store."""
    for task in kernel.tasks():
        if task.kind != "struct_for":
            continue
        read, stores = set(), []
        for s in task.walk_all():
            target = s.ptr if isinstance(s, (ir.GlobalLoadStmt, ir.GlobalStoreStmt)) else None
            target = s.dest if isinstance(s, ir.AtomicOpStmt) else target
            if not isinstance(target, ir.GlobalPtrStmt):
                continue
            if isinstance(s, ir.GlobalStoreStmt):
                stores.append(s)
            else:
                read.add(target.field)
        for store in stores:
            field = store.ptr.field
            levels = field.layout().levels
            if not levels:
                continue
            size = levels[0].num_cells * levels[0].cell_size
            if field not in read and size >= STREAMING_BYTES and _visiting_loop(store.ptr):
                store.nontemporal = True


def contiguous(layout) -> bool:
    """True when the layout's cells, in memory order, are one packed array."""
    levels = layout.levels
    for upper, lower in zip(levels, levels[1:], strict=False):
        if lower.offset != 0 or upper.cell_size != lower.num_cells * lower.cell_size:
            return False
    return bool(levels)


def _same_shape_of_levels(a, b) -> bool:
    return len(a.levels) == len(b.levels) and all(
        x.axes == y.axes and x.extents == y.extents for x, y in zip(a.levels, b.levels, strict=True)
    )


def _visiting_loop(ptr: ir.GlobalPtrStmt):
    """The struct-for whose current cell ``ptr`` addresses, when its memory-order number
    gives the address directly (both layouts packed and split alike), else None."""
    loop = transform.enclosing_struct_for(ptr)
    if loop is None or not transform.indexes_own_cell(ptr, loop):
        return None
    mine, theirs = ptr.field.layout(), loop.field.layout()
    if mine.shape != theirs.shape or not _same_shape_of_levels(mine, theirs):
        return None
    return loop if contiguous(mine) and contiguous(theirs) else None
