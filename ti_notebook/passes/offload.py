"""Offload: the kernel's top level becomes a list of tasks.

Each outermost parallel for becomes a ``range_for`` or ``struct_for`` task; runs of
other top-level statements (including serialized loops) become ``serial`` tasks. A
parallel task compiles to its own function, so values it reads from the serial code
around it move through memory: constants and argument reads are re-created inside the
task, top-level locals it touches become kernel temporaries (``TempPtrStmt``), and
other values are spilled to a temporary once and loaded in the task's prologue.
"""

from __future__ import annotations

import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.analysis import task_description

_CLONABLE = (ir.ConstStmt, ir.ArgLoadStmt, ir.ExternalShapeStmt)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    tasks = _split_into_tasks(kernel.block)
    kernel.block.stmts = []
    for task in tasks:
        kernel.block.append(task)
    parallel = [t for t in tasks if t.kind != "serial"]
    _move_shared_locals(kernel, parallel)
    for task in parallel:
        _import_outside_values(kernel, task)
    kernel.report["tasks"] = [_describe(t) for t in tasks]
    return True


def _split_into_tasks(root: ir.Block) -> list[ir.OffloadedStmt]:
    tasks: list[ir.OffloadedStmt] = []
    serial: ir.OffloadedStmt | None = None
    for stmt in list(root.stmts):
        is_loop = isinstance(stmt, (ir.RangeForStmt, ir.StructForStmt))
        if is_loop and not stmt.config.get("serialize", False):
            serial = None
            kind = "range_for" if isinstance(stmt, ir.RangeForStmt) else "struct_for"
            task = ir.OffloadedStmt(kind, stmt.config)
            task.pos = stmt.pos
            task.loop = stmt
            if kind == "range_for":
                task.begin, task.end = stmt.begin, stmt.end
            else:
                task.field = stmt.field
                task.begin, task.end = 0, math.prod(stmt.field.shape)
            for inner in list(stmt.body.stmts):
                task.body.append(inner)
            stmt.body.stmts = []
            tasks.append(task)
        else:
            if serial is None:
                serial = ir.OffloadedStmt("serial")
                tasks.append(serial)
            serial.body.append(stmt)
    return tasks


def _move_shared_locals(kernel: KernelIR, parallel: list[ir.OffloadedStmt]) -> None:
    """Top-level locals used inside a parallel task live in the temporaries buffer."""
    shared: dict[int, ir.AllocaStmt] = {}
    for task in parallel:
        for stmt in task.walk_all():
            for operand in stmt.operands():
                if isinstance(operand, ir.AllocaStmt) and not transform.contains(task, operand):
                    shared[operand.id] = operand
    move_locals_to_temps(kernel, list(shared.values()))


def move_local_to_temp(kernel: KernelIR, alloca: ir.AllocaStmt) -> ir.TempPtrStmt:
    """``alloca`` becomes a kernel temporary: loads and stores of it become global ones."""
    return move_locals_to_temps(kernel, [alloca])[alloca.id]


def move_locals_to_temps(kernel: KernelIR, allocas: list[ir.AllocaStmt]) -> dict:
    """Each of ``allocas`` becomes a kernel temporary (alloca id -> its TempPtrStmt), their
    loads and stores rewritten in one walk of the kernel for all of them."""
    temps: dict[int, ir.TempPtrStmt] = {}
    for alloca in allocas:
        temp = temps[alloca.id] = ir.TempPtrStmt(kernel.new_temp(alloca.dtype.size), alloca.dtype)
        temp.pos = alloca.pos
        transform.replace_stmt(alloca, temp)
    if temps:
        _rewrite_local_accesses(kernel.block, temps)
    return temps


def _rewrite_local_accesses(root: ir.Block, temps: dict[int, ir.TempPtrStmt]) -> None:
    new_for: dict[int, ir.Stmt] = {}  # every load's uses rewritten in one walk
    for stmt in list(root.walk()):
        if isinstance(stmt, ir.LocalLoadStmt) and stmt.alloca.id in temps:
            new = ir.GlobalLoadStmt(temps[stmt.alloca.id])
        elif isinstance(stmt, ir.LocalStoreStmt) and stmt.alloca.id in temps:
            new = ir.GlobalStoreStmt(temps[stmt.alloca.id], stmt.value)
        else:
            if isinstance(stmt, ir.AtomicOpStmt) and stmt.dest.id in temps:
                stmt.dest = temps[stmt.dest.id]
            continue
        new.pos = stmt.pos
        transform.replace_stmt(stmt, new)
        new_for[stmt.id] = new
    transform.replace_all_uses(root, new_for)
    for task in root.stmts:  # the loops that tasks came from are outside the tree
        for operand in task.loop.operands() if task.loop is not None else ():
            if operand.id in new_for:
                task.loop.replace_operand(operand, new_for[operand.id])


def _import_outside_values(kernel: KernelIR, task: ir.OffloadedStmt) -> None:
    imported: dict[int, ir.Stmt] = {}

    def local_copy(value: ir.Stmt) -> ir.Stmt:
        if value.id in imported:
            return imported[value.id]
        if isinstance(value, (_CLONABLE, ir.TempPtrStmt)):
            copy = _clone(value)
            task.prologue.append(copy)
        else:
            offset = kernel.new_temp(value.dtype.size)
            store_ptr = ir.TempPtrStmt(offset, value.dtype)
            transform.insert_after(value, store_ptr)
            transform.insert_after(store_ptr, ir.GlobalStoreStmt(store_ptr, value))
            load_ptr = task.prologue.append(ir.TempPtrStmt(offset, value.dtype))
            copy = task.prologue.append(ir.GlobalLoadStmt(load_ptr))
        copy.pos = value.pos
        imported[value.id] = copy
        return copy

    for stmt in list(task.walk_all()):
        for operand in stmt.operands():
            if not transform.contains(task, operand):
                stmt.replace_operand(operand, local_copy(operand))
    loop = task.loop
    if isinstance(loop, ir.RangeForStmt) and loop.extents:
        task.extents = [local_copy(e) if not isinstance(e, int) else e for e in loop.extents]
        task.starts = [local_copy(s) if not isinstance(s, int) else s for s in loop.starts]


def _clone(value: ir.Stmt) -> ir.Stmt:
    if isinstance(value, ir.ConstStmt):
        return ir.ConstStmt(value.value, value.dtype)
    if isinstance(value, ir.ArgLoadStmt):
        return ir.ArgLoadStmt(value.arg_index, value.dtype)
    if isinstance(value, ir.ExternalShapeStmt):
        return ir.ExternalShapeStmt(value.arg_index, value.axis, value.dtype)
    return ir.TempPtrStmt(value.offset, value.dtype)


def _describe(task: ir.OffloadedStmt) -> dict:
    info = {"kind": task.kind, "loop_config": dict(task.config)}
    if task.pos is not None:
        info["line"] = task.pos.lineno
    if task.kind == "struct_for":
        info["field"] = task.field.name
        # it visits active cells only: its range is the cells it may visit, at most
        levels = [*getattr(task.field, "path", ()), task.field]
        if any(getattr(level, "kind", "dense") != "dense" for level in levels):
            info["sparse"] = True
    if task.kind != "serial":  # [begin, end) when known while compiling, else None
        info["range"] = (_known(task.begin), _known(task.end))
        formula = (range_formula(task.begin), range_formula(task.end))
        if None not in formula and info["range"] != formula:
            info["range_formula"] = formula
    info["description"] = _plain_words(task, info.get("range"))
    return info


def _plain_words(task: ir.OffloadedStmt, span: tuple | None) -> str:
    """What the task does, for people (``passes/analysis/task_description.py``)."""
    if task.kind == "serial":
        return task_description.describe("serial")
    if task.kind == "struct_for":
        levels, sparse = task_description.levels_of(task.field)
        subject = task_description.subject_of(task.field)
        return task_description.describe(
            "struct_for", subject=subject, levels=levels, sparse=sparse
        )
    loop = task_description.loop_header(task.pos.line_text) if task.pos is not None else None
    return task_description.describe("range_for", loop=loop, span=span)


# integer operations a loop bound is computed with (ndrange products, offsets, clamps)
_FORMULA_OPS = frozenset({"add", "sub", "mul", "floordiv", "min", "max"})


def range_formula(bound, depth: int = 0):
    """A loop bound as data, to evaluate with a call's arguments (``ti.profiler``'s
    iteration counts): an int, ``("arg", k)``, ``("shape", k, axis)`` or
    ``(op, a, b)``; None when it depends on anything else (a field, a loop).

        >>> from ti_notebook.ir.types import i32
        >>> n = ir.ArgLoadStmt(1, i32)
        >>> range_formula(ir.BinaryOpStmt("mul", n, ir.ConstStmt(4, i32), i32))
        ('mul', ('arg', 1), 4)
    """
    if isinstance(bound, int):
        return bound
    if depth > 16:  # a bound is a short expression; a deep one is not worth describing
        return None
    if isinstance(bound, ir.ConstStmt):
        return int(bound.value)
    if isinstance(bound, ir.ArgLoadStmt):
        return ("arg", bound.arg_index)
    if isinstance(bound, ir.ExternalShapeStmt):
        return ("shape", bound.arg_index, bound.axis)
    if isinstance(bound, ir.CastStmt) and not getattr(bound, "bitcast", False):
        return range_formula(bound.operand, depth + 1)
    if isinstance(bound, ir.BinaryOpStmt) and bound.op in _FORMULA_OPS:
        lhs, rhs = range_formula(bound.lhs, depth + 1), range_formula(bound.rhs, depth + 1)
        return None if lhs is None or rhs is None else (bound.op, lhs, rhs)
    return None


def _known(bound) -> int | None:
    if isinstance(bound, int):
        return bound
    return bound.value if isinstance(bound, ir.ConstStmt) else None
