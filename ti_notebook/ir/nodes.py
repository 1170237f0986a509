"""The ti_notebook IR: statements in nested blocks, each value a statement.

Structured like Taichi's CHI IR: a kernel is a :class:`Block`; control flow owns
child blocks; a statement's operands are earlier statements. After the offload pass
the kernel's top block holds only :class:`OffloadedStmt` tasks.

This module gathers every statement kind (``stmt.py``, ``value_stmts.py``,
``control_stmts.py``, ``memory_stmts.py``) under one name: passes import it as ``ir``.

    >>> from ti_notebook.ir.types import i32
    >>> b = Block()
    >>> one = b.append(ConstStmt(1, i32))
    >>> two = b.append(BinaryOpStmt("add", one, one, i32))
    >>> two.operands() == [one, one]
    True
"""

from __future__ import annotations

from ti_notebook.ir.control_stmts import *  # noqa: F403
from ti_notebook.ir.memory_stmts import *  # noqa: F403
from ti_notebook.ir.stmt import Block, Stmt, owned_block
from ti_notebook.ir.value_stmts import *  # noqa: F403

__all__ = ["Block", "Stmt", "owned_block"]  # and every statement class, star-imported above
