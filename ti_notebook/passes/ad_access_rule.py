"""Taichi's global data access rule, checked when a Tape asks (``validation=True``).

A grad kernel recomputes a kernel's values from the fields as they are after the
kernel ran; a field the kernel both writes and reads is read back changed, and its
gradient is wrong without any sign. The rule: a kernel that writes a field (a store
or an atomic) does not read it. :func:`check` names the field and the line that reads
it, and the line that writes it.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.refs import FieldRef
    >>> from ti_notebook.ir.types import f32
    >>> x = FieldRef("x", "field 'x'", f32, plan="x plan")
    >>> block = ir.Block()
    >>> ptr = block.append(ir.GlobalPtrStmt(x, []))
    >>> value = block.append(ir.GlobalLoadStmt(ptr))
    >>> _ = block.append(ir.GlobalStoreStmt(ptr, value))
    >>> try:
    ...     check("k", block)
    ... except RuntimeError as error:
    ...     print(error.message.split(" (")[0])
    kernel 'k' reads field 'x' and writes it too
"""

from __future__ import annotations

from ti_notebook.errors import TiRuntimeError
from ti_notebook.ir import nodes as ir


def check(kernel_name: str, block: ir.Block) -> None:
    """Raises at the first read of a field the kernel also writes (a field with a
    gradient, or any field: the rule is about the primal values)."""
    written: dict = {}
    read: dict = {}
    for stmt in block.walk():
        if isinstance(stmt, ir.GlobalStoreStmt) and isinstance(stmt.ptr, ir.GlobalPtrStmt):
            written.setdefault(stmt.ptr.field, stmt)
        elif isinstance(stmt, ir.AtomicOpStmt) and isinstance(stmt.dest, ir.GlobalPtrStmt):
            written.setdefault(stmt.dest.field, stmt)
        elif isinstance(stmt, ir.GlobalLoadStmt) and isinstance(stmt.ptr, ir.GlobalPtrStmt):
            read.setdefault(stmt.ptr.field, stmt)
    for field, load in read.items():
        store = written.get(field)
        if store is None or not field.dtype.is_float:
            continue
        where = f"line {store.pos.lineno}" if store.pos is not None else "elsewhere"
        raise TiRuntimeError(
            f"kernel '{kernel_name}' reads {field.label} and writes it too ({where}): "
            "the global data access rule of autodiff is broken, its gradient would be wrong",
            load.pos,
            hint="write the result into another field, or split the kernel in two "
            "(one reads, the next writes)",
        )
