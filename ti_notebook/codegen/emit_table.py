"""The tables from statement type to emit function, and the check that they are whole.

Each statement emitter class (the shared body emitter ``FunctionEmitter`` in
``codegen/function.py``, the NVPTX one in ``codegen/nvptx/emitter.py``) has an
``EMITTERS`` dict: statement class -> ``emit(emitter, stmt)`` (an emitter method, or a
function of one of the emitter's parts' modules), which returns the LLVM value the
statement defines, or None. The table is written out where the emitter is defined, so
what runs for a statement is read there, not found by name at run time.

Passes lower some statement kinds away before code generation
(:data:`LOWERED_BEFORE_CODEGEN`); every other statement kind must have an emit function,
and :func:`checked` says which one has none when the emitter's module is imported, not
when a kernel first uses it.

    >>> from ti_notebook.ir import nodes as ir
    >>> try:
    ...     checked({ir.ConstStmt: print}, "OnlyConsts", [ir.ConstStmt, ir.ClockStmt])
    ... except TypeError as error:
    ...     print(str(error).split(":")[0])
    OnlyConsts has no emit function for ClockStmt
    >>> from ti_notebook.codegen.function import BODY_EMITTERS
    >>> sorted(t.__name__ for t in statement_types() if t not in BODY_EMITTERS)
    ['BlockLocalStmt', 'GlobalPtrStmt', 'LoopLinearIndexStmt', 'OffloadedStmt', 'SNodeOpStmt']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ti_notebook.ir import nodes as ir

EmitFunction = Callable  # (emitter, stmt) -> ll.Value | None
# a FunctionEmitter (codegen/function.py), as its parts name it: function.py imports the
# parts' modules (arithmetic, loops, rng, interrupts), which so cannot import it back
Emitter = Any

# statement kinds that never reach an emitter, and what takes them away
LOWERED_BEFORE_CODEGEN: dict[type, str] = {
    ir.OffloadedStmt: "a task: the module generator makes a function or kernel of each",
    ir.GlobalPtrStmt: "lower_access turns a field access into address arithmetic",
    ir.SNodeOpStmt: "lower_sparse turns activate, deactivate, is_active and length into IR",
    ir.BlockLocalStmt: "make_block_local turns the marker into buffers and their loops",
    ir.LoopLinearIndexStmt: "lower_struct_for computes a cell's number from the row loop",
}


def statement_types() -> list[type]:
    """Every statement class of the IR (``ir.Stmt``'s subclasses, at any depth)."""
    found, todo = [], [ir.Stmt]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def checked(
    table: dict[type, EmitFunction], emitter: str, types: Iterable[type] | None = None
) -> dict[type, EmitFunction]:
    """``table``, after checking that every statement class of ``types`` (by default
    all of them) not lowered before code generation has an emit function in it; raises
    TypeError naming the first one without."""
    for stmt_type in statement_types() if types is None else types:
        if stmt_type not in table and stmt_type not in LOWERED_BEFORE_CODEGEN:
            name = stmt_type.__name__
            raise TypeError(
                f"{emitter} has no emit function for {name}: add one to its EMITTERS "
                f"table, or list {name} in codegen/emit_table.py's LOWERED_BEFORE_CODEGEN "
                "with the pass that removes it"
            )
    return table
