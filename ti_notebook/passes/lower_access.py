"""Lower field accesses to address arithmetic from the fields' memory plans.

``x[i, j]`` becomes ``root(tree) + offset + i*stride0 + j*stride1`` in i64 (with one
term per level for nested layouts), the numbers read from ``x.layout()`` only
(DESIGN.md section 4); ``lower_sparse`` ran before and added what sparse nodes need.
With ``debug=True`` each field and ndarray access first checks its indices against the
shape; a failed check stops the launch and raises
:class:`~ti_notebook.errors.TiIndexError` naming the
field, the index and the shape.
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.lang import types
from ti_notebook.lang.config import Config
from ti_notebook.passes import plan_arith as arith


def run(kernel: KernelIR, config: Config) -> bool:
    lowered: dict[int, ir.Stmt] = {}
    for stmt in list(kernel.block.walk()):
        if config.debug and isinstance(stmt, ir.ExternalPtrStmt):
            _check_external(kernel, stmt)
        if isinstance(stmt, ir.GlobalPtrStmt):
            lowered[stmt.id] = _lower(kernel, stmt, config.debug)
    if lowered:
        for stmt in kernel.block.walk():
            for operand in stmt.operands():
                if operand.id in lowered:
                    stmt.replace_operand(operand, lowered[operand.id])
    return bool(lowered)


def _emit(anchor: ir.Stmt, stmt: ir.Stmt) -> ir.Stmt:
    stmt.pos = anchor.pos
    return transform.insert_before(anchor, stmt)


def _lower(kernel: KernelIR, ptr: ir.GlobalPtrStmt, debug: bool) -> ir.Stmt:
    field = ptr.field
    plan = field.layout()
    if debug and ptr.indices:
        shape = [_emit(ptr, ir.ConstStmt(n, types.i32)) for n in plan.shape]
        _bounds_check(kernel, ptr, ptr.indices, shape, f"field '{field.name}'")
    emit = arith.Emitter(ptr)
    offset = arith.element_offset(emit, plan, ptr.indices)
    root = emit(ir.RootPtrStmt(plan.tree_id))
    address = ir.PtrOffsetStmt(root, offset, field.dtype)
    address.pos = ptr.pos
    block = ptr.parent
    block.stmts[block.stmts.index(ptr)] = address
    address.parent = block
    return address


def _check_external(kernel: KernelIR, ptr: ir.ExternalPtrStmt) -> None:
    shape = [_emit(ptr, ir.ExternalShapeStmt(ptr.arg_index, a, types.i32)) for a in range(ptr.ndim)]
    _bounds_check(kernel, ptr, ptr.indices, shape, f"ndarray argument {ptr.arg_index}")


def _bounds_check(kernel, anchor, indices, shape, what: str) -> None:
    ok = None
    for index, extent in zip(indices, shape, strict=True):
        zero = _emit(anchor, ir.ConstStmt(0, types.i32))
        low = _emit(anchor, ir.BinaryOpStmt("ge", index, zero, types.i32))
        high = _emit(anchor, ir.BinaryOpStmt("lt", index, extent, types.i32))
        both = _emit(anchor, ir.BinaryOpStmt("logical_and", low, high, types.i32))
        ok = (
            both
            if ok is None
            else _emit(anchor, ir.BinaryOpStmt("logical_and", ok, both, types.i32))
        )
    message = f"index out of range for {what}"
    _emit(anchor, ir.AssertStmt(ok, message, [*indices, *shape], kind="bounds"))
