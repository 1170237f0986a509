"""Copying a kernel's statements for the autodiff passes, and the copy's scopes.

``make_adjoint`` runs a loop body's forward code more than once (before its adjoint, and
again per reversed iteration), and ``make_dual`` writes a new kernel next to the old
one: both copy statements with their operands renamed through an :class:`Env`, a
chain of scopes from an original statement's id to its copy.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import f32
    >>> one = ir.ConstStmt(1.0, f32)
    >>> two = ir.BinaryOpStmt("add", one, one, f32)
    >>> env = Env()
    >>> env[one.id] = ir.ConstStmt(3.0, f32)
    >>> copy = clone(two, env)
    >>> copy.lhs.value, copy.id != two.id
    (3.0, True)
"""

from __future__ import annotations

import copy

from ti_notebook.errors import TiInternalError, TiNotImplementedError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import stmt as _stmt


class Env:
    """Original statement id → the statement that stands for it here; a scope falls back
    on the one it was opened in (a loop body's copy sees the copies made around it).

    >>> outer = Env()
    >>> outer[1] = "a"
    >>> inner = outer.child()
    >>> inner[2] = "b"
    >>> inner[1], inner[2], 2 in outer
    ('a', 'b', False)
    """

    def __init__(self, parent: Env | None = None) -> None:
        self.parent = parent
        self.values: dict = {}

    def child(self) -> Env:
        return Env(self)

    def __setitem__(self, key, value) -> None:
        self.values[key] = value

    def __contains__(self, key) -> bool:
        env = self
        while env is not None:
            if key in env.values:
                return True
            env = env.parent
        return False

    def get(self, key, default=None):
        env = self
        while env is not None:
            if key in env.values:
                return env.values[key]
            env = env.parent
        return default

    def __getitem__(self, key):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found


_MISSING = object()


class Unavailable:
    """Stands in ``Env`` for a value the copy does not compute (an atomic's old value in
    a grad kernel, which leaves atomics out); using it is the user's error, raised at
    the use."""

    def __init__(self, message: str, hint: str) -> None:
        self.message, self.hint = message, hint


def renamed(value, env: Env, pos=None):
    """``value`` (an operand: a statement, a list of them, or anything else) with its
    statements replaced by their copies in ``env``."""
    if isinstance(value, ir.Stmt):
        found = env.get(value.id)
        if isinstance(found, Unavailable):
            raise TiNotImplementedError(found.message, pos, found.hint)
        if found is None:
            raise TiInternalError(
                f"autodiff: statement {value!r} is used where its value is not available",
                pos,
                hint="this is a ti_notebook bug; please report it with this kernel",
            )
        return found
    if isinstance(value, list):
        return [renamed(v, env, pos) for v in value]
    return value


def clone(stmt: ir.Stmt, env: Env) -> ir.Stmt:
    """A copy of the value statement ``stmt`` (no child blocks) reading the copies of its
    operands; registered in ``env`` under ``stmt``'s id."""
    made = copy.copy(stmt)
    made.id = next(_stmt._ids)
    made.parent = None
    for name in stmt.operand_names:
        setattr(made, name, renamed(getattr(stmt, name), env, stmt.pos))
    loop = getattr(stmt, "loop", None)
    if isinstance(loop, ir.Stmt):
        made.loop = renamed(loop, env, stmt.pos)
    env[stmt.id] = made
    return made


class Emitter:
    """Appends statements to a block, each at a source position (the original's)."""

    def __init__(self, block: ir.Block) -> None:
        self.block = block

    def __call__(self, stmt: ir.Stmt, pos=None) -> ir.Stmt:
        if stmt.pos is None:
            stmt.pos = pos
        return self.block.append(stmt)
