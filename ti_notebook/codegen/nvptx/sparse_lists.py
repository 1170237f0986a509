"""Struct-fors over sparse fields on NVPTX: a snapshot of the activity bits, and a list
of the active blocks with one CUDA block per entry.

A struct-for over a field with a sparse level above its leaf
(``ti.root.pointer(ti.ij, 32).dense(ti.ij, 8)``) would, as a plain grid-stride loop,
give every cell of the whole domain a thread that mostly finds its block inactive. As
Taichi does, the task gets two kernels before its own (the launch table lists them just
before it):

- ``<task>_list_clear`` (one thread) empties the list of active blocks;
- ``<task>_list``: a thread per block of the deepest sparse level above the leaf
  (``plan.visit.skip_level``) runs the loop's row head for the block's first cell, the
  very IR that skips inactive blocks, and appends the block's number where it stays;
- the task itself: each CUDA block takes list entries (``ctaid``, ``ctaid + nctaid``...)
  and its threads stride over the entry's cells (the row head, then the body, per cell).

A struct-for whose body changes the activity of the cells it visits reads the bits
from a copy taken as it starts (``OffloadedStmt.snapshot``): ``<task>_snapshot``, first
of all, copies them into ``<task>_bits``. The list and the copy are globals of the
module, so each loaded module holds its own, with nothing for a launcher to allocate.
The module generator (``module.py``) calls :func:`snapshot_kernel` and
:func:`block_list` with itself as ``gen``; the task's emitter calls
:func:`listed_blocks_loop`.

    >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
    >>> ptr = LevelPlan("pointer", (0,), (4,), (8,), 32, (32,), 0, 4, 128, (4,))
    >>> leaf = LevelPlan("dense", (0,), (8,), (1,), 4, (4,), 0, 8, None, (32,))
    >>> block_list_shape(FieldLayout(0, "x", "f32", (32,), (ptr, leaf), 0, 4), 32)
    (8, 4)
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import I8, I32, I64
from ti_notebook.codegen.loops import RowState
from ti_notebook.codegen.module_base import ModuleGeneratorBase
from ti_notebook.codegen.nvptx import shared_memory
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types
from ti_notebook.ir.launch_abi import Launch
from ti_notebook.plan import visit

GLOBAL_SPACE = 1
HELPER_BLOCK_DIM = 128


def block_list_shape(layout, cells: int) -> tuple[int, int] | None:
    """(cells per block, blocks) of the list a struct-for over ``cells`` cells of
    ``layout`` runs from; None when no sparse level sits above the leaf."""
    found = visit.skip_level(layout)
    if found is None:
        return None
    span = found[1]
    return span, -(-cells // span)


def device_global(module: ll.Module, name: str, typ: ll.Type) -> ll.GlobalVariable:
    """A zeroed ``addrspace(1)`` global of ``module``, referred to as an untyped pointer."""
    variable = ll.GlobalVariable(module, typ, name, addrspace=GLOBAL_SPACE)
    variable.linkage = "internal"
    variable.initializer = ll.Constant(typ, None)
    variable.align = 16
    variable.type = ll.PointerType(addrspace=GLOBAL_SPACE)  # llvmlite would type it
    return variable


class BlockList:
    """The module globals of one task's list: a slot per block, and the length."""

    def __init__(self, module: ll.Module, name: str, span: int, blocks: int) -> None:
        self.span, self.blocks = span, blocks
        self.slots = device_global(module, f"{name}_blocks", ll.ArrayType(I32, blocks))
        self.count = device_global(module, f"{name}_count", I32)


# -- the module's helper kernels (``gen``: the NVPTX module generator) ----------------
def snapshot_kernel(
    gen: ModuleGeneratorBase, task: ir.OffloadedStmt, name: str
) -> ll.GlobalVariable:
    """The kernel copying ``task``'s activity bits; returns the copy."""
    start, size = task.snapshot
    word, width = (I32, 4) if size % 4 == 0 else (I8, 1)
    copy = device_global(gen.module, f"{name}_bits", ll.ArrayType(word, size // width))
    copier = gen.task_emitter(f"{name}_snapshot", task, HELPER_BLOCK_DIM, None)
    emit_snapshot_copy(copier, copy, start, size // width, word)
    gen.launches.append(helper_launch(gen, f"{name}_snapshot", "snapshot", size // width))
    return copy


def block_list(
    gen: ModuleGeneratorBase, task: ir.OffloadedStmt, name: str, snapshot
) -> BlockList | None:
    """The list kernels of a struct-for over blocks of a sparse level, or None."""
    if task.kind != "struct_for" or not isinstance(task.end, int):
        return None
    if any(isinstance(s, ir.LocalArrayStmt) and not s.per_thread for s in task.walk_all()):
        return None  # block-local storage runs a CUDA block per block already
    shape = block_list_shape(task.field.layout(), task.end - task.begin)
    if shape is None:
        return None
    listing = BlockList(gen.module, name, *shape)
    clear = gen.task_emitter(f"{name}_list_clear", task, 1, None)
    emit_list_clear(clear, listing)
    generation = gen.task_emitter(f"{name}_list", task, HELPER_BLOCK_DIM, snapshot)
    emit_list_generation(generation, listing)
    gen.launches.append(helper_launch(gen, f"{name}_list_clear", "list_clear", None))
    gen.launches.append(helper_launch(gen, f"{name}_list", "list", listing.blocks))
    return listing


def helper_launch(gen, name: str, kind: str, iterations: int | None) -> Launch:
    """The launch entry of a helper kernel: a thread per iteration (one if None)."""
    block_dim = 1 if iterations is None else HELPER_BLOCK_DIM
    grid = 1 if iterations is None else -(-iterations // block_dim)
    grid = max(1, min(gen.device.saturating_grid, grid))
    return Launch(name, kind, block_dim, iterations, grid)


# -- code in a kernel (``e``: the task's NVPTX emitter) ------------------------------
def thread_grid(e: FunctionEmitter) -> tuple[ll.Value, ll.Value]:
    """(this thread's number in the grid, threads in the grid), i32."""
    b = e.b
    threads = e.sreg("ntid")
    first = b.add(b.mul(e.sreg("ctaid"), threads), e.sreg("tid"))
    return first, b.mul(threads, e.sreg("nctaid"))


def emit_snapshot_copy(e: FunctionEmitter, copy: ll.Value, start: int, words: int, word) -> None:
    b = e.b
    root = e.root(e.task.field.layout().tree_id)
    source = b.gep(root, [ll.Constant(I64, start)], source_etype=I8)

    def copy_word(k: ll.Value) -> None:
        value = b.load(b.gep(source, [k], source_etype=word), typ=word)
        b.store(value, b.gep(copy, [k], source_etype=word))

    shared_memory.strided_from(e, *thread_grid(e), ll.Constant(I32, words), copy_word)
    e.finish()


def emit_list_clear(e: FunctionEmitter, blocks: BlockList) -> None:
    e.b.store(ll.Constant(I32, 0), blocks.count)
    e.finish()


def emit_list_generation(e: FunctionEmitter, blocks: BlockList) -> None:
    """Appends each block whose row head does not skip it."""
    task, b = e.task, e.b
    e.block(task.prologue)

    def visit_block(number: ll.Value) -> None:
        start = b.mul(number, ll.Constant(I32, blocks.span))
        e.loops.rows[task.loop.id] = RowState(None, e.loop_targets[-1][0], start)
        e.loops.rows[task.loop.id].offset = ll.Constant(I32, 0)
        e.block(task.row_head)  # a SkipRows there goes on to the next block
        slot = e.arith.atomic("add", blocks.count, ll.Constant(I32, 1), types.u32)
        b.store(number, b.gep(blocks.slots, [slot], source_etype=I32))

    last = ll.Constant(I32, blocks.blocks)
    shared_memory.strided_from(e, *thread_grid(e), last, visit_block, loops=True)
    e.finish()


def listed_blocks_loop(e: FunctionEmitter, blocks: BlockList) -> None:
    """The task's loop: a CUDA block per list entry, a thread per cell of it."""
    task, b = e.task, e.b
    end = b.trunc(e.bound(task.end), I32)
    count = b.load(blocks.count, typ=I32)

    def run_entry(entry: ll.Value) -> None:
        number = b.load(b.gep(blocks.slots, [entry], source_etype=I32), typ=I32)
        start = b.mul(number, ll.Constant(I32, blocks.span))
        stop = b.add(start, ll.Constant(I32, blocks.span))
        stop = b.select(b.icmp_signed("<", stop, end), stop, end)
        shared_memory.strided(e, start, stop, run_cell, loops=True)

    def run_cell(flat: ll.Value) -> None:
        e.bind_iteration(task, flat, e.loop_targets[-1][0])
        e.block(task.row_head)
        e.block(task.body)

    shared_memory.strided_from(e, e.sreg("ctaid"), e.sreg("nctaid"), count, run_entry)
