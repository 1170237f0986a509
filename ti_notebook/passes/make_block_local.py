"""Block-local storage: ``ti.block_local(a)`` caches ``a`` per dense block of a struct-for.

The struct-for must run over a field whose last level is ``dense`` under a block level
(``ti.root.pointer(ti.ij, 32).dense(ti.ij, 4)``): each cell of the block level is one
block. From the index expressions of every access to a cached field (``loop index +
constant``, also ``+ k`` for a ``k`` of a constant-range inner loop) the pass infers the
range each block touches per axis, and, for the report, the exact offsets read and the
reads per iteration (the BLS widget's reuse figures), then rewrites the loop to run per
block:

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

import itertools
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
# An index expression as an affine form: (coefficient of the loop's own index on this
# axis, constant, {(inner loop, axis): coefficient}). Keeping the inner loops' indices
# apart, rather than just their range, is what lets the report list the exact offsets
# an iteration reads (``a[i + k, j + k]`` reads the diagonal, not the whole square).
_Affine = tuple[int, int, dict]


def _affine(stmt: ir.Stmt, loop: ir.Stmt, axis: int) -> _Affine | None:
    """The affine form of an index expression of axis ``axis``, or None if unknown."""
    if isinstance(stmt, ir.ConstStmt) and not stmt.dtype.is_float:
        return 0, stmt.value, {}
    if isinstance(stmt, ir.CastStmt) and not stmt.bitcast and not stmt.dtype.is_float:
        return _affine(stmt.operand, loop, axis)
    if isinstance(stmt, ir.LoopIndexStmt):
        if stmt.loop is loop:
            return (1, 0, {}) if stmt.axis == axis else None
        if _inner_values(stmt.loop, stmt.axis) is None:
            return None
        return 0, 0, {(stmt.loop, stmt.axis): 1}
    if isinstance(stmt, ir.BinaryOpStmt) and stmt.op in ("add", "sub"):
        a = _affine(stmt.lhs, loop, axis)
        b = _affine(stmt.rhs, loop, axis)
        if a is None or b is None:
            return None
        sign = 1 if stmt.op == "add" else -1
        terms = dict(a[2])
        for key, coefficient in b[2].items():
            terms[key] = terms.get(key, 0) + sign * coefficient
        return a[0] + sign * b[0], a[1] + sign * b[1], {k: c for k, c in terms.items() if c}
    return None


def _inner_values(inner: ir.Stmt, axis: int) -> range | None:
    """The values index ``axis`` of an inner constant-range loop takes, or None."""
    if not isinstance(inner, ir.RangeForStmt):
        return None
    if inner.extents:
        start, extent = inner.starts[axis], inner.extents[axis]
        if isinstance(start, ir.ConstStmt) and isinstance(extent, ir.ConstStmt):
            values = range(start.value, start.value + extent.value)
            return values or None
        return None
    if isinstance(inner.begin, ir.ConstStmt) and isinstance(inner.end, ir.ConstStmt):
        return range(inner.begin.value, inner.end.value) or None
    return None


def _bounds(form: _Affine) -> tuple[int, int]:
    """The lowest and highest offset an affine form takes."""
    lo = hi = form[1]
    for (inner, axis), coefficient in form[2].items():
        values = _inner_values(inner, axis)
        ends = (coefficient * values[0], coefficient * values[-1])
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi


# enumerating the inner loops' values gives the exact offsets; past this many per access
# the report keeps only the box (the widget then says "may read")
MAX_OFFSETS = 4096


def _offsets(forms: list[_Affine]) -> set[tuple[int, ...]] | None:
    """Every offset vector one access reads over its inner loops, or None if too many."""
    keys = sorted({key for form in forms for key in form[2]}, key=lambda k: (k[0].id, k[1]))
    choices = [_inner_values(inner, axis) for inner, axis in keys]
    if math.prod(len(c) for c in choices) > MAX_OFFSETS:
        return None
    found = set()
    for values in itertools.product(*choices):
        at = dict(zip(keys, values, strict=True))
        found.add(tuple(f[1] + sum(c * at[k] for k, c in f[2].items()) for f in forms))
    return found


def _executions(stmt: ir.Stmt, loop: ir.Stmt) -> int | None:
    """How often ``stmt`` runs per iteration of ``loop``: the product of the enclosing
    constant-range loops' trip counts (a branch counts as taken; None: not constant)."""
    count = 1
    owner = stmt.parent.owner
    while owner is not None and owner is not loop:
        if isinstance(owner, ir.RangeForStmt):
            values = [_inner_values(owner, a) for a in range(max(len(owner.extents), 1))]
            if any(v is None for v in values):
                return None
            count *= math.prod(len(v) for v in values)
        elif isinstance(owner, ir.WhileStmt | ir.StructForStmt):
            return None
        owner = owner.parent.owner
    return count


def _error(stmt: ir.Stmt, message: str, hint: str) -> TiSyntaxError:
    return TiSyntaxError(f"ti.block_local: {message}", stmt.pos, hint)


def _accesses(loop: ir.StructForStmt, field, ndim: int) -> dict:
    """Every access to ``field`` in the loop: pointer → (kinds, per-axis (lo, hi),
    offset vectors it reads or None, reads or adds per iteration or None)."""
    users = transform.users_of(loop.body.walk())
    uses = transform.use_counts(loop.body)
    found = {}
    for ptr in loop.body.walk():
        if not (isinstance(ptr, ir.GlobalPtrStmt) and ptr.field == field):
            continue
        forms = []
        for axis, index in enumerate(ptr.indices):
            form = _affine(index, loop, axis)
            if form is None or form[0] != 1:
                raise _error(
                    ptr,
                    f"cannot tell which cells of '{field.name}' axis {axis} this reads",
                    "index cached fields as loop index + constant, e.g. a[i - 1, j + 2]",
                )
            forms.append(form)
        kinds = set()
        count: int | None = 0
        for user in users.get(ptr.id, []):
            runs = _executions(user, loop)
            count = None if count is None or runs is None else count + runs
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
        found[ptr] = (kinds, [_bounds(f) for f in forms], _offsets(forms), count)
    return found


# -- rewriting ----------------------------------------------------------------------------
def _apply(kernel: KernelIR, loop: ir.StructForStmt, fields: list, pos, capabilities) -> None:
    field = loop.field
    layout = field.layout()
    leaf = layout.levels[-1]
    if leaf.kind != "dense" or len(layout.levels) < 2:
        # the user named the cached fields; the blocks come from the loop's field
        cached = ", ".join(f"'{f.name}'" for f in fields)
        axes = "ijkl"[: len(layout.shape)]
        raise TiSyntaxError(
            f"ti.block_local: cannot cache {cached} per block: the loop runs over "
            f"'{field.name}', which has no blocks (its last level must be dense under a "
            "block level)",
            pos,
            f"loop over a field declared in blocks, e.g. ti.root.pointer(ti.{axes}, 32)"
            f".dense(ti.{axes}, 4).place({field.name})",
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
    kinds = set().union(*(a[0] for a in accesses.values()))
    if len(kinds) > 1:
        raise TiSyntaxError(
            f"ti.block_local: '{cached.name}' is both read and accumulated into here",
            pos,
            "cache only the field you read, or only the one you accumulate into",
        )
    ndim = len(block)
    lo = [min(r[a][0] for _, r, _, _ in accesses.values()) for a in range(ndim)]
    hi = [max(r[a][1] for _, r, _, _ in accesses.values()) for a in range(ndim)]
    shape = [block[a] + hi[a] - lo[a] for a in range(ndim)]
    # what the widget's reuse figures count: the distinct offsets read (empty when an
    # access has too many to list) and the reads or adds per iteration, repeats included
    # (None when a loop around an access has no constant trip count)
    found = [offsets for _, _, offsets, _ in accesses.values()]
    counts = [count for *_, count in accesses.values()]
    return {
        "offsets": [] if None in found else sorted(set().union(*found)),
        "per_iteration": None if None in counts else sum(counts),
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
    # one walk per block holding accesses, for all of them (not one per access)
    new_for: dict[int, ir.Stmt] = {}
    slots: dict[int, tuple[ir.Block, set[int]]] = {}  # block -> the slots made there
    for ptr in plan["accesses"]:
        slot = new_for[ptr.id] = _buffer_ptr(arith.Emitter(ptr), plan, ptr.indices)
        slots.setdefault(id(ptr.parent), (ptr.parent, set()))[1].add(slot.id)
    for block, _ in slots.values():
        transform.replace_all_uses(block, new_for)
    transform.remove_all(plan["accesses"])
    if keep_atomics:
        return
    for block, mine in slots.values():
        plain: dict[int, ir.Stmt] = {}
        for user in list(block.stmts):
            if isinstance(user, ir.AtomicOpStmt) and user.dest.id in mine:
                to_plain(user, block, plain)
        transform.replace_all_uses(block, plain)


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
        "offsets": [tuple(o) for o in plan["offsets"]],
        "accesses": plan["per_iteration"],
    }
