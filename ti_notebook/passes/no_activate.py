"""``ti.no_activate(x)``: writes to ``x`` in this kernel activate no sparse cell.

Taichi calls it a hint: the kernel promises that the cells it writes are active, and
skips the activation. Here the promise is not needed for correctness: a store (or
atomic) to a field named in ``KernelIR.no_activate`` runs only when every sparse cell on
its path is active; a write to an inactive cell is dropped (the cell stays inactive and
reads 0, as every inactive cell does), and an atomic there gives 0. The kernel saves
the activation's atomic; the test of the bits stays.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> block = ti.root.pointer(ti.i, 2)
    >>> block.dense(ti.i, 4).place(x)
    <ti.SNode dense>
    >>> x[1] = 5  # activates block 0
    >>> @ti.kernel
    ... def bump():
    ...     ti.no_activate(x)
    ...     for i in range(8):
    ...         x[i] += 1
    >>> bump()
    >>> x.to_numpy().tolist(), ti.is_active(block, 1)
    ([1, 6, 1, 1, 0, 0, 0, 0], 0)
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.passes import plan_arith as arith


def store_if_active(
    kernel: KernelIR, stmt: ir.Stmt, ptr: ir.GlobalPtrStmt, users: dict | None = None
) -> None:
    """Moves ``stmt`` (a store or atomic through ``ptr``) under a test that the cells on
    ``ptr``'s path are active; an atomic's value becomes 0 when it did not run. ``users``
    (``transform.users_of`` the kernel, made once by the caller) spares a walk of the
    kernel per statement."""
    if users is None:
        users = transform.users_of(kernel.block.walk())
    layout = ptr.field.layout()
    emit = arith.Emitter(stmt)
    levels = [level for level in layout.levels if level.is_sparse]
    used = isinstance(stmt, ir.AtomicOpStmt) and bool(users.get(stmt.id))
    if used:  # the local is declared before the branch that stores into it
        result = emit(ir.AllocaStmt(stmt.dtype))
        emit(ir.LocalStoreStmt(result, emit.const(0, stmt.dtype)))
    guard = emit(ir.IfStmt(arith.is_active(emit, layout, ptr.indices, levels)))
    if used:
        value = transform.insert_after(stmt, ir.LocalLoadStmt(result))
        value.pos = stmt.pos
        transform.replace_in_users(users, stmt, value)
    transform.remove(stmt)
    guard.true_block.append(stmt)
    if used:
        keep = ir.LocalStoreStmt(result, stmt)
        keep.pos = stmt.pos
        guard.true_block.append(keep)
