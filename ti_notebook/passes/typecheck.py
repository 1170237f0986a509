"""Type check: every operation's operands have the types its result needs.

The frontend types statements as it makes them (Taichi's promotion rules are in
``frontend/builder.py``); this pass checks the invariants the later passes and codegen
rely on, so a compiler bug shows as a clear internal error rather than bad code.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import i32
    >>> k = KernelIR("f", ir.Block())
    >>> one = k.block.append(ir.ConstStmt(1, i32))
    >>> _ = k.block.append(ir.BinaryOpStmt("add", one, one, i32))
    >>> run(k, None, None)
    False
"""

from __future__ import annotations

from ti_notebook.errors import TiTypeError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or"}


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    for stmt in kernel.block.walk():
        problem = _problem(stmt)
        if problem:
            raise TiTypeError(
                f"internal type error in kernel '{kernel.name}': {problem}",
                stmt.pos,
                hint="this is a ti_notebook bug; please report it with this kernel",
            )
    return False


def _problem(stmt: ir.Stmt) -> str:
    if isinstance(stmt, ir.BinaryOpStmt):
        if stmt.lhs.dtype is not stmt.rhs.dtype:
            return f"{stmt.op} of {stmt.lhs.dtype} and {stmt.rhs.dtype}"
        if stmt.op not in _COMPARE and stmt.dtype is not stmt.lhs.dtype:
            return f"{stmt.op} gives {stmt.dtype} from {stmt.lhs.dtype}"
    elif isinstance(stmt, (ir.LocalStoreStmt,)):
        if stmt.value.dtype is not stmt.alloca.dtype:
            return f"storing {stmt.value.dtype} into a {stmt.alloca.dtype} local"
    elif isinstance(stmt, ir.GlobalStoreStmt):
        if stmt.value.dtype is not stmt.ptr.dtype:
            return f"storing {stmt.value.dtype} through a {stmt.ptr.dtype} pointer"
    elif isinstance(stmt, ir.AtomicOpStmt):
        if stmt.value.dtype is not stmt.dest.dtype:
            return f"atomic {stmt.op} of {stmt.value.dtype} into {stmt.dest.dtype}"
    elif isinstance(stmt, ir.SelectStmt) and stmt.true_value.dtype is not stmt.false_value.dtype:
        return "select between different types"
    return ""
