"""IR → one LLVM module per kernel, for the host CPU.

The module has an entry function ``<name>_entry(ctx)`` that runs the serial tasks
inline and hands each parallel task ``<name>_task<k>(ctx, begin, end)`` to the native
thread pool through ``tin_parallel_for``. ``ctx`` is the launch context whose layout is
in ``ir/launch_abi.py``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def one() -> ti.i32:
    ...     return 1
    >>> "define void @" in one.stages()["llvm"]
    True
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen import vector_math
from ti_notebook.codegen.cpu import profiling
from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import I1, I8, I32, I64, PTR, VOID
from ti_notebook.codegen.module_base import ModuleGeneratorBase
from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

# Smallest chunk of a parallel loop, in iterations: below two chunks the loop runs
# inline on the caller, so a small loop never pays for waking the pool.
MIN_GRAIN_SIMPLE_BODY = 4096
MIN_GRAIN_LOOPING_BODY = 1
CHUNKS_PER_THREAD = 4


# x86 turns `a / sqrt(x)` and `1 / x` under `arcp` into estimate instructions (rsqrtps,
# rcpps) plus one Newton step: off by an ulp even for exact inputs (1 / sqrt(4) was
# 0.49999997, so ti.svd(I) was not I and an MPM step from F = I made stress from nothing).
# Taichi's CPU code divides exactly; so do we: the estimates are off for every function.
RECIPROCAL_ESTIMATES_OFF = '"reciprocal-estimates"="none"'


def exact_reciprocals(module: ll.Module) -> None:
    """Turns reciprocal estimates off in every function ``module`` defines.

    >>> m = ll.Module()
    >>> fn = ll.Function(m, ll.FunctionType(ll.VoidType(), []), "f")
    >>> _ = ll.IRBuilder(fn.append_basic_block()).ret_void()
    >>> exact_reciprocals(m)
    >>> RECIPROCAL_ESTIMATES_OFF in fn.attributes
    True
    """
    for fn in module.functions:
        if fn.blocks:
            # llvmlite's attribute set only knows enum attributes; a string attribute
            # is added to the underlying set, and printed as written
            set.add(fn.attributes, RECIPROCAL_ESTIMATES_OFF)


class CpuModuleGenerator(ModuleGeneratorBase):
    """Builds the LLVM module of one specialised kernel."""

    def __init__(
        self,
        kernel: KernelIR,
        options: CompileOptions,
        capabilities: Capabilities,
        arg_offsets: dict,  # argument slot k, or ("return", k), -> context offset
        prefix: str | None = None,
    ) -> None:
        super().__init__(kernel, options, capabilities, arg_offsets, prefix)
        # kernel_profiler: the event buffer's layout (ir/launch_abi.py), else None
        self.profile: abi.ProfileLayout | None = None
        if options.kernel_profiler:
            tasks = len(kernel.tasks())
            self.profile = abi.ProfileLayout(tasks, max(capabilities.threads, 1))

    @property
    def entry_name(self) -> str:
        return f"{self.prefix}_entry"

    # -- module ------------------------------------------------------------------------
    def generate(self) -> str:
        tasks = self.kernel.tasks()
        task_functions = {}
        for k, task in enumerate(tasks):
            if task.kind != "serial":
                chunk = self.task_function(task, k)
                if self.profile is not None:
                    chunk = profiling.profiled_chunk(self.module, chunk, self.profile, k)
                task_functions[task.id] = chunk
        self.entry_function(tasks, task_functions)
        exact_reciprocals(self.module)
        vector_math.finish(self.module)
        return str(self.module)

    def task_function(self, task: ir.OffloadedStmt, k: int) -> ll.Function:
        fn_type = ll.FunctionType(VOID, [PTR, I64, I64])
        fn = ll.Function(self.module, fn_type, f"{self.prefix}_task{k}")
        fn.linkage = "internal"
        fn.args[0].add_attribute("noalias")
        begin64, end64 = fn.args[1], fn.args[2]
        emitter = FunctionEmitter(self, fn)
        counted = self.profile is not None and any(
            isinstance(s, ir.CountIterationStmt) for s in task.walk_all()
        )
        if counted:
            emitter.iteration_counter = emitter.alloca(I64, "counted")
            emitter.entry_builder.store(ll.Constant(I64, 0), emitter.iteration_counter)
        emitter.random.start(task)
        emitter.block(task.prologue)
        b = emitter.b
        begin, end = b.trunc(begin64, I32), b.trunc(end64, I32)
        if task.snapshot is not None:
            emitter.snapshot = (task.field.layout().tree_id, self.snapshot_root(emitter, task))
        if task.kind == "struct_for":
            emitter.loops.row_loop(task, task.loop, begin, end)
        else:
            extents = [emitter.v(e) for e in task.extents]
            starts = [emitter.v(s) for s in task.starts]
            emitter.loops.counted_loop(task.loop, begin, end, extents, starts, task.body)
        emitter.random.end_loop()
        emitter.block(task.epilogue)
        if counted:
            count = emitter.b.load(emitter.iteration_counter, typ=I64)
            profiling.add_counted(emitter.b, emitter.ctx, self.profile, k, count)
        if any(isinstance(s, ir.GlobalStoreStmt) and s.nontemporal for s in task.walk_all()):
            # non-temporal stores are weakly ordered: make them visible before the chunk
            # reports done, so the next task (or Python) reads them
            fence = emitter.declare("llvm.x86.sse.sfence", VOID, [])
            emitter.b.call(fence, [])
        emitter.finish()
        return fn

    def entry_function(self, tasks: list[ir.OffloadedStmt], task_functions: dict) -> None:
        fn = ll.Function(self.module, ll.FunctionType(VOID, [PTR]), f"{self.prefix}_run")
        fn.linkage = "internal"
        self.interruptible_entry(fn)
        emitter = FunctionEmitter(self, fn)
        if self.kernel.temps_size:
            eb = emitter.entry_builder
            temps = eb.alloca(ll.ArrayType(I8, self.kernel.temps_size), name="temps")
            temps.align = 16
            slot = eb.gep(emitter.ctx, [ll.Constant(I64, abi.CTX_TEMPS)], source_etype=I8)
            eb.store(temps, slot)
        events = None
        if self.profile is not None:
            events = profiling.buffer_of(emitter.b, emitter.ctx)
            profiling.stamp(emitter.b, self.module, events, 0)
        for k, task in enumerate(tasks):
            if emitter.b.block.is_terminated:
                emitter.b.position_at_end(fn.append_basic_block("dead"))
            if events is not None:
                profiling.stamp(emitter.b, self.module, events, self.profile.task(k))
            if task.kind == "serial":
                emitter.random.start(task)
                emitter.block(task.body)
            else:
                self.launch(emitter, task, task_functions[task.id])
            if events is not None and not emitter.b.block.is_terminated:
                profiling.stamp(emitter.b, self.module, events, self.profile.task(k) + 1)
        if events is not None and not emitter.b.block.is_terminated:
            profiling.stamp(emitter.b, self.module, events, 1)
        emitter.finish()

    def interruptible_entry(self, run: ll.Function) -> None:
        """The exported entry: marks a launch as running for the SIGINT handler (which
        then raises the flag the loops poll instead of interrupting Python), runs the
        kernel, and clears the mark (``runtime/interrupt.py``)."""
        fn = ll.Function(self.module, ll.FunctionType(VOID, [PTR]), self.entry_name)
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        ctx = fn.args[0]
        slot = b.gep(ctx, [ll.Constant(I64, abi.CTX_INTERRUPT)], source_etype=I8)
        state = b.load(slot, typ=PTR)
        running = b.gep(state, [ll.Constant(I64, 1)], source_etype=I32)
        # atomic exchanges as stores (llvmlite's store_atomic needs typed pointers)
        b.atomic_rmw("xchg", state, ll.Constant(I32, 0), "monotonic")
        b.atomic_rmw("xchg", running, ll.Constant(I32, 1), "seq_cst")
        b.call(run, [ctx])
        b.atomic_rmw("xchg", running, ll.Constant(I32, 0), "seq_cst")
        b.ret_void()

    def snapshot_buffer(self, task: ir.OffloadedStmt) -> ll.GlobalVariable:
        """The module's copy of ``task``'s activity bitmasks (launches run one at a time,
        so one copy per task is enough)."""
        name = f"{self.prefix}_snapshot{task.id}"
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        buffer_type = ll.ArrayType(I8, task.snapshot[1])
        buffer = ll.GlobalVariable(self.module, buffer_type, name)
        buffer.linkage = "internal"
        buffer.initializer = ll.Constant(buffer_type, None)
        buffer.align = 64
        return buffer

    def snapshot_root(self, emitter: FunctionEmitter, task: ir.OffloadedStmt) -> ll.Value:
        """A base such that base + mask_offset reads the copy: copy - start."""
        start = task.snapshot[0]
        buffer = self.snapshot_buffer(task)
        return emitter.entry_builder.gep(
            buffer, [ll.Constant(I64, -start)], source_etype=I8, inbounds=False
        )

    def take_snapshot(self, emitter: FunctionEmitter, task: ir.OffloadedStmt) -> None:
        start, size = task.snapshot
        b = emitter.b
        source = b.gep(
            emitter.root(task.field.layout().tree_id),
            [ll.Constant(I64, start)],
            source_etype=I8,
        )
        copy = emitter.declare("llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1])
        b.call(
            copy,
            [self.snapshot_buffer(task), source, ll.Constant(I64, size), ll.Constant(I1, 0)],
        )

    def launch(self, emitter: FunctionEmitter, task: ir.OffloadedStmt, task_fn) -> None:
        b = emitter.b
        if task.snapshot is not None:
            self.take_snapshot(emitter, task)
        begin = self.bound(emitter, task.begin)
        end = self.bound(emitter, task.end)
        threads = int(task.config.get("parallelize") or 0)
        most = self.capabilities.threads
        threads = min(threads, most) if threads else most
        block_dim = int(task.config.get("block_dim") or 0)
        one_chunk_per_thread = task.config.get("one_chunk_per_thread", False)
        if block_dim > 0 and not one_chunk_per_thread:
            grain = ll.Constant(I64, block_dim)
        else:
            count = b.sub(end, begin)
            chunks = 1 if one_chunk_per_thread else CHUNKS_PER_THREAD
            per = ll.Constant(I64, max(threads, 1) * chunks)
            auto = b.sdiv(b.add(count, b.sub(per, ll.Constant(I64, 1))), per)
            has_loops = any(
                isinstance(s, (ir.RangeForStmt, ir.StructForStmt, ir.WhileStmt))
                for s in task.body.walk()
            )
            floor = MIN_GRAIN_LOOPING_BODY if has_loops else MIN_GRAIN_SIMPLE_BODY
            floor_value = ll.Constant(I64, floor)
            grain = b.select(b.icmp_signed(">", auto, floor_value), auto, floor_value)
        pool = emitter.declare("tin_parallel_for", VOID, [PTR, PTR, I64, I64, I64, I32])
        b.call(pool, [task_fn, emitter.ctx, begin, end, grain, ll.Constant(I32, threads)])
        if any(isinstance(s, ir.AssertStmt) for s in task.walk_all()):
            error = b.load(emitter.ctx_pointer(abi.CTX_ERROR), typ=I64)
            failed = emitter.fn.append_basic_block("task_failed")
            go_on = emitter.fn.append_basic_block("task_ok")
            b.cbranch(b.icmp_unsigned("!=", error, ll.Constant(I64, 0)), failed, go_on)
            b.position_at_end(failed)
            b.ret_void()
            b.position_at_end(go_on)

    def bound(self, emitter: FunctionEmitter, value) -> ll.Value:
        if isinstance(value, int):
            return ll.Constant(I64, value)
        return emitter.b.sext(emitter.v(value), I64)
