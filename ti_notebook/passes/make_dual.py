"""Forward-mode autodiff: the kernel computes each float value's dual beside it.

What ``ti.ad.FwdMode`` runs: the kernel itself, with every float statement followed by
its dual (``∑ ∂s/∂operand · dual(operand)``, ``ad_rules.partials``). A field read
also reads its ``.dual`` (zero for fields declared without ``needs_dual``), a store or
an atomic add writes the dual beside the value, and each float local has a dual local.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
    >>> x = ti.field(ti.f64, shape=(), needs_dual=True)
    >>> y = ti.field(ti.f64, shape=(), needs_dual=True)
    >>> @ti.kernel
    ... def cube():
    ...     y[None] = x[None] ** 3
    >>> x[None] = 2.0
    >>> with ti.ad.FwdMode(loss=y, param=x):
    ...     cube()
    >>> y[None], y.dual[None]
    (8.0, 12.0)
"""

from __future__ import annotations

from ti_notebook.errors import TiNotImplementedError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import ad_local_atomics
from ti_notebook.passes.ad_rules import Math, differentiable, partials


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if options.autodiff != "forward":
        return False
    ad_local_atomics.spell_out(kernel.block)
    _Dual(kernel).block(kernel.block)
    return True


class _Dual:
    def __init__(self, kernel: KernelIR) -> None:
        self.kernel = kernel
        self.duals: dict[int, ir.Stmt] = {}  # value id -> its dual; local id -> dual local

    def block(self, block: ir.Block) -> None:
        for stmt in list(block.stmts):
            for child in stmt.blocks():
                self.block(child)
            made = ir.Block()
            self.stmt(stmt, Math(made, stmt.pos))
            at = block.index(stmt) + 1
            for k, new in enumerate(made.stmts):
                block.insert(at + k, new)

    def dual(self, stmt: ir.Stmt, m: Math) -> ir.Stmt:
        found = self.duals.get(stmt.id)
        return found if found is not None else m.const(0.0, stmt.dtype)

    def stmt(self, stmt: ir.Stmt, m: Math) -> None:
        if isinstance(stmt, ir.AllocaStmt) and differentiable(stmt):
            local = self.duals[stmt.id] = m.emit(ir.AllocaStmt(stmt.dtype, f"{stmt.name}_dual"))
            m.emit(ir.LocalStoreStmt(local, m.const(0.0, stmt.dtype)))
        elif isinstance(stmt, ir.LocalLoadStmt) and stmt.alloca.id in self.duals:
            self.duals[stmt.id] = m.emit(ir.LocalLoadStmt(self.duals[stmt.alloca.id]))
        elif isinstance(stmt, ir.LocalStoreStmt) and stmt.alloca.id in self.duals:
            m.emit(ir.LocalStoreStmt(self.duals[stmt.alloca.id], self.dual(stmt.value, m)))
        elif isinstance(stmt, ir.GlobalLoadStmt):
            ptr = self.dual_pointer(stmt.ptr, m)
            if ptr is not None:
                self.duals[stmt.id] = m.emit(ir.GlobalLoadStmt(ptr))
        elif isinstance(stmt, ir.GlobalStoreStmt):
            ptr = self.dual_pointer(stmt.ptr, m)
            if ptr is not None:
                m.emit(ir.GlobalStoreStmt(ptr, self.dual(stmt.value, m)))
        elif isinstance(stmt, ir.AtomicOpStmt):
            self.atomic(stmt, m)
        elif differentiable(stmt) and not isinstance(stmt, (ir.ConstStmt, ir.ArgLoadStmt)):
            total = None
            for operand, factor in partials(stmt, lambda s: s, m):
                if operand.id not in self.duals:
                    continue
                term = m.scale(self.duals[operand.id], factor)
                if term.dtype is not stmt.dtype:
                    term = m.emit(ir.CastStmt(term, stmt.dtype))
                total = term if total is None else m.bin("add", total, term)
            if total is not None:
                self.duals[stmt.id] = total

    def atomic(self, stmt: ir.AtomicOpStmt, m: Math) -> None:
        if stmt.value.id not in self.duals:
            return
        global_extreme = stmt.op in ("max", "min") and not isinstance(stmt.dest, ir.AllocaStmt)
        if global_extreme and self.dual_pointer(stmt.dest, m) is not None:
            # which thread's value wins is known only when the kernel ends
            raise TiNotImplementedError(
                f"kernel '{self.kernel.name}': forward mode has no derivative for an "
                f"atomic {stmt.op} into a field with a dual",
                stmt.pos,
                hint="differentiate it in reverse mode (ti.ad.Tape), where the value "
                "that ended in the field takes the derivative",
            )
        if stmt.op not in ("add", "sub"):
            return
        if isinstance(stmt.dest, ir.AllocaStmt):
            target = self.duals.get(stmt.dest.id)
        else:
            target = self.dual_pointer(stmt.dest, m)
        if target is not None:
            m.emit(ir.AtomicOpStmt(stmt.op, target, self.duals[stmt.value.id]))

    def dual_pointer(self, ptr: ir.Stmt, m: Math) -> ir.Stmt | None:
        if not ptr.dtype.is_float:
            return None
        if isinstance(ptr, ir.GlobalPtrStmt) and ptr.field.dual is not None:
            return m.emit(ir.GlobalPtrStmt(ptr.field.dual, list(ptr.indices)))
        if isinstance(ptr, ir.ExternalPtrStmt):
            slot = self.kernel.adjoint_args.get(("dual", ptr.arg_index))
            if slot is not None:
                return m.emit(ir.ExternalPtrStmt(slot, ptr.ndim, list(ptr.indices), ptr.dtype))
        return None
