"""Warp accesses: per memory access of a parallel task, what one warp's access costs.

An analysis for targets with warps (``capabilities.warp_size > 1``: CUDA); elsewhere it
does nothing, so the CPU's report is unchanged. It reads the optimised IR, where every
field access is ``root + byte offset`` with the offset's arithmetic as codegen emits it
(``lower_access`` from the memory plan), and fills, per task of
``kernel.report["tasks"]``, ``"warp_accesses"``: one entry per global load, store or
atomic of a field or ndarray in the task's body, and per access of a block-local
buffer (shared memory).

Which iteration each lane runs follows ``codegen/nvptx/emitter.py``: a task's
grid-stride loop gives consecutive threads, so a warp's consecutive lanes, consecutive
flat iterations (``begin + lane`` for the first warp); an ndrange splits the flat index
row-major (the last axis fastest), a lowered struct-for's row start is the flat cell
number in memory order (row offset 0). A block-local task runs one block per CUDA
block, its fill, cells and write-back loops strided over the block's threads. The first
warp of the first block stands for all: with the usual block sizes (multiples of 32)
every warp starts at a multiple of 32 iterations, so it sees the same pattern.

The per-lane byte addresses then go to :func:`~ti_notebook.cuda_analysis.global_access`
(32-byte sectors and 128-byte lines; tree bases are taken as 128-byte aligned) or
:func:`~ti_notebook.cuda_analysis.shared_access` (the bank-conflict degree). An entry:
``field`` (name; ``arg N`` for ndarray argument N), ``access`` (load, store, atomic),
``memory`` (global, shared), ``element_bytes``, ``lanes`` (active lanes),
``lane_stride`` (bytes between neighbouring lanes when constant, else None),
``pattern`` (uniform, affine, non-affine, irregular: addresses known only at run time),
``sectors``, ``ideal_sectors``, ``efficiency`` (global; None when irregular),
``degree`` (shared), ``assumed`` (the figures take a run-time value as aligned) and
``line``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=256, name="x")
    >>> @ti.kernel
    ... def every_other():
    ...     for i in range(128):
    ...         x[2 * i] = 1.0
    >>> entry = every_other.stages(arch="cuda")["report"].tasks[0].warp_accesses[0]
    >>> entry.field, entry.access, entry.lane_stride, entry.sectors, entry.efficiency
    ('x', 'store', 8, 8, 0.5)
"""

from __future__ import annotations

import math

from ti_notebook.cuda_analysis.access_patterns import global_access, shared_access
from ti_notebook.cuda_analysis.devices import CACHE_LINE_BYTES
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.analysis.lane_values import LaneEvaluator, Lanes, local_stores

DEFAULT_BLOCK_DIM = 128  # what codegen/nvptx/module.py launches without a loop_config


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    """Notes each task's warp accesses in ``kernel.report["tasks"]``; returns False."""
    if capabilities.warp_size <= 1:
        return False
    tasks = kernel.report.get("tasks", [])
    for task, entry in zip(kernel.tasks(), tasks, strict=False):
        if task.kind != "serial":
            entry["warp_accesses"] = task_warp_accesses(task, capabilities.warp_size)
    return False


def task_warp_accesses(task: ir.OffloadedStmt, warp_size: int = 32) -> list[dict]:
    """The entries (see the module's docstring) of one parallel task's body."""
    block_local = any(
        isinstance(s, ir.LocalArrayStmt) and not s.per_thread for s in task.walk_all()
    )
    evaluator = LaneEvaluator(warp_size, {}, local_stores(task.body))
    first = evaluator.value(task.begin)
    block_dim = int(task.config.get("block_dim") or DEFAULT_BLOCK_DIM)
    if block_local:  # the warp is in the task's first block; its lanes share the block
        flat = Lanes.uniform(first.values[0] if first.is_uniform else 0, warp_size, first.shifted)
        active = min(warp_size, block_dim)
    else:
        start = first.values[0] if first.is_uniform else 0
        flat = Lanes(Lanes.lane_index(warp_size, start).values, not first.exact)
        active = min(warp_size, block_dim, _trips(task.begin, task.end, evaluator))
    _bind_task(evaluator, task, flat)
    names = _buffer_names(task) if block_local else {}
    found = []
    for stmt in task.body.walk():
        access = _access(stmt)
        if access is None:
            continue
        kind, ptr = access
        memory, name = _memory(ptr, names)
        if memory is None:
            continue
        lanes = active
        if memory == "shared" or block_local:
            lanes = _role_lanes(stmt, task, evaluator, active)
        address = evaluator.value(ptr)
        found.append(_entry(name, kind, memory, ptr, address, lanes, stmt))
    return found


def _bind_task(evaluator: LaneEvaluator, task: ir.OffloadedStmt, flat: Lanes) -> None:
    """The lanes' values of the task loop's indices (and of the block loops inside a
    block-local task), from the flat iteration ``flat``."""
    loop = task.loop
    if task.kind == "struct_for":
        evaluator.bound[(loop.id, "row_start")] = flat
        evaluator.bound[(loop.id, "row_offset")] = Lanes.uniform(0, evaluator.lanes)
    elif loop is not None:
        for axis, value in enumerate(_split(evaluator, flat, task.extents, task.starts)):
            evaluator.bound[(loop.id, axis)] = value
    for inner in task.body.walk():
        if isinstance(inner, ir.RangeForStmt) and inner.block_role is not None:
            start = evaluator.value(inner.begin)
            begin = start.values[0] if start.is_uniform else 0
            k = Lanes(Lanes.lane_index(evaluator.lanes, begin).values, start.shifted)
            for axis, value in enumerate(_split(evaluator, k, inner.extents, inner.starts)):
                evaluator.bound[(inner.id, axis)] = value


def _split(evaluator: LaneEvaluator, flat: Lanes, extents, starts) -> list[Lanes]:
    """An ndrange's indices of ``flat`` as codegen splits it (``codegen/loops.py``)."""
    if not extents:
        return [flat]
    indices, rest = [], flat
    for axis in range(len(extents) - 1, -1, -1):
        extent = evaluator.value(extents[axis])
        if axis == 0:
            local = rest
        else:
            local = evaluator.combine("mod", rest, extent)
            rest = evaluator.combine("floordiv", rest, extent)
        indices.append(evaluator.combine("add", local, evaluator.value(starts[axis])))
    return indices[::-1]


def _trips(begin, end, evaluator: LaneEvaluator) -> int:
    """Iterations of ``[begin, end)`` when known while compiling, else a warp's worth."""
    low, high = evaluator.value(begin), evaluator.value(end)
    if low.exact and high.exact and low.is_uniform and high.is_uniform:
        return max(int(high.values[0]) - int(low.values[0]), 1)
    return evaluator.lanes


def _role_lanes(stmt, task, evaluator: LaneEvaluator, active: int) -> int:
    """Active lanes at ``stmt`` of a block-local task: its block loop's iterations, or
    every lane outside those loops (all threads run that code)."""
    owner = stmt.parent.owner if stmt.parent is not None else None
    while owner is not None and owner is not task:
        if isinstance(owner, ir.RangeForStmt) and owner.block_role is not None:
            return min(active, _trips(owner.begin, owner.end, evaluator))
        owner = owner.parent.owner if owner.parent is not None else None
    return active


def _access(stmt) -> tuple[str, ir.Stmt] | None:
    """(load | store | atomic, pointer) of a memory access, else None."""
    if isinstance(stmt, ir.GlobalLoadStmt):
        return "load", stmt.ptr
    if isinstance(stmt, ir.GlobalStoreStmt):
        return "store", stmt.ptr
    if isinstance(stmt, ir.AtomicOpStmt) and not isinstance(stmt.dest, ir.AllocaStmt):
        return "atomic", stmt.dest
    return None


def _memory(ptr, buffer_names: dict) -> tuple[str | None, str]:
    """(global | shared | None, name) of what ``ptr`` points into; None for what is not
    a field's or ndarray's element (activity bits, temporaries between tasks)."""
    if isinstance(ptr, ir.ExternalPtrStmt):
        return "global", f"arg {ptr.arg_index}"
    if not isinstance(ptr, ir.PtrOffsetStmt):
        return None, ""
    if ptr.field is not None:
        return "global", ptr.field.name
    base = ptr.base
    while isinstance(base, ir.PtrOffsetStmt):
        base = base.base
    if isinstance(base, ir.LocalArrayStmt):
        return "shared", buffer_names.get(base.id, "block-local buffer")
    return None, ""


def _buffer_names(task: ir.OffloadedStmt) -> dict[int, str]:
    """Per block-local buffer (``LocalArrayStmt`` id), the field it caches: the fill
    loop stores a field's load into it, the write-back adds its load into a field."""
    names: dict[int, str] = {}

    def buffer_of(ptr):
        if isinstance(ptr, ir.PtrOffsetStmt) and isinstance(ptr.base, ir.LocalArrayStmt):
            return ptr.base.id
        return None

    for s in task.body.walk():
        if isinstance(s, ir.GlobalStoreStmt) and isinstance(s.value, ir.GlobalLoadStmt):
            source = getattr(s.value.ptr, "field", None)
            if buffer_of(s.ptr) is not None and source is not None:
                names[buffer_of(s.ptr)] = f"{source.name} (block-local)"
        if isinstance(s, ir.AtomicOpStmt) and isinstance(s.value, ir.GlobalLoadStmt):
            target = getattr(s.dest, "field", None)
            if buffer_of(s.value.ptr) is not None and target is not None:
                names[buffer_of(s.value.ptr)] = f"{target.name} (block-local)"
    return names


def _entry(name, kind, memory, ptr, address: Lanes, lanes: int, stmt) -> dict:
    element = ptr.dtype.size
    entry = {
        "field": name,
        "access": kind,
        "memory": memory,
        "element_bytes": element,
        "lanes": lanes,
        "lane_stride": None,
        "pattern": "irregular",
        "line": stmt.pos.lineno if stmt.pos is not None else None,
        "assumed": address.shifted or address.assumed,
    }
    if memory == "global":
        entry.update(sectors=None, ideal_sectors=math.ceil(lanes * element / 32), efficiency=None)
    else:
        entry["degree"] = None
    if address.is_irregular:
        entry["assumed"] = False
        return entry
    values = [int(v) for v in address.values[:lanes]]
    steps = {b - a for a, b in zip(values, values[1:], strict=False)}
    if len(steps) <= 1:
        entry["lane_stride"] = steps.pop() if steps else 0
        entry["pattern"] = "uniform" if entry["lane_stride"] == 0 else "affine"
    else:
        entry["pattern"] = "non-affine"
    # a representative below 0 (x[i - 1] at i = 0) moves up by whole lines
    lift = -(min(values) // CACHE_LINE_BYTES) * CACHE_LINE_BYTES if min(values) < 0 else 0
    values = [v + lift for v in values]
    if memory == "global":
        counted = global_access(values, element_bytes=element)
        entry.update(
            sectors=counted.sectors,
            ideal_sectors=counted.ideal_sectors,
            efficiency=round(counted.efficiency, 4),
        )
    else:
        entry["degree"] = shared_access(values, element_bytes=element).degree
        # moving every lane by one amount keeps which lanes share a bank
        entry["assumed"] = address.assumed
    return entry
