"""Emits one LLVM function (a task or the kernel's entry) from IR statements.

:class:`FunctionEmitter` holds the function's builders, its values and the entry-block
cache, and is composed of parts, each an object with its own state that the emitter's
class picks (a target's emitter subclass names its variants):

- ``arith``: typed arithmetic, casts and math (``codegen/arithmetic.py``);
- ``loops``: loop indices, row loops and the loop shapes (``codegen/loops.py``);
- ``random``: ``ti.random`` draw sites and Philox blocks (``codegen/rng.py``);
- ``polls``: interrupt polls in long loops (``codegen/interrupts.py``).

:data:`BODY_EMITTERS` says which function emits each statement kind: the emitter's own
methods, or an ``emit_*`` function taking the emitter first (a part's module's, or
``codegen/printing.py``'s and ``codegen/cold_path.py``'s for print and assert).

Loop-invariant things (argument values, field base addresses, the temporaries
pointer) are loaded once in the function's entry block, so LLVM sees them as plain SSA
values and can vectorise loops that use them.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen import cold_path, loops, printing, rng
from ti_notebook.codegen.arithmetic import Arithmetic
from ti_notebook.codegen.emit_table import LOWERED_BEFORE_CODEGEN, EmitFunction, checked
from ti_notebook.codegen.interrupts import InterruptPolls
from ti_notebook.codegen.llvm_types import F64, I8, I32, I64, PTR, VOID, const, declare, llvm_type
from ti_notebook.errors import TiInternalError
from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types

_NO_WRAP_OPS = {"add": ll.IRBuilder.add, "sub": ll.IRBuilder.sub, "mul": ll.IRBuilder.mul}


# Alignment promised for a tree's base: pages on the CPU, cuMemAlloc's 256 bytes on CUDA.
TREE_ALIGN = 64


class FunctionEmitter:
    """Statement-by-statement emission into ``fn`` (whose first argument is ctx); what
    runs for each statement kind is in :data:`BODY_EMITTERS`."""

    EMITTERS: dict[type, EmitFunction]  # statement class -> emit(self, stmt)
    # the parts' classes: a target's emitter names its own variants
    ARITHMETIC: type[Arithmetic] = Arithmetic
    LOOPS: type[loops.Loops] = loops.Loops
    RANDOM: type[rng.RandomNumbers] = rng.RandomNumbers
    POLLS: type[InterruptPolls] = InterruptPolls

    def __init__(self, module_gen, fn: ll.Function) -> None:
        self.gen = module_gen
        self.module = module_gen.module
        self.fast_math = module_gen.options.fast_math
        self.fn = fn
        self.ctx = fn.args[0]
        entry = fn.append_basic_block("entry")
        self.entry_builder = ll.IRBuilder(entry)
        self.start = fn.append_basic_block("start")
        self.b = ll.IRBuilder(self.start)
        self.values: dict[int, ll.Value] = {}
        self.cached: dict[tuple, ll.Value] = {}
        self.iteration_counter: ll.Value | None = None  # the profiler's (profiling.py)
        self.loop_targets: list[tuple[ll.Block, ll.Block]] = []  # (continue, break)
        self.arith = self.ARITHMETIC(self)
        self.loops = self.LOOPS(self)
        self.random = self.RANDOM(self)
        self.polls = self.POLLS(self)
        self.snapshot: tuple[int, ll.Value] | None = None  # (tree, base of the bitmask copy)
        self.tree_extents: dict[int, int] = {}  # bytes known readable from a tree's base

    def finish(self) -> None:
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self.entry_builder.branch(self.start)

    # -- entry-block values ------------------------------------------------------------
    def ctx_slot(self, offset: int, typ: ll.Type, builder: ll.IRBuilder | None = None):
        b = builder or self.entry_builder
        ptr = b.gep(self.ctx, [ll.Constant(I64, offset)], source_etype=I8)
        return b.load(ptr, typ=typ)

    def ctx_pointer(self, offset: int) -> ll.Value:
        return self.b.gep(self.ctx, [ll.Constant(I64, offset)], source_etype=I8)

    def invariant(self, key: tuple, make) -> ll.Value:
        if key not in self.cached:
            self.cached[key] = make()
        return self.cached[key]

    def root(self, tree_id: int) -> ll.Value:
        def load():
            table = self.invariant(("roots",), lambda: self.ctx_slot(abi.CTX_ROOTS, PTR))
            eb = self.entry_builder
            local = self.gen.tree_slot(tree_id)
            slot = eb.gep(table, [ll.Constant(I64, local)], source_etype=I64)
            return eb.load(slot, typ=PTR)

        return self.invariant(("root", tree_id), load)

    def temps(self) -> ll.Value:
        return self.invariant(("temps",), lambda: self.ctx_slot(abi.CTX_TEMPS, PTR))

    def arg(self, arg_index: int, dtype: types.DataType) -> ll.Value:
        offset = self.gen.arg_offsets[arg_index]

        def load():
            if dtype.is_float:
                raw = self.ctx_slot(offset, F64)
                return self.with_entry(lambda: self.arith.cast(raw, types.f64, dtype))
            raw = self.ctx_slot(offset, I64)
            return self.with_entry(lambda: self.arith.cast(raw, types.i64, dtype))

        return self.invariant(("arg", arg_index, dtype.name), load)

    def external_shape(self, arg_index: int, axis: int) -> ll.Value:
        offset = self.gen.arg_offsets[arg_index] + 8 + 8 * axis
        return self.invariant(("shape", arg_index, axis), lambda: self.ctx_slot(offset, I64))

    def external_data(self, arg_index: int) -> ll.Value:
        offset = self.gen.arg_offsets[arg_index]
        return self.invariant(("data", arg_index), lambda: self.ctx_slot(offset, PTR))

    def with_entry(self, make):
        saved, self.b = self.b, self.entry_builder
        try:
            return make()
        finally:
            self.b = saved

    def alloca(self, typ: ll.Type, name: str = "") -> ll.Value:
        return self.entry_builder.alloca(typ, name=name)

    def declare(self, name: str, ret: ll.Type, arg_types: list) -> ll.Function:
        """The module's function ``name``, declared on first use."""
        return declare(self.module, name, ret, arg_types)

    # -- statements --------------------------------------------------------------------
    def block(self, block: ir.Block) -> None:
        for stmt in block.stmts:
            if self.b.block.is_terminated:
                self.b.position_at_end(self.fn.append_basic_block("dead"))
            self.stmt(stmt)

    def stmt(self, stmt: ir.Stmt) -> None:
        emit = self.EMITTERS.get(type(stmt))
        if emit is None:  # a kind the table leaves to an earlier pass (emit_table.py)
            raise TiInternalError(
                f"{type(stmt).__name__} reached {type(self).__name__}: "
                f"{LOWERED_BEFORE_CODEGEN.get(type(stmt), 'no emit function')}",
                stmt.pos,
            )
        result = emit(self, stmt)
        if result is not None:
            self.values[stmt.id] = result

    def v(self, stmt: ir.Stmt) -> ll.Value:
        return self.values[stmt.id]

    def emit_const(self, s: ir.ConstStmt):
        return const(s.dtype, s.value)

    def emit_arg_load(self, s: ir.ArgLoadStmt):
        return self.arg(s.arg_index, s.dtype)

    def emit_external_shape(self, s: ir.ExternalShapeStmt):
        shape = self.external_shape(s.arg_index, s.axis)
        return self.with_entry(lambda: self.arith.cast(shape, types.i64, s.dtype))

    def emit_binary_op(self, s: ir.BinaryOpStmt):
        lhs, rhs = self.v(s.lhs), self.v(s.rhs)
        if s.no_wrap and s.op in _NO_WRAP_OPS and not s.dtype.is_float:
            flags = ["nsw"] if s.dtype.is_signed else ["nuw"]
            return _NO_WRAP_OPS[s.op](self.b, lhs, rhs, flags=flags)
        return self.arith.binary(s.op, lhs, rhs, s.lhs.dtype)

    def emit_unary_op(self, s: ir.UnaryOpStmt):
        return self.arith.unary(s.op, self.v(s.operand), s.dtype)

    def emit_cast(self, s: ir.CastStmt):
        if s.bitcast:
            return self.b.bitcast(self.v(s.operand), llvm_type(s.dtype))
        return self.arith.cast(self.v(s.operand), s.operand.dtype, s.dtype)

    def emit_select(self, s: ir.SelectStmt):
        cond = self.arith.truth(self.v(s.cond))
        return self.b.select(cond, self.v(s.true_value), self.v(s.false_value))

    def emit_alloca(self, s: ir.AllocaStmt):
        slot = self.alloca(llvm_type(s.dtype), s.name)
        return slot

    def emit_local_load(self, s: ir.LocalLoadStmt):
        return self.b.load(self.v(s.alloca), typ=llvm_type(s.dtype))

    def emit_local_store(self, s: ir.LocalStoreStmt):
        self.b.store(self.v(s.value), self.v(s.alloca))

    def emit_root_ptr(self, s: ir.RootPtrStmt):
        return self.mask_root(s.tree_id) if s.snapshot else self.root(s.tree_id)

    def mask_root(self, tree_id: int) -> ll.Value:
        """Where this function reads ``tree_id``'s activity bits: the task's copy taken at
        its start when it has one, else the tree itself."""
        if self.snapshot is not None and self.snapshot[0] == tree_id:
            return self.snapshot[1]
        return self.root(tree_id)

    def emit_temp_ptr(self, s: ir.TempPtrStmt):
        return self.b.gep(self.temps(), [ll.Constant(I64, s.offset)], source_etype=I8)

    def emit_ptr_offset(self, s: ir.PtrOffsetStmt):
        address = self.b.gep(self.v(s.base), [self.v(s.byte_offset)], source_etype=I8)
        if s.field is not None and isinstance(s.base, ir.RootPtrStmt) and not s.base.snapshot:
            self.note_tree_extent(s.base.tree_id, s.field.layout().end)
        return address

    def note_tree_extent(self, tree_id: int, end: int) -> None:
        """Tells LLVM that ``end`` bytes from ``tree_id``'s base are readable and the base
        is aligned (a tree reserves all its cells; mmap and cuMemAlloc align them): a
        field's load under an ``if`` may then be done unconditionally, which lets the
        loop vectoriser if-convert loops such as n-body's ``if i != j`` without masked
        loads."""
        load = self.cached.get(("root", tree_id))
        if not isinstance(load, ll.LoadInstr) or end <= self.tree_extents.get(tree_id, 0):
            return
        self.tree_extents[tree_id] = end
        load.set_metadata("dereferenceable", self.module.add_metadata([ll.Constant(I64, end)]))
        load.set_metadata("align", self.module.add_metadata([ll.Constant(I64, TREE_ALIGN)]))

    def emit_external_ptr(self, s: ir.ExternalPtrStmt):
        b = self.b
        linear = None
        for axis, index in enumerate(s.indices):
            wide = b.sext(self.v(index), I64)
            linear = wide if linear is None else b.add(b.mul(linear, self.shape64(s, axis)), wide)
        data = self.external_data(s.arg_index)
        if linear is None:
            return data
        return b.gep(data, [linear], source_etype=llvm_type(s.dtype))

    def shape64(self, s: ir.ExternalPtrStmt, axis: int) -> ll.Value:
        return self.external_shape(s.arg_index, axis)

    def emit_global_load(self, s: ir.GlobalLoadStmt):
        load = self.b.load(self.v(s.ptr), typ=llvm_type(s.dtype), align=s.dtype.size)
        self.gen.alias_scopes().annotate(load, s.ptr)
        return load

    def emit_global_store(self, s: ir.GlobalStoreStmt):
        store = self.b.store(self.v(s.value), self.v(s.ptr), align=s.value.dtype.size)
        self.gen.alias_scopes().annotate(store, s.ptr)
        if s.nontemporal:
            one = self.module.add_metadata([ll.Constant(I32, 1)])
            store.set_metadata("nontemporal", one)

    def emit_atomic_op(self, s: ir.AtomicOpStmt):
        dtype = s.value.dtype
        value = self.v(s.value)
        if isinstance(s.dest, ir.AllocaStmt):  # thread-private: a plain read-modify-write
            slot = self.v(s.dest)
            old = self.b.load(slot, typ=llvm_type(dtype))
            self.b.store(self.arith.binary(s.op, old, value, dtype), slot)
            return old
        return self.arith.atomic(s.op, self.v(s.dest), value, dtype)

    def emit_local_array(self, s: ir.LocalArrayStmt):
        # In the entry block: one array per task call, not one per loop iteration.
        array = self.entry_builder.alloca(llvm_type(s.dtype), size=s.count, name=s.name)
        array.align = 64
        return array

    def emit_scratch_alloc(self, s: ir.ScratchAllocStmt):
        calloc = self.declare("tin_calloc", PTR, [I64, I64])
        return self.b.call(calloc, [ll.Constant(I64, 1), ll.Constant(I64, s.nbytes)])

    def emit_scratch_free(self, s: ir.ScratchFreeStmt):
        self.b.call(self.declare("tin_free", VOID, [PTR]), [self.v(s.buffer)])

    def emit_address(self, s: ir.AddressStmt):
        return self.b.ptrtoint(self.v(s.ptr), I64)

    def emit_memset_zero(self, s: ir.MemsetZeroStmt):
        fn = self.declare("llvm.memset.p0.i64", VOID, [PTR, I8, I64, ll.IntType(1)])
        args = [self.v(s.ptr), ll.Constant(I8, 0), ll.Constant(I64, s.nbytes)]
        self.b.call(fn, [*args, ll.Constant(ll.IntType(1), 0)])

    def emit_count_iteration(self, s: ir.CountIterationStmt):
        if self.iteration_counter is not None:  # the task's own loop; not inner loops
            count = self.b.load(self.iteration_counter, typ=I64)
            self.b.store(self.b.add(count, ll.Constant(I64, 1)), self.iteration_counter)

    def emit_clock(self, s: ir.ClockStmt):
        return self.arith.intrinsic("llvm.readcyclecounter", I64, [])

    # -- control flow ------------------------------------------------------------------
    def emit_if(self, s: ir.IfStmt):
        b = self.b
        then_block = self.fn.append_basic_block("then")
        else_block = self.fn.append_basic_block("else")
        merge = self.fn.append_basic_block("endif")
        b.cbranch(self.arith.truth(self.v(s.cond)), then_block, else_block)
        for target, body in ((then_block, s.true_block), (else_block, s.false_block)):
            b.position_at_end(target)
            self.block(body)
            if not b.block.is_terminated:
                b.branch(merge)
        b.position_at_end(merge)

    def emit_while(self, s: ir.WhileStmt):
        b = self.b
        body = self.fn.append_basic_block("while")
        exit_block = self.fn.append_basic_block("endwhile")
        b.branch(body)
        b.position_at_end(body)
        self.polls.poll()  # every iteration, `continue` included: `while True:` stops
        self.loop_targets.append((body, exit_block))
        self.block(s.body)
        self.loop_targets.pop()
        if not b.block.is_terminated:
            b.branch(body)
        b.position_at_end(exit_block)

    def emit_break(self, s: ir.BreakStmt):
        self.b.branch(self.loop_targets[-1][1])

    def emit_continue(self, s: ir.ContinueStmt):
        self.b.branch(self.loop_targets[-1][0])

    def emit_return(self, s: ir.ReturnStmt):
        offset = self.gen.arg_offsets.get(("return", s.slot), abi.CTX_RETURN)
        self.b.store(self.v(s.value), self.ctx_pointer(offset))

    def leave_failed_check(self) -> None:
        """Where code goes once a failed check is recorded: out of the function (a CPU
        chunk ends; the launcher raises when the task is done)."""
        self.b.ret_void()


E = FunctionEmitter
# statement class -> its emit function, on every target (a target's emitter starts from
# this table and replaces entries: codegen/nvptx/emitter.py)
BODY_EMITTERS: dict[type, EmitFunction] = {
    # values
    ir.ConstStmt: E.emit_const,
    ir.ArgLoadStmt: E.emit_arg_load,
    ir.ExternalShapeStmt: E.emit_external_shape,
    ir.BinaryOpStmt: E.emit_binary_op,
    ir.UnaryOpStmt: E.emit_unary_op,
    ir.CastStmt: E.emit_cast,
    ir.SelectStmt: E.emit_select,
    ir.RandStmt: rng.emit_rand,
    ir.ClockStmt: E.emit_clock,
    ir.LoopIndexStmt: loops.emit_loop_index,
    ir.RowStartStmt: loops.emit_row_start,
    ir.RowOffsetStmt: loops.emit_row_offset,
    # locals
    ir.AllocaStmt: E.emit_alloca,
    ir.LocalLoadStmt: E.emit_local_load,
    ir.LocalStoreStmt: E.emit_local_store,
    ir.LocalArrayStmt: E.emit_local_array,
    # memory
    ir.RootPtrStmt: E.emit_root_ptr,
    ir.TempPtrStmt: E.emit_temp_ptr,
    ir.PtrOffsetStmt: E.emit_ptr_offset,
    ir.ExternalPtrStmt: E.emit_external_ptr,
    ir.GlobalLoadStmt: E.emit_global_load,
    ir.GlobalStoreStmt: E.emit_global_store,
    ir.AtomicOpStmt: E.emit_atomic_op,
    ir.AddressStmt: E.emit_address,
    ir.ScratchAllocStmt: E.emit_scratch_alloc,
    ir.ScratchFreeStmt: E.emit_scratch_free,
    ir.MemsetZeroStmt: E.emit_memset_zero,
    # control flow
    ir.IfStmt: E.emit_if,
    ir.WhileStmt: E.emit_while,
    ir.RangeForStmt: loops.emit_range_for,
    ir.StructForStmt: loops.emit_struct_for,
    ir.SkipRowsStmt: loops.emit_skip_rows,
    ir.CountIterationStmt: E.emit_count_iteration,
    ir.BreakStmt: E.emit_break,
    ir.ContinueStmt: E.emit_continue,
    ir.ReturnStmt: E.emit_return,
    ir.PrintStmt: printing.emit_print,
    ir.AssertStmt: cold_path.emit_assert,
}
FunctionEmitter.EMITTERS = checked(BODY_EMITTERS, "FunctionEmitter")
del E
