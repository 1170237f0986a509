"""Run a parallel loop's iterations in memory order when its inner loop strides memory.

``for i in range(K): for j in range(K): a[i, j] += 1`` over a *column-major* ``a``
walks ``a`` with a stride of ``4 K`` bytes in the inner loop: every access touches a new
cache line and, at 16 KiB strides, a new page (a TLB miss each). Neighbouring ``i`` are
neighbours in memory, though, and the parallel loop's iterations may run in any
interleaving. So on a CPU the task runs strips of ``STRIP`` consecutive ``i`` and, per
strip, swaps the loops: ``for j: for i in strip:``; the inner loop is now contiguous
(and vectorises). Each iteration still runs its own statements in its own order.

    for i in range(K):              for strip in range(K // STRIP):       (parallel)
        for j in range(K):     →        for j in range(K):
            body(i, j)                      for i in strip's range: body(i, j)

When it applies: a CPU ``range_for`` task with constant bounds and one axis, whose body
is pure index arithmetic and one serial loop whose bounds do not depend on ``i``; that
loop leaves no iteration early, prints nothing, and its accesses favour ``i``: some move
by at most one element per ``i`` and a cache line or more per ``j``, none the other way
round (the field's byte strides, ``FieldLayout.strides``; an ndarray is row-major).
The same idea for ``for i, j in ti.ndrange(M, N)`` over a column-major field: the flat
index splits with ``i`` fastest instead of ``j`` (the task's two axes swap roles).

``ti.init(advanced_optimization=False)`` turns it off.
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.ir.stmt import owned_block
from ti_notebook.passes.demote_atomics import loop_axis_of
from ti_notebook.passes.plan_arith import BlockEmitter, Emitter

STRIP = 256  # iterations per strip: 1 KiB of f32 per page, 16 cache lines
CACHE_LINE = 64
_PURE = (ir.ConstStmt, ir.BinaryOpStmt, ir.UnaryOpStmt, ir.CastStmt, ir.SelectStmt, ir.ArgLoadStmt)
_LOCALS = (ir.AllocaStmt, ir.LocalStoreStmt, ir.LocalLoadStmt)
_LEAVES = (ir.BreakStmt, ir.ContinueStmt, ir.ReturnStmt, ir.PrintStmt, ir.AssertStmt)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.advanced_optimization or capabilities.tasks_are_kernels:
        return False
    changed = False
    entries = kernel.report.get("tasks") or []
    tasks = kernel.tasks()
    for n, task in enumerate(tasks):
        order = None
        if _swap_ndrange_axes(task):
            order = ["axes"]
        else:
            shape = _candidate(task)
            if shape is not None and _favours_outer(task, shape[2]):
                _strip_and_swap(task, *shape)
                order = ["strips", STRIP]
        if order is not None:
            changed = True
            if len(entries) == len(tasks):  # the report's order, for the layout view
                entries[n]["interchange"] = order
    return changed


def _swap_ndrange_axes(task: ir.OffloadedStmt) -> bool:
    """A 2-D ``ti.ndrange`` task whose accesses are contiguous along its first axis, not
    its last (a column-major field in a row-major loop), runs with the axes' roles
    swapped: the flat index splits with the first axis fastest."""
    if task.kind != "range_for" or task.config.get("serialize") or len(task.extents) != 2:
        return False
    loop = task.loop
    if not isinstance(loop, ir.RangeForStmt) or len(loop.extents) != 2:
        return False
    if any(isinstance(s, _LEAVES[:3]) for s in task.body.walk()):
        return False
    better = worse = 0
    for ptr in task.body.walk():
        if not isinstance(ptr, (ir.GlobalPtrStmt, ir.ExternalPtrStmt)):
            continue
        strides, size = _strides(ptr), ptr.dtype.bits // 8
        if strides is None:
            continue
        along = [0, 0]
        for index, stride in zip(ptr.indices, strides, strict=True):
            axis = loop_axis_of(index, loop)
            if axis is not None:
                along[axis[0]] += CACHE_LINE if stride is None else abs(stride)
        if along[0] and along[0] <= size and along[1] >= CACHE_LINE:
            better += 1
        elif along[1] and along[1] <= size and along[0] >= CACHE_LINE:
            worse += 1
    if not better or worse:
        return False
    for owner in (task, loop):
        owner.extents.reverse()
        owner.starts.reverse()
    for stmt in task.walk_all():
        if isinstance(stmt, ir.LoopIndexStmt) and stmt.loop is loop:
            stmt.axis = 1 - stmt.axis
    return True


def _const(value) -> int | None:
    if isinstance(value, int):
        return value
    return value.value if isinstance(value, ir.ConstStmt) else None


def _candidate(task: ir.OffloadedStmt) -> tuple[int, int, ir.RangeForStmt] | None:
    """(begin, end, inner loop) when ``task`` has the shape this pass rewrites."""
    if task.kind != "range_for" or task.config.get("serialize") or len(task.extents) > 1:
        return None
    if task.epilogue.stmts or task.row_head.stmts:
        return None
    if not all(isinstance(stmt, _PURE) for stmt in task.prologue.stmts):  # values of arguments
        return None
    begin, end = _const(task.begin), _const(task.end)
    if begin is None or end is None or end - begin < 2 * STRIP:
        return None
    loops = [s for s in task.body.stmts if isinstance(s, ir.RangeForStmt)]
    if len(loops) != 1 or task.body.stmts[-1] is not loops[0]:
        return None
    inner = loops[0]
    if inner.block_role is not None or inner.extents:
        return None
    if _depends_on_index(inner.begin, task) or _depends_on_index(inner.end, task):
        return None
    head = task.body.stmts[:-1]
    kept = _needed_by(inner, head)
    if not all(isinstance(stmt, _PURE) for stmt in kept):
        return None
    for stmt in head:
        if isinstance(stmt, ir.LoopIndexStmt) and stmt.loop is not task.loop:
            return None
        if not isinstance(stmt, (*_PURE, *_LOCALS, ir.LoopIndexStmt)):
            return None
    # a local of the iteration that the inner loop changes carries a value from one j to
    # the next of the same i: with the loops swapped, each i would need its own copy
    changed_inside = set()
    for stmt in inner.walk_all():
        if isinstance(stmt, ir.LocalStoreStmt):
            changed_inside.add(stmt.alloca.id)
        elif isinstance(stmt, ir.AtomicOpStmt):  # `s += j` on a local
            changed_inside.add(stmt.dest.id)
    if any(isinstance(s, ir.AllocaStmt) and s.id in changed_inside for s in head):
        return None
    for stmt in inner.walk_all():
        if isinstance(stmt, _LEAVES) or isinstance(stmt, ir.LoopIndexStmt) and stmt.axis:
            return None
    return begin, end, inner


def _needed_by(inner: ir.RangeForStmt, head: list[ir.Stmt]) -> list[ir.Stmt]:
    """The statements of ``head`` that the inner loop's bounds are computed from."""
    ids = {stmt.id for stmt in head}
    needed: dict[int, ir.Stmt] = {}
    todo = [inner.begin, inner.end]
    while todo:
        value = todo.pop()
        if value.id in ids and value.id not in needed:
            needed[value.id] = value
            todo.extend(value.operands())
    return [stmt for stmt in head if stmt.id in needed]


def _depends_on_index(value: ir.Stmt, task: ir.OffloadedStmt) -> bool:
    if isinstance(value, ir.LoopIndexStmt):
        return value.loop is task.loop
    return any(_depends_on_index(operand, task) for operand in value.operands())


def _strides(ptr: ir.Stmt) -> list[int | None] | None:
    """Byte stride of each index position of ``ptr``; None: unknown (then no opinion)."""
    if isinstance(ptr, ir.GlobalPtrStmt):
        layout = ptr.field.layout()
        return None if layout.is_sparse else layout.strides
    if isinstance(ptr, ir.ExternalPtrStmt):  # row-major: the last axis is contiguous
        size = ptr.dtype.bits // 8
        return [None] * (len(ptr.indices) - 1) + [size]
    return None


def _favours_outer(task: ir.OffloadedStmt, inner: ir.RangeForStmt) -> bool:
    better = worse = 0
    for ptr in inner.walk_all():
        strides = _strides(ptr) if isinstance(ptr, (ir.GlobalPtrStmt, ir.ExternalPtrStmt)) else None
        if strides is None:
            continue
        size = ptr.dtype.bits // 8
        outer = step = 0
        for index, stride in zip(ptr.indices, strides, strict=True):
            unknown = CACHE_LINE if stride is None else abs(stride)
            if loop_axis_of(index, task.loop) is not None:
                outer += unknown
            elif loop_axis_of(index, inner) is not None:
                step += unknown
        if outer and outer <= size and step >= CACHE_LINE:
            better += 1
        elif step and step <= size and outer >= CACHE_LINE:
            worse += 1
    return better > 0 and worse == 0


def _strip_and_swap(task: ir.OffloadedStmt, begin: int, end: int, inner: ir.RangeForStmt):
    pos = inner.pos
    head = task.body.stmts[:-1]
    kept = {stmt.id for stmt in _needed_by(inner, head)}
    moved = [s for s in head if s.id not in kept and not isinstance(s, ir.LoopIndexStmt)]
    strip_index = ir.LoopIndexStmt(task.loop, 0, types.i32)
    task.body.insert(0, strip_index).pos = pos
    emit = Emitter(inner)
    first = emit.op("add", emit.op("mul", strip_index, emit.i32(STRIP)), emit.i32(begin))
    count = emit.op("min", emit.i32(STRIP), emit.op("sub", emit.i32(end), first))
    for op in (first, count, first.lhs):
        op.no_wrap = True
    task.begin, task.end = 0, -(-(end - begin) // STRIP)
    # the analyses after this one (prove_bounds) read the strip index's range there
    task.loop.begin = ir.ConstStmt(task.begin, types.i32)
    task.loop.end = ir.ConstStmt(task.end, types.i32)
    if task.config.get("block_dim"):
        task.config["block_dim"] = max(1, -(-int(task.config["block_dim"]) // STRIP))

    lanes = ir.RangeForStmt(_zero(inner, pos), count)
    lanes.pos = pos
    body = inner.body
    inner.body = owned_block(inner)
    inner.body.append(lanes)
    put = BlockEmitter(lanes.body, pos)
    lane = put(ir.LoopIndexStmt(lanes, 0, types.i32))
    index = put(ir.BinaryOpStmt("add", first, lane, types.i32))
    index.no_wrap = True
    for stmt in moved:
        transform.remove(stmt)
        lanes.body.append(stmt)
    for stmt in list(body.stmts):
        lanes.body.append(stmt)
    indices = [s for s in head if isinstance(s, ir.LoopIndexStmt)]
    transform.replace_all_uses(lanes.body, {stmt.id: index for stmt in indices})
    transform.remove_all(indices)


def _zero(anchor: ir.Stmt, pos) -> ir.Stmt:
    zero = transform.insert_before(anchor, ir.ConstStmt(0, types.i32))
    zero.pos = pos
    return zero
