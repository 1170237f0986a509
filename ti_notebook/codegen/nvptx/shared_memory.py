"""Block-local storage on NVPTX: buffers in shared memory, one CUDA block per block.

``passes/make_block_local.py`` turns a struct-for with ``ti.block_local`` into a loop
over the field's blocks whose body has, per cached field, a buffer
(``LocalArrayStmt``) and loops over the buffer or the block's cells, marked with their
``block_role``. Here one CUDA block runs one of those blocks at a time (the task's
grid-stride loop strides by blocks, ``emitter.py``), and:

- each buffer is ``addrspace(3)`` shared memory: static ``__shared__`` arrays while the
  task's buffers fit 48 KB, else slices of the kernel's dynamic shared memory (its size
  goes to the launch table; the launcher opts the kernel into it);
- the ``fill`` and ``write_back`` loops and the zeroing of an accumulated buffer are
  strided over the block's threads; the ``cells`` loop too, between two barriers
  (``bar.sync 0``): the buffers are whole before any cell reads them, and every cell has
  added into them before they are written back. A barrier also starts each block, so a
  CUDA block that moves on to its next block does not overwrite buffers still read;
- ``ti.random`` inside these loops: each cell starts its sites' counters at
  ``cell * 4096``, so threads sharing a block draw different numbers (the sequence is
  not the CPU's, where one thread runs the block's cells in order);
- a failed assert goes on with the thread's next cell instead of leaving the kernel: a
  thread that left would never reach the block's next barrier
  (``NvptxFunctionEmitter.leave_failed_check``).

The functions here take the task's emitter ``e`` (``emitter.py``), whose ``shared`` is
the task's :class:`SharedMemoryPlan` or None and ``shared_arrays`` its static buffers.

    >>> plan = SharedMemoryPlan([(1, 4000), (2, 16000)], static_limit=48 << 10)
    >>> plan.offsets, plan.total, plan.dynamic
    ({1: 0, 2: 4000}, 20000, False)
    >>> SharedMemoryPlan([(1, 40000), (2, 16000)], static_limit=48 << 10).dynamic
    True
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen import loops
from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import I8, I32, I64, VOID, llvm_type
from ti_notebook.ir import nodes as ir

SHARED = 3  # the NVPTX address space of shared memory
ALIGN = 16
RANDOM_DRAWS_PER_CELL = 4096


def untyped(variable: ll.GlobalVariable) -> ll.GlobalVariable:
    """``variable`` referred to as a plain ``ptr addrspace(N)``, as every other address
    here (llvmlite types a global's pointer, and folds a bitcast to the untyped one)."""
    variable.type = ll.PointerType(addrspace=variable.addrspace)
    return variable


class SharedMemoryPlan:
    """Where each of a task's buffers lives in its shared memory, by statement id."""

    def __init__(self, sizes: list[tuple[int, int]], static_limit: int) -> None:
        self.offsets: dict[int, int] = {}
        offset = 0
        for stmt_id, nbytes in sizes:
            self.offsets[stmt_id] = offset
            offset += -(-nbytes // ALIGN) * ALIGN
        self.total = offset if sizes else 0
        self.dynamic = self.total > static_limit

    @classmethod
    def of_task(cls, task: ir.OffloadedStmt, static_limit: int) -> SharedMemoryPlan | None:
        """The plan of ``task``'s buffers; None for a task with none."""
        arrays = [
            s for s in task.walk_all() if isinstance(s, ir.LocalArrayStmt) and not s.per_thread
        ]
        if not arrays:
            return None
        return cls([(s.id, s.count * s.dtype.size) for s in arrays], static_limit)


def cells_per_block(task: ir.OffloadedStmt) -> int | None:
    """How many cells the ``cells`` loop of a block-local task visits."""
    for stmt in task.walk_all():
        cells = isinstance(stmt, ir.RangeForStmt) and stmt.block_role == "cells"
        if cells and isinstance(stmt.end, ir.ConstStmt) and isinstance(stmt.begin, ir.ConstStmt):
            return stmt.end.value - stmt.begin.value
    return None


def barrier(e: FunctionEmitter) -> None:
    """``bar.sync 0``: every thread of the block waits for the others here."""
    e.b.call(e.declare("llvm.nvvm.barrier0", VOID, []), [])


def emit_local_array(e: FunctionEmitter, s: ir.LocalArrayStmt):
    """A block's buffer in shared memory (a thread's own array: local memory)."""
    if s.per_thread:
        return FunctionEmitter.emit_local_array(e, s)
    if e.shared.dynamic:
        offset = ll.Constant(I64, e.shared.offsets[s.id])
        return e.entry_builder.gep(e.gen.dynamic_shared(), [offset], source_etype=I8)
    return untyped(static_array(e, llvm_type(s.dtype), s.count, s.name))


def static_array(e: FunctionEmitter, element: ll.Type, count: int, name: str):
    """A ``__shared__`` array of ``count`` ``element`` s for the task's kernel (a
    block-local buffer, the warps' totals of a reduction), kept in ``e.shared_arrays``."""
    array_type = ll.ArrayType(element, count)
    symbol = f"{e.fn.name}_{name}{len(e.shared_arrays)}"
    array = ll.GlobalVariable(e.module, array_type, symbol, addrspace=SHARED)
    array.linkage = "internal"
    array.initializer = ll.Constant(array_type, ll.Undefined)
    array.align = ALIGN
    e.shared_arrays.append(array)
    return array


def zero_shared(e: FunctionEmitter, ptr: ll.Value, nbytes: int) -> None:
    """Zeroes a shared buffer, the block's threads taking every ntid-th word."""
    word, size = (I32, 4) if nbytes % 4 == 0 else (I8, 1)
    zero = ll.Constant(word, 0)

    def clear(k: ll.Value) -> None:
        e.b.store(zero, e.b.gep(ptr, [k], source_etype=word))

    strided(e, ll.Constant(I32, 0), ll.Constant(I32, nbytes // size), clear)


def emit_range_for(e: FunctionEmitter, s: ir.RangeForStmt):
    """A loop of a block-local task's block (``block_role``): strided over the block's
    threads; any other loop as on every target."""
    if e.shared is None or s.block_role is None:
        return loops.emit_range_for(e, s)
    if s.block_role == "cells":
        barrier(e)  # the buffers are filled
    extents = [e.v(x) for x in s.extents]
    starts = [e.v(x) for x in s.starts]
    sites = [e.random.sites[r.id][1] for r in s.body.walk() if isinstance(r, ir.RandStmt)]

    def cell(flat: ll.Value) -> None:
        indices = e.loops.split_index(flat, extents, starts) if extents else [flat]
        e.loops.indices[s.id] = indices
        first_draw = e.b.mul(flat, ll.Constant(I32, RANDOM_DRAWS_PER_CELL))
        for counter in sites:
            if counter is not None:
                e.b.store(first_draw, counter)
        e.block(s.body)

    strided(e, e.v(s.begin), e.v(s.end), cell, loops=True)
    if s.block_role == "cells":
        barrier(e)  # every cell has added into the buffers
    return None


def strided(e: FunctionEmitter, begin, end, run, loops: bool = False) -> None:
    """``for k in [begin + tid, end) step ntid: run(k)``, with ``continue`` and
    ``break`` going to the next k and out when ``loops``."""
    first = e.b.add(begin, e.sreg("tid"))
    strided_from(e, first, e.sreg("ntid"), end, run, loops)


def strided_from(e: FunctionEmitter, first, step, end, run, loops: bool = False) -> None:
    """``for k in [first, end) step step: run(k)`` (i32)."""
    b = e.b
    counter = e.alloca(I32, "block_k")
    b.store(first, counter)
    header, body, latch, exit_block = (
        e.fn.append_basic_block(n) for n in ("block", "block_body", "block_next", "block_end")
    )
    b.branch(header)
    b.position_at_end(header)
    k = b.load(counter, typ=I32)
    b.cbranch(b.icmp_signed("<", k, end), body, exit_block)
    b.position_at_end(body)
    if loops:
        e.loop_targets.append((latch, exit_block))
    run(k)
    if loops:
        e.loop_targets.pop()
    if not b.block.is_terminated:
        b.branch(latch)
    b.position_at_end(latch)
    b.store(b.add(k, step), counter)
    b.branch(header)
    b.position_at_end(exit_block)
