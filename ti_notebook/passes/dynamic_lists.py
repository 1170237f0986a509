"""IR for the builtins of dynamic SNodes: ``ti.append``, ``ti.length``, emptying a list.

A dynamic level's list is a fixed array of ``capacity`` cells and an ``i32`` length
(``lang/dynamic.py`` says why). ``lower_sparse`` calls these for the ``SNodeOpStmt`` of
a dynamic node; every address comes from the plan (``plan_arith``):

- ``append``: the sparse cells above the list are activated, then
  ``old = atomic_add(length, 1)``; when ``old < capacity`` the values are
  stored at position ``old``, else the length goes back to ``capacity`` (an atomic
  ``min``: concurrent appends to a full list all undo theirs) and, with bounds checks
  on, the launch stops with an error; the result is ``old``, as in Taichi (without
  checks, an append that did not fit sees a value ``>= capacity``);
- ``length``: a load;
- emptying: ``old = atomic_and(length, 0)`` (an exchange), then the cells ``[0, old)``
  are zeroed, so every cell at or past a list's length reads 0.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> ti.root.dynamic(ti.i, 4).place(x)
    <ti.SNode dynamic>
    >>> @ti.kernel
    ... def push(v: ti.i32) -> ti.i32:
    ...     return ti.append(x.parent(), [], v)
    >>> push(7), push(8), x.to_numpy().tolist()
    (0, 1, [7, 8, 0, 0])
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types
from ti_notebook.passes import plan_arith as arith

FULL_LIST = "dynamic_full"  # the AssertStmt kind of an append to a full list


def full_indices(emit: arith.Emitter, level, indices: list[ir.Stmt], position=None) -> list:
    """A list's index plus ``position`` (i32; 0 when None) on the list axis: the index of
    one of its elements."""
    axis = level.axes[0]
    position = position if position is not None else emit.i32(0)
    return [*indices[:axis], position, *indices[axis:]]


def length(emit: arith.Emitter, layout, indices: list[ir.Stmt]) -> ir.Stmt:
    level = layout.levels[-1]
    ptr = arith.length_ptr(emit, layout, level, full_indices(emit, level, indices))
    return emit(ir.GlobalLoadStmt(ptr))


def append(emit: arith.Emitter, stmt: ir.SNodeOpStmt, check: bool) -> ir.Stmt:
    """Appends ``stmt.values`` to its list; returns the old length (i32)."""
    layout = stmt.snode.layout()
    level = layout.levels[-1]
    capacity = emit.i32(level.extents[0])
    first = full_indices(emit, level, stmt.indices)
    # the pointer/bitmasked cells above the list hold it: they become active
    arith.activate(emit, layout, first, [lv for lv in layout.levels if lv.has_bits])
    ptr = arith.length_ptr(emit, layout, level, first)
    old = emit(ir.AtomicOpStmt("add", ptr, emit.i32(1)))
    fits = emit(ir.BinaryOpStmt("lt", old, capacity, types.i32))
    full = emit(ir.IfStmt(fits))
    emit.within(full.false_block)(ir.AtomicOpStmt("min", ptr, capacity))
    if check:
        where = f"{stmt.snode.name} (capacity {level.extents[0]})"
        emit(ir.AssertStmt(fits, f"ti.append to a full list of {where}", [old], FULL_LIST))
    store = emit.within(full.true_block)
    at = full_indices(store, level, stmt.indices, old)
    for field, value in zip(stmt.fields, stmt.values, strict=True):
        offset = arith.element_offset(store, field.layout(), at)
        root = store(ir.RootPtrStmt(layout.tree_id))
        element = store(ir.PtrOffsetStmt(root, offset, field.dtype))
        element.field = field
        store(ir.GlobalStoreStmt(element, value))
    return old


def empty(emit: arith.Emitter, layout, indices: list[ir.Stmt]) -> None:
    """Empties the list at ``indices`` and zeroes the cells it used."""
    level = layout.levels[-1]
    ptr = arith.length_ptr(emit, layout, level, full_indices(emit, level, indices))
    old = emit(ir.AtomicOpStmt("bit_and", ptr, emit.i32(0)))
    loop = emit(ir.RangeForStmt(emit.i32(0), old, {"serialize": True}))
    body = emit.within(loop.body)
    position = body(ir.LoopIndexStmt(loop, 0, types.i32))
    offset = arith.element_offset(body, layout, full_indices(body, level, indices, position))
    cell = body(ir.PtrOffsetStmt(body(ir.RootPtrStmt(layout.tree_id)), offset, types.u8))
    body(ir.MemsetZeroStmt(cell, level.cell_size))


def reset_lengths(body: arith.Emitter, tree_id: int, deeper, loop: ir.Stmt) -> None:
    """In a loop over the lists of dynamic level ``deeper`` inside a deactivated cell
    (axis ``a`` of the loop: the list's coordinate on grid axis ``a``, the list axis
    left at 0): sets that list's length to 0 (its cells were zeroed with the cell)."""
    number: ir.Stmt = body.const(0, types.u32)
    for a, cells in enumerate(deeper.grid):
        if a != deeper.axes[0]:
            coord = body(ir.CastStmt(body(ir.LoopIndexStmt(loop, a, types.i32)), types.u32))
            number = body.op("add", body.op("mul", number, body.const(cells, types.u32)), coord)
    wide = body(ir.CastStmt(number, types.i64))
    byte = body.op("add", body.op("mul", wide, body.const(4)), body.const(deeper.mask_offset))
    ptr = body(ir.PtrOffsetStmt(body(ir.RootPtrStmt(tree_id)), byte, types.i32))
    body(ir.GlobalStoreStmt(ptr, body.i32(0)))
