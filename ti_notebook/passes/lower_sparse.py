"""Sparse SNodes in kernels: activation on write, guarded struct-fors, SNode builtins.

Sparse levels are ``pointer``/``bitmasked`` (a bit per cell) and ``dynamic`` (a length
per list: the cells ``[0, length)`` are active; ``passes/dynamic_lists.py``).

Every inactive cell holds zeros (deactivation clears its storage), so reading needs no
check. This pass adds what writes and loops need, all from the memory plan:

- a store or atomic into a ``pointer``/``bitmasked`` path sets the activity bits of the
  cells on that path;
- a struct-for over a sparse field (or a sparse node) runs its body for active cells;
- ``ti.is_active``/``ti.activate``/``ti.deactivate`` become bit tests, sets and clears;
  deactivating an active cell also zeroes its storage and clears the bits (and list
  lengths) of the sparse cells inside it, so a reactivated pointer block starts empty,
  as in Taichi; ``ti.append``/``ti.length``/``ti.deactivate`` of a dynamic node work on
  its lengths, and ``ti.get_addr`` becomes the element's address from the plan;
- with ``ti.no_activate(x)`` a write to ``x`` activates nothing (``passes/no_activate.py``).
"""

from __future__ import annotations

import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import dynamic_lists, no_activate
from ti_notebook.passes import plan_arith as arith


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    changed = _guard_sparse_struct_fors(kernel)
    check = options is None or options.check_bounds
    stmts = list(kernel.block.walk())
    users = transform.users_of(stmts)  # once: each rewrite below reads its readers here
    for stmt in stmts:
        if isinstance(stmt, (ir.GlobalStoreStmt, ir.AtomicOpStmt)):
            ptr = stmt.ptr if isinstance(stmt, ir.GlobalStoreStmt) else stmt.dest
            if (
                isinstance(ptr, ir.GlobalPtrStmt)
                and ptr.field.layout().is_sparse
                and not _visited_cell(ptr)
            ):
                if ptr.field in kernel.no_activate:
                    no_activate.store_if_active(kernel, stmt, ptr, users)
                else:
                    arith.activate(arith.Emitter(stmt), ptr.field.layout(), ptr.indices)
                changed = True
        elif isinstance(stmt, ir.SNodeOpStmt):
            _lower_snode_op(stmt, check, users)
            changed = True
    return changed


def _visited_cell(ptr: ir.GlobalPtrStmt) -> bool:
    """True for ``x[I]`` in a struct-for over a field sharing ``x``'s sparse cells at
    ``I``: the loop visits active cells only, so there is nothing to activate."""
    loop = transform.enclosing_struct_for(ptr)
    if loop is None or not transform.indexes_own_cell(ptr, loop):
        return False
    layout, theirs = ptr.field.layout(), loop.field.layout()
    mine = {lv.mask_offset for lv in layout.levels if lv.is_sparse}
    visited = {lv.mask_offset for lv in theirs.levels if lv.is_sparse}
    same_space = theirs.tree_id == layout.tree_id and theirs.shape == layout.shape
    return same_space and mine <= visited


def _snapshot_if_activity_changes(task: ir.OffloadedStmt) -> None:
    """A struct-for task whose body may activate or deactivate cells of the sparse levels
    it iterates reads those levels' bits from a copy taken as the task starts: it visits
    the cells active when the loop started, whatever the order of its iterations."""
    layout = task.field.layout()
    if not any(level.is_sparse for level in layout.levels):
        return
    mine = {level.mask_offset for level in layout.levels if level.is_sparse}

    def touches(other) -> bool:
        theirs = {level.mask_offset for level in other.levels if level.is_sparse}
        return other.tree_id == layout.tree_id and bool(mine & theirs)

    for stmt in task.walk_all():
        if isinstance(stmt, (ir.GlobalStoreStmt, ir.AtomicOpStmt)):
            ptr = stmt.ptr if isinstance(stmt, ir.GlobalStoreStmt) else stmt.dest
            changes = isinstance(ptr, ir.GlobalPtrStmt) and not _visited_cell(ptr)
            if changes and touches(ptr.field.layout()):
                break
        elif (
            isinstance(stmt, ir.SNodeOpStmt)
            and stmt.op in ("activate", "deactivate", "append")
            and touches(stmt.snode.layout())
        ):
            break
    else:
        return
    task.snapshot = arith.mask_span(layout)


def _guard_sparse_struct_fors(kernel: KernelIR) -> bool:
    """A struct-for over a sparse field runs its body only for active cells."""
    for task in kernel.tasks():
        if task.kind == "struct_for":
            _snapshot_if_activity_changes(task)
    loops = [t for t in kernel.tasks() if t.kind == "struct_for"]
    loops += [s for s in kernel.block.walk() if isinstance(s, ir.StructForStmt)]
    guarded = False
    for loop in loops:
        layout = loop.field.layout()
        # Sparse levels above the leaf are checked once per block by the loop itself
        # (passes/lower_struct_for.py); the leaf's own bits are checked per cell here.
        sparse = [layout.levels[-1]] if layout.levels[-1].is_sparse else []
        if not sparse:
            continue
        body = loop.body
        struct_loop = loop.loop if isinstance(loop, ir.OffloadedStmt) else loop
        old = list(body.stmts)
        body.stmts = []
        indices = [
            body.append(ir.LoopIndexStmt(struct_loop, axis, types.i32))
            for axis in range(len(layout.shape))
        ]
        emit = arith.BlockEmitter(body, loop.pos)
        snapshot = isinstance(loop, ir.OffloadedStmt) and loop.snapshot is not None
        cond = arith.is_active(emit, layout, indices, sparse, snapshot)
        guard = emit(ir.IfStmt(cond))
        for stmt in old:
            guard.true_block.append(stmt)
        loop.cell_guard = guard
        guarded = True
    return guarded


def _lower_snode_op(stmt: ir.SNodeOpStmt, check: bool, users: dict) -> None:
    layout = stmt.snode.layout()
    emit = arith.Emitter(stmt)
    sparse_path = [level for level in layout.levels if level.is_sparse]
    dynamic = getattr(stmt.snode, "kind", None) == "dynamic"
    result = None
    if stmt.op == "is_active":
        result = arith.is_active(emit, layout, stmt.indices, sparse_path)
    elif stmt.op == "activate":
        arith.activate(emit, layout, stmt.indices)
    elif stmt.op == "length":
        result = dynamic_lists.length(emit, layout, stmt.indices)
    elif stmt.op == "append":
        result = dynamic_lists.append(emit, stmt, check)
    elif stmt.op == "get_addr":
        offset = arith.element_offset(emit, layout, stmt.indices)
        ptr = emit(ir.PtrOffsetStmt(emit(ir.RootPtrStmt(layout.tree_id)), offset, types.u8))
        result = emit(ir.AddressStmt(ptr, types.u64))
    elif dynamic:
        dynamic_lists.empty(emit, layout, stmt.indices)
    else:
        _deactivate(emit, stmt.snode, layout, stmt.indices)
    if result is not None:
        transform.replace_in_users(users, stmt, result)
    transform.remove(stmt)


def _deactivate(emit: arith.Emitter, snode, layout, indices: list[ir.Stmt]) -> None:
    level = layout.levels[-1]
    number = arith.cell_number(emit, layout, level, indices)
    ptr, bit = arith.mask_word(emit, layout.tree_id, level, number)
    keep = emit.op("bit_xor", bit, emit.const(0xFFFFFFFF, types.u32))
    old = emit(ir.AtomicOpStmt("bit_and", ptr, keep))
    was_active = emit(
        ir.BinaryOpStmt("ne", emit.op("bit_and", old, bit), emit.const(0, types.u32), types.i32)
    )
    # Only a cell that was active holds anything: clearing an inactive one would commit
    # its (lazily reserved) pages for nothing.
    guard = emit(ir.IfStmt(was_active))
    inner = emit.within(guard.true_block)
    offset = arith.element_offset(inner, layout, indices)
    cell = inner(ir.PtrOffsetStmt(inner(ir.RootPtrStmt(layout.tree_id)), offset, types.u8))
    inner(ir.MemsetZeroStmt(cell, level.cell_size))
    for deeper in snode.sparse_below:
        _clear_descendant_bits(inner, layout.tree_id, level, deeper, indices)


def _clear_descendant_bits(emit, tree_id: int, level, deeper, indices: list[ir.Stmt]) -> None:
    """Clears the bits of every ``deeper`` cell inside the ``level`` cell at ``indices``
    (for a dynamic ``deeper``: empties its lists there)."""
    ratios, origins = [], []
    for a, cells in enumerate(deeper.grid):
        ratio = cells // (level.grid[a] if a < len(level.grid) else 1)
        if deeper.is_dynamic and a == deeper.axes[0]:
            ratio = 1  # one iteration per list
        ratios.append(ratio)
        if a < len(indices):
            origins.append(emit.op("mul", indices[a], emit.const(ratio, types.i32)))
        else:
            origins.append(emit.const(0, types.i32))
    extents = [emit.const(r, types.i32) for r in ratios]
    loop = emit(
        ir.RangeForStmt(
            emit.const(0, types.i32),
            emit.const(math.prod(ratios), types.i32),
            {"serialize": True},
            extents,
            origins,
        )
    )
    body = emit.within(loop.body)
    if deeper.is_dynamic:
        dynamic_lists.reset_lengths(body, tree_id, deeper, loop)
        return
    number: ir.Stmt = body.const(0, types.u32)
    for a, cells in enumerate(deeper.grid):
        coord = body(ir.CastStmt(body(ir.LoopIndexStmt(loop, a, types.i32)), types.u32))
        number = body.op("add", body.op("mul", number, body.const(cells, types.u32)), coord)
    ptr, bit = arith.mask_word(body, tree_id, deeper, number)
    keep = body.op("bit_xor", bit, body.const(0xFFFFFFFF, types.u32))
    body(ir.AtomicOpStmt("bit_and", ptr, keep))
