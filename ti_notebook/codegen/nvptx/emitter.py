"""Emits one CUDA kernel (one task) from IR statements: the shared emitter, GPU-shaped.

:class:`NvptxFunctionEmitter` is ``codegen/function.py``'s ``FunctionEmitter`` with what
differs on the GPU: its own methods, the GPU's variants of the shared emitter's parts
(arithmetic with ``device_math.DeviceArithmetic``, polls with ``interrupts.NoPolls``),
and the parts of this package, functions that take the emitter as their first argument.
:data:`NVPTX_EMITTERS`, the shared body emitter's table with entries replaced, says
which runs for each statement kind:

- a parallel task is a grid-stride loop over ``[begin, end)``:
  ``i = begin + ctaid.x * ntid.x + tid.x; i += ntid.x * nctaid.x``; each thread runs the
  task's prologue, its iterations, then the epilogue (where a thread-local reduction
  combines a warp's values first: ``codegen/nvptx/warp_reduce.py``). An ndrange splits ``i``
  per axis; a struct-for's row loop runs its row head for each ``i`` with a row offset
  of 0, and a ``SkipRows`` there moves the thread on to its next ``i``;
- memory: field, temporary and ndarray bases are ``addrspace(1)`` pointers (``ld.global``),
  and loads from a base the task never writes carry ``!invariant.load`` (``ld.global.nc``;
  ndarrays only when the task writes none of them, since two arguments may share memory);
- ``ti.clock_counter()`` reads ``%clock64``; ``print`` calls ``vprintf``
  (``codegen/nvptx/printing.py``); transcendentals use libdevice or the special function
  unit (``codegen/nvptx/device_math.py``); there are no interrupt polls (the host cannot
  signal a running kernel through host memory).

Atomics get ``syncscope("device")`` in :func:`device_scoped` (llvmlite's builder has no
syncscope argument), so PTX says ``atom.global.add`` rather than ``atom.sys``.

    >>> line = '  %".8" = atomicrmw fadd ptr addrspace(1) %".6", float %".7" monotonic'
    >>> device_scoped(line).endswith('syncscope("device") monotonic')
    True
"""

from __future__ import annotations

import re

import llvmlite.ir as ll

from ti_notebook.codegen import loops
from ti_notebook.codegen.emit_table import EmitFunction, checked
from ti_notebook.codegen.function import BODY_EMITTERS, FunctionEmitter
from ti_notebook.codegen.interrupts import NoPolls
from ti_notebook.codegen.llvm_types import I1, I8, I32, I64, VOID
from ti_notebook.codegen.loops import RowState
from ti_notebook.codegen.nvptx import (
    device_math,
    loop_unroll,
    printing,
    shared_memory,
    sparse_lists,
)
from ti_notebook.codegen.nvptx.shared_memory import SHARED, SharedMemoryPlan
from ti_notebook.codegen.nvptx.warp_reduce import is_reduction_atomic, reduce_then_atomic
from ti_notebook.errors import SourcePos, TiInternalError
from ti_notebook.ir import nodes as ir

GLOBAL = ll.PointerType(addrspace=1)
_ORDERING = r"(?:unordered|monotonic|acquire|release|acq_rel|seq_cst)"
_ATOMIC_LINE = re.compile(
    rf"^(.*= (?:atomicrmw|cmpxchg) .*?)( {_ORDERING}(?: {_ORDERING})?)$", re.M
)


def device_scoped(module_text: str) -> str:
    """``module_text`` with every atomicrmw and cmpxchg scoped to the device."""
    return _ATOMIC_LINE.sub(r'\1 syncscope("device")\2', module_text)


def base_of(ptr: ir.Stmt) -> tuple | None:
    """Which memory a pointer statement points into: ("tree", id), ("temps",),
    ("ndarray",), or None (a local buffer)."""
    while isinstance(ptr, ir.PtrOffsetStmt):
        ptr = ptr.base
    if isinstance(ptr, ir.RootPtrStmt):
        return ("tree", ptr.tree_id)
    if isinstance(ptr, ir.TempPtrStmt):
        return ("temps",)
    if isinstance(ptr, ir.ExternalPtrStmt):
        return ("ndarray",)
    return None


class WrittenMemory:
    """What one task stores into (plainly, atomically or by clearing), so that loads
    from anything else can be marked invariant.

    Elements of two fields never overlap, even in one tree, so a field is tracked on its
    own where the address says which field it is (``PtrOffsetStmt.field``); a store to
    an address of no known field (activity bits, a whole cell) counts for its tree.
    """

    def __init__(self, task: ir.OffloadedStmt) -> None:
        self.bases: set = set()  # every memory written in part
        self.whole: set = set()  # memories written at addresses of no known field
        self.fields: set = set()
        for stmt in task.walk_all():
            if isinstance(stmt, (ir.GlobalStoreStmt, ir.MemsetZeroStmt)):
                self.add(stmt.ptr)
            elif isinstance(stmt, ir.AtomicOpStmt) and not isinstance(stmt.dest, ir.AllocaStmt):
                self.add(stmt.dest)

    def add(self, ptr: ir.Stmt) -> None:
        base = base_of(ptr)
        self.bases.add(base)
        field = getattr(ptr, "field", None)
        if field is None:
            self.whole.add(base)
        else:
            self.fields.add(field)

    def unchanged(self, ptr: ir.Stmt) -> bool:
        """True when nothing this task writes can change what ``ptr`` points to."""
        base = base_of(ptr)
        if base is None:  # a local or shared buffer: not global memory
            return False
        field = getattr(ptr, "field", None)
        if field is None or base[0] != "tree":
            # ndarrays: any written one may be this one (two arguments can share memory)
            return base not in self.bases
        return base not in self.whole and field not in self.fields


class NvptxFunctionEmitter(FunctionEmitter):
    """Emits ``task`` into the kernel ``fn`` (whose one argument is ctx); what runs for
    each statement kind is in :data:`NVPTX_EMITTERS`."""

    ARITHMETIC = device_math.DeviceArithmetic  # libdevice and SFU transcendentals
    POLLS = NoPolls  # a kernel runs to its end

    def __init__(self, module_gen, fn: ll.Function, task: ir.OffloadedStmt, block_dim: int):
        super().__init__(module_gen, fn)
        self.task = task
        self.written = WrittenMemory(task)
        has_asserts = any(isinstance(s, ir.AssertStmt) for s in task.walk_all())
        self.block_dim = block_dim
        self.warp_reduction = block_dim % 32 == 0 and not has_asserts
        self.current: ir.Stmt | None = None  # for error positions
        # block-local storage: one CUDA block per block of the loop (codegen/nvptx/shared_memory.py)
        limit = module_gen.device.shared_memory_per_block
        self.shared = SharedMemoryPlan.of_task(task, limit)
        self.shared_arrays: list[ll.GlobalVariable] = []
        # warps' totals meet in shared memory unless block-local storage plans it
        self.block_reduction = self.warp_reduction and block_dim > 32 and self.shared is None
        self.block_list = None  # a sparse struct-for's list of active blocks (sparse_lists.py)

    def stmt(self, stmt: ir.Stmt) -> None:
        self.current = stmt
        super().stmt(stmt)

    def current_pos(self) -> SourcePos | None:
        """Where the statement being emitted came from (for compile errors)."""
        return self.current.pos if self.current is not None else None

    def sreg(self, name: str) -> ll.Value:
        """A special register's x component (``tid``, ``ctaid``, ``ntid``, ``nctaid``)."""
        return self.arith.intrinsic(f"llvm.nvvm.read.ptx.sreg.{name}.x", I32, [])

    # -- the task ----------------------------------------------------------------------
    def emit_task(self) -> None:
        task = self.task
        self.random.start(task)
        if task.kind == "serial":
            self.block(task.body)
        else:
            self.block(task.prologue)
            if self.block_list is not None:
                sparse_lists.listed_blocks_loop(self, self.block_list)
            else:
                self.grid_stride_loop(task)
            self.random.end_loop()
            self.block(task.epilogue)
        self.finish()

    def bound(self, value) -> ll.Value:
        if isinstance(value, int):
            return ll.Constant(I64, value)
        return self.b.sext(self.v(value), I64)

    def grid_stride_loop(self, task: ir.OffloadedStmt) -> None:
        b = self.b
        begin, end = self.bound(task.begin), self.bound(task.end)
        tid, block, size, blocks = (b.zext(self.sreg(n), I64) for n in _SREGS)
        counter = self.alloca(I64, "grid_i")
        if self.shared is None:  # a thread per iteration
            b.store(b.add(begin, b.add(b.mul(block, size), tid)), counter)
            stride = b.mul(size, blocks)
        else:  # a CUDA block per iteration (a block of block-local storage)
            b.store(b.add(begin, block), counter)
            stride = blocks
        header, body, latch, exit_block = (
            self.fn.append_basic_block(n) for n in ("grid", "grid_body", "grid_next", "grid_end")
        )
        b.branch(header)
        b.position_at_end(header)
        flat = b.load(counter, typ=I64)
        b.cbranch(b.icmp_signed("<", flat, end), body, exit_block)
        b.position_at_end(body)
        if self.shared is not None:
            shared_memory.barrier(self)  # the previous block's buffers are done with
        self.bind_iteration(task, b.trunc(flat, I32), latch)
        self.loop_targets.append((latch, exit_block))
        if task.kind == "struct_for":
            self.block(task.row_head)
        self.block(task.body)
        self.loop_targets.pop()
        if not b.block.is_terminated:
            b.branch(latch)
        b.position_at_end(latch)
        b.store(b.add(flat, stride), counter)
        back_edge = b.branch(header)
        threads = self.gen.device.saturating_grid * self.block_dim
        if self.shared is None and loop_unroll.unrolls(task, threads):
            loop_unroll.mark_unrolled(self.module, back_edge)
        b.position_at_end(exit_block)

    def bind_iteration(self, task: ir.OffloadedStmt, i: ll.Value, latch: ll.Block) -> None:
        """Makes the loop's indices (or row state) those of flat iteration ``i``."""
        loop = task.loop
        if task.kind == "struct_for":
            self.loops.rows[loop.id] = RowState(None, latch, i)
            self.loops.rows[loop.id].offset = ll.Constant(I32, 0)
        elif task.extents:
            extents = [self.v(e) for e in task.extents]
            starts = [self.v(s) for s in task.starts]
            self.loops.indices[loop.id] = self.loops.split_index(i, extents, starts)
        else:
            self.loops.indices[loop.id] = [i]
        self.random.iteration(loop, lambda: i)

    def leave_failed_check(self) -> None:
        if self.shared is not None and self.loop_targets:
            self.b.branch(self.loop_targets[-1][0])  # the next cell: barriers still meet
        else:
            super().leave_failed_check()

    # -- memory ------------------------------------------------------------------------
    def global_space(self, key: tuple, generic: ll.Value) -> ll.Value:
        make = lambda: self.entry_builder.addrspacecast(generic, GLOBAL)  # noqa: E731
        return self.invariant(("global", *key), make)

    def root(self, tree_id: int) -> ll.Value:
        return self.global_space(("root", tree_id), super().root(tree_id))

    def temps(self) -> ll.Value:
        return self.global_space(("temps",), super().temps())

    def external_data(self, arg_index: int) -> ll.Value:
        return self.global_space(("data", arg_index), super().external_data(arg_index))

    def emit_global_load(self, s: ir.GlobalLoadStmt):
        load = super().emit_global_load(s)
        if self.written.unchanged(s.ptr):
            load.set_metadata("invariant.load", self.module.add_metadata([]))
        return load

    def emit_atomic_op(self, s: ir.AtomicOpStmt):
        if self.warp_reduction and is_reduction_atomic(s, self.task):
            return reduce_then_atomic(self, s)
        return super().emit_atomic_op(s)

    def emit_memset_zero(self, s: ir.MemsetZeroStmt):
        ptr = self.v(s.ptr)
        if ptr.type.addrspace == SHARED:
            return shared_memory.zero_shared(self, ptr, s.nbytes)
        name = f"llvm.memset.p{ptr.type.addrspace}.i64"
        fn = self.declare(name, VOID, [ptr.type, I8, I64, I1])
        zero, size = ll.Constant(I8, 0), ll.Constant(I64, s.nbytes)
        self.b.call(fn, [ptr, zero, size, ll.Constant(I1, 0)])

    def emit_scratch_alloc(self, s: ir.ScratchAllocStmt):
        raise TiInternalError("a privatised scatter reached the CUDA code generator", s.pos)

    def emit_clock(self, s: ir.ClockStmt):
        return self.arith.intrinsic("llvm.nvvm.read.ptx.sreg.clock64", I64, [])


_SREGS = ("tid", "ctaid", "ntid", "nctaid")


def emit_skip_rows(e: NvptxFunctionEmitter, s: ir.SkipRowsStmt) -> None:
    """Skipping the rest of a struct-for's row: in the grid-stride loop, on to this
    thread's next ``i`` (the latch); in a row loop of its own (a serialised struct-for),
    as on every target."""
    rows = e.loops.rows[s.loop.id]
    if rows.counter is not None:
        loops.emit_skip_rows(e, s)
        return
    e.b.branch(rows.header)


N = NvptxFunctionEmitter
# the shared body emitter's table, with what a GPU does differently
NVPTX_EMITTERS: dict[type, EmitFunction] = {
    **BODY_EMITTERS,
    ir.SkipRowsStmt: emit_skip_rows,
    ir.GlobalLoadStmt: N.emit_global_load,
    ir.AtomicOpStmt: N.emit_atomic_op,
    ir.MemsetZeroStmt: N.emit_memset_zero,
    ir.ScratchAllocStmt: N.emit_scratch_alloc,
    ir.ClockStmt: N.emit_clock,
    ir.LocalArrayStmt: shared_memory.emit_local_array,
    ir.RangeForStmt: shared_memory.emit_range_for,
    ir.PrintStmt: printing.emit_print,
}
NvptxFunctionEmitter.EMITTERS = checked(NVPTX_EMITTERS, "NvptxFunctionEmitter")
del N
