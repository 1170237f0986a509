"""Privatised scatters: ``grid[f(p)] += w`` in a parallel loop without atomics.

A particle-to-grid scatter adds into a field from many iterations at once, so every
``+=`` is an atomic - on x86 a compare-and-swap loop for floats. When a parallel task
only ever *adds* into some dense fields (no plain reads or writes of them, no use of the
atomic's old value) and does far more adds than the fields have elements, each chunk
adds into a zeroed private copy of the fields' span instead, with plain loads and
stores, and adds its copy back at the end (atomics again, one per non-zero element).
The task then runs one chunk per thread, so there are as many copies as threads.

This is ``make_thread_local`` for arrays; Taichi does not do it (its P2G stays atomic),
Numba users write it by hand. ``ti.init(make_thread_local=False)`` turns both off.

    for p in x:                        prologue: buf = calloc(span)
        grid[base(p)] += w(p)    →     body:     buf[base(p)] = buf[base(p)] + w(p)
                                       epilogue: for I in grid: grid[I] += buf[I] (if != 0)
"""

from __future__ import annotations

import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.demote_atomics import to_plain

MAX_PRIVATE_BYTES = 16 << 20  # per copy; one copy per thread
MAX_TOTAL_BYTES = 256 << 20  # all threads' copies together (a 64-core machine: 4 MiB each)
MIN_ADDS_PER_ELEMENT = 2  # below this, zeroing and adding back the copy costs more


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.make_thread_local:
        return False
    changed = False
    for task in kernel.tasks():
        if task.kind == "serial" or task.config.get("serialize"):
            continue
        fields, atomics = _candidates(task)
        if not fields:
            continue
        span = _span(fields)
        elements = sum(math.prod(f.shape) for f in fields)
        iterations = _iterations(task)
        if span is None or iterations is None:
            continue
        size = span[1] - span[0]
        threads = int(task.config.get("parallelize") or 0) or capabilities.threads
        if size > MAX_PRIVATE_BYTES or size * threads > MAX_TOTAL_BYTES:
            continue
        if iterations * len(atomics) < MIN_ADDS_PER_ELEMENT * elements:
            continue
        _rewrite(task, fields, atomics, span)
        kernel.report["privatized"].append(
            {
                "fields": [f.name for f in fields],
                "bytes": span[1] - span[0],
                "task": kernel.tasks().index(task),
            }
        )
        changed = True
    return changed


def _candidates(task: ir.OffloadedStmt):
    """Dense fields the task only adds into, and those atomic adds."""
    uses = transform.use_counts(task.body)
    users = transform.users_of(task.walk_all())
    adds, bad = {}, set()
    for ptr in task.walk_all():
        if not isinstance(ptr, ir.GlobalPtrStmt):
            continue
        field = ptr.field
        readers = users.get(ptr.id, [])
        ok = (
            ptr.indices
            and not field.layout().is_sparse
            and transform.contains(task, ptr)
            and all(
                isinstance(u, ir.AtomicOpStmt)
                and u.dest is ptr
                and u.op in ("add", "sub")
                and uses[u.id] == 0
                for u in readers
            )
        )
        if not ok:
            bad.add(field)
        else:
            adds.setdefault(field, []).extend(readers)
    fields = [f for f in adds if f not in bad and adds[f]]
    trees = {f.layout().tree_id for f in fields}
    if len(trees) != 1:  # one span, one copy: keep it simple
        return [], []
    return fields, [a for f in fields for a in adds[f]]


def _span(fields) -> tuple[int, int] | None:
    """The bytes of the tree the fields occupy (strides are positive: the first and
    last elements bound it)."""
    starts, ends = [], []
    for field in fields:
        layout = field.layout()
        if not layout.shape:
            return None
        starts.append(layout.address((0,) * len(layout.shape)))
        ends.append(layout.address(tuple(n - 1 for n in layout.shape)) + layout.itemsize)
    return min(starts), max(ends)


def _iterations(task: ir.OffloadedStmt) -> int | None:
    if task.kind == "struct_for":
        return math.prod(task.field.layout().shape)
    if isinstance(task.begin, int) and isinstance(task.end, int):
        return task.end - task.begin
    begin = task.begin.value if isinstance(task.begin, ir.ConstStmt) else None
    end = task.end.value if isinstance(task.end, ir.ConstStmt) else None
    return end - begin if begin is not None and end is not None else None


def _rewrite(task: ir.OffloadedStmt, fields, atomics, span) -> None:
    start, stop = span
    buffer = task.prologue.append(ir.ScratchAllocStmt(stop - start))
    buffer.pos = task.pos
    new_for: dict[int, ir.Stmt] = {}  # every atomic's uses rewritten in one walk
    for atomic in atomics:
        atomic.dest.private = (buffer, start)
        to_plain(atomic, task.body, new_for)
    transform.replace_all_uses(task.body, new_for)
    for field in fields:
        _add_back(task.epilogue, field, buffer, start)
    task.epilogue.append(ir.ScratchFreeStmt(buffer))
    task.config["one_chunk_per_thread"] = True


def _add_back(block: ir.Block, field, buffer: ir.Stmt, start: int) -> None:
    """``for I in field: if copy[I] != 0: field[I] += copy[I]`` (serially, per chunk)."""
    loop = block.append(ir.StructForStmt(field, {"serialize": True}))
    body = loop.body
    indices = [body.append(ir.LoopIndexStmt(loop, a, types.i32)) for a in range(field.ndim)]
    mine = body.append(ir.GlobalPtrStmt(field, indices))
    mine.private = (buffer, start)
    value = body.append(ir.GlobalLoadStmt(mine))
    zero = body.append(ir.ConstStmt(0, field.dtype))
    nonzero = body.append(ir.BinaryOpStmt("ne", value, zero, types.i32))
    branch = body.append(ir.IfStmt(nonzero))
    target = branch.true_block.append(ir.GlobalPtrStmt(field, indices))
    branch.true_block.append(ir.AtomicOpStmt("add", target, value))
