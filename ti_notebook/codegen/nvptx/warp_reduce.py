"""Thread-local reductions on NVPTX: warp shuffle trees, then one atomic per block.

``passes/make_thread_local.py`` leaves a parallel task with an accumulator per thread
and, in the task's epilogue, one atomic of the accumulated value into the destination.
On a GPU every thread runs that epilogue, so 32 threads of a warp would each do an
atomic. When the block size is a multiple of 32 (every warp is full), the epilogue
combines the warp's values first, as Taichi and CUDA's reduction samples do:

    v = op(v, shfl.sync.down(v, 16)); ... 8, 4, 2, 1     # lane 0 holds the warp's total
    if lane == 0: atomic op(dest, v)

With more than one warp per block (and no block-local storage using the shared memory),
the warps' totals then meet in a 32-slot ``__shared__`` array: lane 0 of each warp
writes its slot, a barrier, every warp shuffles the slots (lanes past the block's warp
count take the identity: 0, or slot 0 for min/max), and thread 0 alone does the atomic.
One atomic per block instead of per warp matters on a GPU: same-address atomics
serialise, and a saturating grid of 128-thread blocks made 4x as many of them.

``llvm.nvvm.shfl.sync.down`` moves 32 bits (f32 or i32; mask -1 = all lanes, clamp 31);
wider values move as two 32-bit halves, narrower ones widened. A task with asserts keeps
one atomic per thread: a thread that failed an assert has left, and a shuffle with a
lane gone is undefined. The functions take the task's emitter ``e`` (``emitter.py``).

    >>> SHUFFLE_OFFSETS
    (16, 8, 4, 2, 1)
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import I32, I64, llvm_type
from ti_notebook.codegen.nvptx.shared_memory import barrier, static_array
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types
from ti_notebook.ir.devices import WARP_SIZE

SHUFFLE_OFFSETS = (16, 8, 4, 2, 1)
WARP = WARP_SIZE


def is_reduction_atomic(stmt: ir.Stmt, task: ir.OffloadedStmt) -> bool:
    """True for the atomic that ``make_thread_local`` put in ``task``'s epilogue."""
    return (
        isinstance(stmt, ir.AtomicOpStmt)
        and stmt.parent is task.epilogue
        and stmt.op in ("add", "min", "max")
        and isinstance(stmt.value, ir.LocalLoadStmt)
        and stmt.value.alloca.parent is task.prologue
    )


def shuffle_down(e: FunctionEmitter, value: ll.Value, offset: int, dtype: types.DataType):
    """Lane ``lane + offset``'s ``value`` (its own when that lane is past 31)."""
    b = e.b
    if dtype is types.f32 or (not dtype.is_float and dtype.bits == 32):
        return _shuffle32(e, value)(offset)
    bits = ll.IntType(dtype.bits)
    raw = b.bitcast(value, bits) if dtype.is_float else value
    if dtype.bits < 32:
        moved = b.trunc(_shuffle32(e, b.zext(raw, I32))(offset), bits)
    else:  # 64 bits: each half on its own
        low = _shuffle32(e, b.trunc(raw, I32))(offset)
        high_bits = b.trunc(b.lshr(raw, ll.Constant(I64, 32)), I32)
        high = _shuffle32(e, high_bits)(offset)
        moved = b.or_(b.shl(b.zext(high, I64), ll.Constant(I64, 32)), b.zext(low, I64))
    return b.bitcast(moved, llvm_type(dtype)) if dtype.is_float else moved


def _shuffle32(e: FunctionEmitter, value: ll.Value):
    suffix = "f32" if isinstance(value.type, ll.FloatType) else "i32"
    name = f"llvm.nvvm.shfl.sync.down.{suffix}"
    fn = e.declare(name, value.type, [I32, value.type, I32, I32])
    everyone, clamp = ll.Constant(I32, -1), ll.Constant(I32, WARP - 1)
    return lambda offset: e.b.call(fn, [everyone, value, ll.Constant(I32, offset), clamp])


def warp_reduce(e: FunctionEmitter, op: str, value: ll.Value, dtype: types.DataType):
    """The warp's ``op``-combination of ``value``, valid in lane 0."""
    for offset in SHUFFLE_OFFSETS:
        value = e.arith.binary(op, value, shuffle_down(e, value, offset, dtype), dtype)
    return value


def reduce_then_atomic(e: FunctionEmitter, s: ir.AtomicOpStmt) -> ll.Value:
    """The reduction's epilogue atomic, done once per warp by lane 0, or once per block
    by thread 0 (``e.block_reduction``)."""
    b = e.b
    dtype = s.value.dtype
    total = warp_reduce(e, s.op, e.v(s.value), dtype)
    tid = e.sreg("tid")
    if e.block_reduction:
        total = _across_warps(e, s.op, total, dtype, tid)
        leads = b.icmp_unsigned("==", tid, ll.Constant(I32, 0))
    else:
        lane = b.and_(tid, ll.Constant(I32, WARP - 1))
        leads = b.icmp_unsigned("==", lane, ll.Constant(I32, 0))
    first = e.fn.append_basic_block("warp_leader")
    after = e.fn.append_basic_block("warp_done")
    b.cbranch(leads, first, after)
    b.position_at_end(first)
    e.arith.atomic(s.op, e.v(s.dest), total, s.value.dtype)
    b.branch(after)
    b.position_at_end(after)
    return total  # the old value is unused (make_thread_local checked it)


def _across_warps(e, op: str, total: ll.Value, dtype: types.DataType, tid: ll.Value):
    """The block's combination of its warps' totals (lane 0 of each), valid in thread 0."""
    b = e.b
    element = llvm_type(dtype)
    slots = static_array(e, element, WARP, "warp_totals")
    lane = b.and_(tid, ll.Constant(I32, WARP - 1))
    warp = b.lshr(tid, ll.Constant(I32, 5))

    def slot(index: ll.Value) -> ll.Value:
        return b.gep(slots, [ll.Constant(I32, 0), index], inbounds=True)

    write = e.fn.append_basic_block("warp_total")
    written = e.fn.append_basic_block("warp_totals_written")
    b.cbranch(b.icmp_unsigned("==", lane, ll.Constant(I32, 0)), write, written)
    b.position_at_end(write)
    b.store(total, slot(warp))
    b.branch(written)
    b.position_at_end(written)
    barrier(e)
    warps = b.lshr(e.sreg("ntid"), ll.Constant(I32, 5))
    mine = b.load(slot(lane), typ=element)
    if op == "add":
        identity = ll.Constant(element, 0)
    else:  # min/max: a repeat changes nothing
        identity = b.load(slot(ll.Constant(I32, 0)), typ=element)
    value = b.select(b.icmp_unsigned("<", lane, warps), mine, identity)
    return warp_reduce(e, op, value, dtype)
