"""Values that cross tasks move through the temporaries buffer, where tasks are kernels.

On the CPU the serial tasks run inline in one entry function, so a later task may read
what an earlier serial task computed (``ir/verify.py`` allows it), and a parallel task's
``begin``/``end`` are values of that function. Where every task is a kernel of its own
(``capabilities.tasks_are_kernels``: CUDA), nothing survives from one kernel to the
next but memory, so this pass, for each task:

- turns a local (``AllocaStmt``) that another task reads or writes into a kernel
  temporary (``TempPtrStmt``), as ``offload`` does for locals of parallel tasks;
- re-computes at its start what it reads from another task when that is arithmetic on
  constants, arguments and ndarray shapes (an ndrange's length, a loop bound), so a
  serial task that only computed such values is left empty and goes (no one-thread
  kernel launch for it), and spills any other such value to a temporary right after
  the value is computed, loading it back at its start;
- for a parallel task, does the same for ``begin`` and ``end`` (and an ndrange's
  ``extents`` and ``starts``): they become values of its prologue, where the kernel
  computes them before its grid-stride loop.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.capabilities import Capabilities
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import i32
    >>> k = KernelIR("f", ir.Block())
    >>> serial = k.block.append(ir.OffloadedStmt("serial"))
    >>> n = serial.body.append(ir.ArgLoadStmt(0, i32))
    >>> doubled = serial.body.append(ir.BinaryOpStmt("add", n, n, i32))
    >>> loop = k.block.append(ir.OffloadedStmt("range_for"))
    >>> loop.begin, loop.end = 0, doubled
    >>> run(k, None, Capabilities("cuda", 1024, 4, tasks_are_kernels=True))
    True
    >>> [type(s).__name__ for s in loop.prologue.stmts], k.temps_size
    (['ArgLoadStmt', 'BinaryOpStmt'], 0)
    >>> loop.end is loop.prologue.stmts[1]
    True
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.offload import move_locals_to_temps

_CLONABLE = (ir.ConstStmt, ir.ArgLoadStmt, ir.ExternalShapeStmt, ir.TempPtrStmt)
_ARITHMETIC = (ir.BinaryOpStmt, ir.UnaryOpStmt, ir.CastStmt, ir.SelectStmt)
_MAX_DEPTH = 16  # deeper expressions are spilled: recomputing them would cost more


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not capabilities.tasks_are_kernels:
        return False
    changed = _move_shared_locals(kernel)
    changed |= _forward_temporaries(kernel)
    owner = _owners(kernel)
    spilled: dict[int, int] = {}  # value id -> its temporary, shared by the tasks reading it
    for task in kernel.tasks():
        changed |= _import_values(kernel, task, owner, spilled)
    return changed


def _owners(kernel: KernelIR) -> dict[int, ir.OffloadedStmt]:
    """Statement id → the task holding it."""
    return {stmt.id: task for task in kernel.tasks() for stmt in task.walk_all()}


def _move_shared_locals(kernel: KernelIR) -> bool:
    owner = _owners(kernel)
    shared: dict[int, ir.AllocaStmt] = {}
    for task in kernel.tasks():
        for stmt in task.walk_all():
            for operand in stmt.operands():
                crosses = owner.get(operand.id) not in (task, None)
                if isinstance(operand, ir.AllocaStmt) and crosses:
                    shared[operand.id] = operand
    move_locals_to_temps(kernel, list(shared.values()))  # one walk for all of them
    return bool(shared)


def _forward_temporaries(kernel: KernelIR) -> bool:
    """A temporary that serial code stores once and only later tasks load (``offload``
    spills an ndrange's extents so) is read as the stored value itself where that value
    can be recomputed: the store goes, and the loads become the value."""
    owner = _owners(kernel)
    stores: dict[int, list[ir.GlobalStoreStmt]] = {}
    loads: dict[int, list[ir.GlobalLoadStmt]] = {}
    other_uses: set[int] = set()
    for stmt in kernel.block.walk():
        for operand in stmt.operands():
            if not isinstance(operand, ir.TempPtrStmt):
                continue
            if isinstance(stmt, ir.GlobalStoreStmt) and stmt.ptr is operand:
                stores.setdefault(operand.offset, []).append(stmt)
            elif isinstance(stmt, ir.GlobalLoadStmt):
                loads.setdefault(operand.offset, []).append(stmt)
            else:
                other_uses.add(operand.offset)
    new_for: dict[int, ir.Stmt] = {}  # each load -> the stored value, in one walk
    gone: list[ir.Stmt] = []
    for offset, [store] in ((k, v) for k, v in stores.items() if len(v) == 1):
        task = owner[store.id]
        top_level = task.kind == "serial" and store.parent is task.body
        readers = loads.get(offset, [])
        if offset in other_uses or not top_level or not _recomputable(store.value):
            continue
        if any(owner[load.id] is task for load in readers):
            continue
        for load in readers:
            new_for[load.id] = store.value
        gone.extend(readers)
        gone.append(store)
    transform.replace_all_uses(kernel.block, new_for)
    for task in kernel.tasks():  # a task's operands are not under its own blocks
        for operand in task.operands():
            if operand.id in new_for:
                task.replace_operand(operand, new_for[operand.id])
    transform.remove_all(gone)
    return bool(gone)


def _import_values(
    kernel: KernelIR, task: ir.OffloadedStmt, owner: dict, spilled: dict[int, int]
) -> bool:
    """Gives ``task`` its own copy of every value it reads from another task."""
    start = task.body if task.kind == "serial" else task.prologue
    copies: dict[int, ir.Stmt] = {}
    position = [0]  # copies go to the start of ``start``, in the order they are made

    def place(stmt: ir.Stmt, pos) -> ir.Stmt:
        stmt.pos = pos
        start.insert(position[0], stmt)
        position[0] += 1
        return stmt

    def local_copy(value: ir.Stmt) -> ir.Stmt:
        if value.id not in copies:
            if _recomputable(value):
                operands = [local_copy(operand) for operand in value.operands()]
                copies[value.id] = place(_clone(value, operands), value.pos)
            else:
                if value.id not in spilled:
                    offset = spilled[value.id] = kernel.new_temp(value.dtype.size)
                    store_ptr = transform.insert_after(value, ir.TempPtrStmt(offset, value.dtype))
                    transform.insert_after(store_ptr, ir.GlobalStoreStmt(store_ptr, value))
                offset = spilled[value.id]
                load_ptr = place(ir.TempPtrStmt(offset, value.dtype), value.pos)
                copies[value.id] = place(ir.GlobalLoadStmt(load_ptr), value.pos)
        return copies[value.id]

    def foreign(value) -> bool:
        return isinstance(value, ir.Stmt) and owner.get(value.id) is not task

    for stmt in list(task.walk_all()):
        for operand in stmt.operands():
            if foreign(operand):
                stmt.replace_operand(operand, local_copy(operand))
    for operand in task.operands():  # begin, end, and an ndrange's extents and starts
        if foreign(operand):
            task.replace_operand(operand, local_copy(operand))
    return bool(copies)


def _recomputable(value: ir.Stmt, depth: int = 0) -> bool:
    """Pure arithmetic on values any task can make (not loads: memory may change)."""
    if isinstance(value, _CLONABLE):
        return True
    if not isinstance(value, _ARITHMETIC) or depth > _MAX_DEPTH:
        return False
    return all(_recomputable(operand, depth + 1) for operand in value.operands())


def _clone(value: ir.Stmt, operands: list[ir.Stmt]) -> ir.Stmt:
    """A copy of ``value`` reading ``operands`` (copies of its own, in order)."""
    if isinstance(value, ir.ConstStmt):
        return ir.ConstStmt(value.value, value.dtype)
    if isinstance(value, ir.ArgLoadStmt):
        return ir.ArgLoadStmt(value.arg_index, value.dtype)
    if isinstance(value, ir.ExternalShapeStmt):
        return ir.ExternalShapeStmt(value.arg_index, value.axis, value.dtype)
    if isinstance(value, ir.TempPtrStmt):
        return ir.TempPtrStmt(value.offset, value.dtype)
    if isinstance(value, ir.BinaryOpStmt):
        return ir.BinaryOpStmt(value.op, *operands, value.dtype, value.no_wrap)
    if isinstance(value, ir.UnaryOpStmt):
        return ir.UnaryOpStmt(value.op, *operands, value.dtype)
    if isinstance(value, ir.CastStmt):
        return ir.CastStmt(*operands, value.dtype, value.bitcast)
    return ir.SelectStmt(*operands, value.dtype)
