"""Block-local storage: ``ti.block_local(a)`` caches ``a`` per dense block of a struct-for.

The struct-for must run over a field whose last level is ``dense`` under a block level
(``ti.root.pointer(ti.ij, 32).dense(ti.ij, 4)``): each cell of the block level is one
block. From the index expressions of every access to a cached field (``loop index +
constant``, also ``+ k`` for a ``k`` of a constant-range inner loop) the pass infers the
range each block touches per axis, then rewrites the loop to run per block:

    for I in x:                       for B in block_node:          (parallel over blocks)
        ti.block_local(a)                 buf = stack array of the range's shape
        ... a[I + d] ...          →       buf[u] = a[B*blk + lo + u]   (prologue; 0 outside)
                                          for I in B's cells:       (serial)
                                              ... buf[I + d - B*blk - lo] ...
                                          a[...] += buf[...]        (epilogue, accumulations)

Cached fields may be read, or accumulated into with atomic adds (the epilogue adds the
buffer back, skipping zeros so untouched sparse cells stay inactive); not both, and not
assigned. An access the analysis cannot place raises :class:`TiSyntaxError` at its line:
a silent fallback would hide that the optimisation the user asked for is off. On the
CPU the buffer is a per-task stack array, and one thread runs a block, so atomic adds
into it become plain ones; a GPU backend maps it to shared memory, where a block's
threads add at once, so they stay atomic, and runs the loops the pass makes
(``RangeForStmt.block_role``) strided over the block's threads.
"""

from __future__ import annotations

import math

from ti_notebook.errors import TiSyntaxError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import plan_arith as arith
from ti_notebook.passes.demote_atomics import to_plain


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    changed = False
    for loop in [s for s in kernel.block.walk() if isinstance(s, ir.StructForStmt)]:
        markers = [s for s in loop.body.stmts if isinstance(s, ir.BlockLocalStmt)]
        if not markers:
            continue
        fields = []
        for marker in markers:
            fields.extend(f for f in marker.fields if f not in fields)
            loop.body.stmts.remove(marker)
        changed = True
        if options.make_block_local:
            _apply(kernel, loop, fields, markers[0].pos, capabilities)
    return changed


# -- analysis -----------------------------------------------------------------------------
def _offset_range(stmt: ir.Stmt, loop: ir.Stmt, axis: int):
    """(uses loop index ``axis``, lo, hi) of an index expression, or None if unknown."""
    if isinstance(stmt, ir.ConstStmt) and not stmt.dtype.is_float:
        return 0, stmt.value, stmt.value
    if isinstance(stmt, ir.CastStmt) and not stmt.bitcast and not stmt.dtype.is_float:
        return _offset_range(stmt.operand, loop, axis)
    if isinstance(stmt, ir.LoopIndexStmt):
        if stmt.loop is loop:
            return (1, 0, 0) if stmt.axis == axis else None
        return _inner_loop_range(stmt)
    if isinstance(stmt, ir.BinaryOpStmt) and stmt.op in ("add", "sub"):
        a = _offset_range(stmt.lhs, loop, axis)
        b = _offset_range(stmt.rhs, loop, axis)
        if a is None or b is None:
            return None
        if stmt.op == "add":
            return a[0] + b[0], a[1] + b[1], a[2] + b[2]
        if b[0]:
            return None
        return a[0], a[1] - b[2], a[2] - b[1]
    return None


def _inner_loop_range(index: ir.LoopIndexStmt):
    inner = index.loop
    if not isinstance(inner, ir.RangeForStmt):
        return None
    if inner.extents:
        start, extent = inner.starts[index.axis], inner.extents[index.axis]
        if isinstance(start, ir.ConstStmt) and isinstance(extent, ir.ConstStmt):
            if extent.value <= 0:
                return None
            return 0, start.value, start.value + extent.value - 1
        return None
    if isinstance(inner.begin, ir.ConstStmt) and isinstance(inner.end, ir.ConstStmt):
        if inner.end.value <= inner.begin.value:
            return None
        return 0, inner.begin.value, inner.end.value - 1
    return None


def _error(stmt: ir.Stmt, message: str, hint: str) -> TiSyntaxError:
    return TiSyntaxError(f"ti.block_local: {message}", stmt.pos, hint)


def _accesses(loop: ir.StructForStmt, field, ndim: int) -> dict:
    """Every access to ``field`` in the loop: pointer → (kind, per-axis (lo, hi))."""
    users = transform.users_of(loop.body.walk())
    uses = transform.use_counts(loop.body)
    found = {}
    for ptr in loop.body.walk():
        if not (isinstance(ptr, ir.GlobalPtrStmt) and ptr.field == field):
            continue
        ranges = []
        for axis, index in enumerate(ptr.indices):
            found_range = _offset_range(index, loop, axis)
            if found_range is None or found_range[0] != 1:
                raise _error(
                    ptr,
                    f"cannot tell which cells of '{field.name}' axis {axis} this reads",
                    "index cached fields as loop index + constant, e.g. a[i - 1, j + 2]",
                )
            ranges.append(found_range[1:])
        kinds = set()
        for user in users.get(ptr.id, []):
            if isinstance(user, ir.GlobalLoadStmt):
                kinds.add("read")
            elif isinstance(user, ir.AtomicOpStmt) and user.op in ("add", "sub"):
                if uses[user.id]:
                    raise _error(user, "the old value of a cached atomic add is not kept", "")
                kinds.add("accumulate")
            else:
                raise _error(
                    user,
                    f"'{field.name}' is cached, so it can only be read or atomically added to",
                    "remove it from ti.block_local(...) or accumulate with +=",
                )
        found[ptr] = (kinds, ranges)
    return found


# -- rewriting ----------------------------------------------------------------------------
def _apply(kernel: KernelIR, loop: ir.StructForStmt, fields: list, pos, capabilities) -> None:
    field = loop.field
    layout = field.layout()
    leaf = layout.levels[-1]
    if leaf.kind != "dense" or len(layout.levels) < 2:
        raise TiSyntaxError(
            f"ti.block_local: '{field.name}' has no blocks to cache (its last level must "
            "be dense under a block level)",
            pos,
            "declare it in blocks, e.g. ti.root.pointer(ti.ij, 32).dense(ti.ij, 4)",
        )
    ndim = len(layout.shape)
    block = [1] * ndim
    for a, extent in zip(leaf.axes, leaf.extents, strict=True):
        block[a] *= extent
    block_node = field.parent(2)
    plans = []
    for cached in fields:
        if cached.ndim != ndim:
            raise TiSyntaxError(
                f"ti.block_local: '{cached.name}' is {cached.ndim}-D, the loop is {ndim}-D",
                pos,
                "cache fields with the loop's dimensionality",
            )
        plans.append(_plan(loop, cached, block, pos))

    parent = loop.parent
    outer = ir.StructForStmt(block_node, loop.config)
    outer.pos = loop.pos
    parent.stmts[parent.stmts.index(loop)] = outer
    outer.parent = parent
    emit = arith.BlockEmitter(outer.body, pos)
    node_index = [emit(ir.LoopIndexStmt(outer, a, types.i32)) for a in range(block_node.ndim)]
    base = [
        emit.op("mul", node_index[a], emit.i32(block[a])) if a < len(node_index) else emit.i32(0)
        for a in range(ndim)
    ]
    for plan in plans:
        plan["array"] = emit(ir.LocalArrayStmt(plan["field"].dtype, plan["count"]))
        plan["origin"] = [emit.op("add", base[a], emit.i32(plan["lo"][a])) for a in range(ndim)]
        if plan["mode"] == "read":
            _fill(emit, plan)
        else:
            emit(ir.MemsetZeroStmt(plan["array"], plan["count"] * plan["field"].dtype.size))
    inner = emit(
        ir.RangeForStmt(
            emit.i32(0),
            emit.i32(math.prod(block)),
            {"serialize": True},
            [emit.i32(e) for e in block],
            base,
        )
    )
    inner.block_role = "cells"
    for stmt in list(loop.body.stmts):
        inner.body.append(stmt)
    for stmt in inner.body.walk():
        if isinstance(stmt, ir.LoopIndexStmt) and stmt.loop is loop:
            stmt.loop = inner
    for plan in plans:
        # a buffer in shared memory is added into by the block's threads at once
        shared = capabilities is not None and capabilities.shared_memory_per_block > 0
        _redirect(plan, keep_atomics=shared)
        if plan["mode"] == "accumulate":
            _write_back(emit, plan)
        kernel.report["block_local"].append(_report(plan, block, kernel))


def _plan(loop, cached, block: list[int], pos) -> dict:
    accesses = _accesses(loop, cached, len(block))
    if not accesses:
        raise TiSyntaxError(
            f"ti.block_local: '{cached.name}' is not used in this loop", pos, "remove it"
        )
    kinds = set().union(*(k for k, _ in accesses.values()))
    if len(kinds) > 1:
        raise TiSyntaxError(
            f"ti.block_local: '{cached.name}' is both read and accumulated into here",
            pos,
            "cache only the field you read, or only the one you accumulate into",
        )
    ndim = len(block)
    lo = [min(r[a][0] for _, r in accesses.values()) for a in range(ndim)]
    hi = [max(r[a][1] for _, r in accesses.values()) for a in range(ndim)]
    shape = [block[a] + hi[a] - lo[a] for a in range(ndim)]
    return {
        "field": cached,
        "mode": kinds.pop(),
        "accesses": accesses,
        "lo": lo,
        "hi": hi,
        "shape": shape,
        "count": math.prod(shape),
    }


def _buffer_ptr(emit: arith.Emitter, plan: dict, indices: list[ir.Stmt]) -> ir.Stmt:
    """Address of buffer cell ``indices - origin`` (row-major)."""
    flat = None
    for a, index in enumerate(indices):
        local = emit.op("sub", index, plan["origin"][a])
        flat = (
            local
            if flat is None
            else emit.op("add", emit.op("mul", flat, emit.i32(plan["shape"][a])), local)
        )
    wide = emit(ir.CastStmt(flat, types.i64))
    size = emit(ir.ConstStmt(plan["field"].dtype.size, types.i64))
    return emit(ir.PtrOffsetStmt(plan["array"], emit.op("mul", wide, size), plan["field"].dtype))


def _in_field(emit: arith.Emitter, field, indices: list[ir.Stmt]) -> ir.Stmt:
    ok = None
    for index, extent in zip(indices, field.shape, strict=True):
        low = emit.op("ge", index, emit.i32(0), types.i32)
        high = emit.op("lt", index, emit.i32(extent), types.i32)
        both = emit.op("logical_and", low, high, types.i32)
        ok = both if ok is None else emit.op("logical_and", ok, both, types.i32)
    return ok


def _buffer_loop(emit: arith.Emitter, plan: dict, role: str) -> tuple[arith.Emitter, list[ir.Stmt]]:
    """A serial loop over the buffer's cells; (builder in its body, global indices)."""
    loop = emit(
        ir.RangeForStmt(
            emit.i32(0),
            emit.i32(plan["count"]),
            {"serialize": True},
            [emit.i32(e) for e in plan["shape"]],
            plan["origin"],
        )
    )
    loop.block_role = role
    body = emit.within(loop.body)
    return body, [body(ir.LoopIndexStmt(loop, a, types.i32)) for a in range(len(plan["shape"]))]


def _fill(emit: arith.Emitter, plan: dict) -> None:
    """Prologue: the buffer gets the field's values (0 outside the field)."""
    field = plan["field"]
    body, indices = _buffer_loop(emit, plan, "fill")
    slot = _buffer_ptr(body, plan, indices)
    body(ir.GlobalStoreStmt(slot, body(ir.ConstStmt(0, field.dtype))))
    inside = body(ir.IfStmt(_in_field(body, field, indices)))
    then = body.within(inside.true_block)
    value = then(ir.GlobalLoadStmt(then(ir.GlobalPtrStmt(field, indices))))
    then(ir.GlobalStoreStmt(slot, value))


def _write_back(emit: arith.Emitter, plan: dict) -> None:
    """Epilogue: atomically add the buffer's non-zero cells to the field."""
    field = plan["field"]
    body, indices = _buffer_loop(emit, plan, "write_back")
    value = body(ir.GlobalLoadStmt(_buffer_ptr(body, plan, indices)))
    nonzero = body.op("ne", value, body(ir.ConstStmt(0, field.dtype)), types.i32)
    cond = body.op("logical_and", _in_field(body, field, indices), nonzero, types.i32)
    then = body.within(body(ir.IfStmt(cond)).true_block)
    then(ir.AtomicOpStmt("add", then(ir.GlobalPtrStmt(field, indices)), value))


def _redirect(plan: dict, keep_atomics: bool) -> None:
    """Accesses to the field become accesses to the buffer (its atomics plain ones, but
    where ``keep_atomics``: threads sharing the buffer)."""
    for ptr in plan["accesses"]:
        slot = _buffer_ptr(arith.Emitter(ptr), plan, ptr.indices)
        transform.replace_uses(ptr.parent, ptr, slot)
        for user in list(ptr.parent.stmts):
            if isinstance(user, ir.AtomicOpStmt) and user.dest is slot and not keep_atomics:
                to_plain(user, ptr.parent)
        ptr.parent.stmts.remove(ptr)


def _shifted(name: str, offset: int) -> str:
    return f"{name} {'+' if offset > 0 else '-'} {abs(offset)}" if offset else name


def _report(plan: dict, block: list[int], kernel: KernelIR) -> dict:
    """What the report (and the BLS widget) shows: ranges relative to a block's corner."""
    corner = "IJKL"[: len(block)]
    lo, hi = plan["lo"], [plan["hi"][a] + block[a] for a in range(len(block))]
    ranges = [
        f"[{_shifted(corner[a], lo[a])}, {_shifted(corner[a], hi[a])})" for a in range(len(block))
    ]
    local = [f"u{a}" for a in range(len(block))]
    source = [f"{_shifted(corner[a], lo[a])} + {local[a]}" for a in range(len(block))]
    return {
        "field": plan["field"].name,
        "mode": plan["mode"],
        "block_shape": tuple(block),
        "ranges": [(lo[a], hi[a]) for a in range(len(block))],
        "range_text": " x ".join(ranges),
        "buffer_shape": tuple(plan["shape"]),
        "bytes": plan["count"] * plan["field"].dtype.size,
        "mapping": f"buffer[{', '.join(local)}] = {plan['field'].name}[{', '.join(source)}]",
        "corner": f"({', '.join(corner)}) is the first cell of each block",
    }
