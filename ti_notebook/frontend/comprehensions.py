"""Comprehensions in kernels: unrolled while compiling, as ``ti.static`` loops are.

``[expr for x in items if cond]`` runs its loops at compile time, like Taichi: the
items must be known then (``range(3)``, ``ti.static(range(n))`` with ``n`` a Python
value, a tuple or list, the components of a kernel vector, a matrix's rows), and so
must every ``if``. ``expr`` itself may be any kernel value (``x[i]``, ``ti.random()``):
the result is a Python list of them, which ``ti.Vector(...)``, ``ti.Matrix(...)``,
``sum``, ``min``/``max``, ``all``/``any`` and indexing take. Nested comprehensions and
several ``for`` clauses work as in Python; a generator expression is a list made at
once, and a dict comprehension a dict (for ``**`` unpacking).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=4)
    >>> x.from_numpy(__import__("numpy").array([1, 2, 3, 4], "float32"))
    >>> @ti.kernel
    ... def doubled_tail() -> ti.f32:
    ...     v = ti.Vector([x[i] * 2 for i in range(4) if i > 0])
    ...     m = ti.Matrix([[r * c for c in range(2)] for r in range(2)])
    ...     return v.sum() + m[1, 1] + sum(c for c in v)
    >>> doubled_tail()
    37.0
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import unpack
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang.field import Field

HANDLERS = Handlers()
_KINDS = {ast.ListComp: "list comprehension", ast.GeneratorExp: "generator expression"}
_KINDS[ast.DictComp] = "dict comprehension"
_KEYS = "a dict's keys must be known at compile time"


@HANDLERS.expression(ast.ListComp, ast.GeneratorExp)
def _list_comprehension(ctx: TraceContext, node: ast.ListComp | ast.GeneratorExp) -> list:
    result: list = []
    _generate(ctx, node, 0, lambda: result.append(ctx.expr(node.elt)))
    return result


@HANDLERS.expression(ast.DictComp)
def _dict_comprehension(ctx: TraceContext, node: ast.DictComp) -> dict:
    result: dict = {}

    def add() -> None:
        key = ctx.expr(node.key)
        if isinstance(key, (ir.Stmt, Vector)):
            raise ctx.error(TiTypeError, node.key, _KEYS, "use strings or numbers as keys")
        result[key] = ctx.expr(node.value)

    _generate(ctx, node, 0, add)
    return result


def _generate(ctx: TraceContext, node: ast.expr, level: int, produce) -> None:
    """Runs ``produce`` once per combination of the ``for`` clauses from ``level`` on,
    each in a scope where the clause's names are bound (and gone afterwards)."""
    if level == len(node.generators):
        produce()
        return
    clause = node.generators[level]
    if clause.is_async:
        raise ctx.unsupported(clause.iter, "'async for'")
    for item in _items(ctx, node, clause.iter):
        with ctx.scope(remember=False):
            _bind(ctx, clause.target, item)
            if all(_condition(ctx, node, test) for test in clause.ifs):
                _generate(ctx, node, level + 1, produce)


def _items(ctx: TraceContext, node: ast.expr, iterable: ast.expr) -> list:
    """What a ``for`` clause iterates over: values known at compile time."""
    kind = _KINDS[type(node)]
    value = ctx.expr(iterable)
    if isinstance(value, Vector):
        if len(value.shape) == 1:
            return list(value.items)
        return [Vector(row) for row in value.rows()]  # a matrix's rows, as Taichi's
    if isinstance(value, ir.Stmt):
        raise ctx.error(
            TiTypeError,
            iterable,
            f"a {kind} cannot iterate over '{ast.unparse(iterable)}', a single kernel value",
            "iterate over range(n), a tuple or a vector",
        )
    if isinstance(value, Field) or hasattr(value, "components"):
        raise ctx.error(
            TiSyntaxError,
            iterable,
            f"a {kind} is unrolled at compile time and cannot iterate over a field",
            "loop over the field with a for statement: 'for i in x:'",
        )
    try:
        return list(value)
    except TypeError:
        raise ctx.error(
            TiTypeError,
            iterable,
            f"a {kind} cannot iterate over '{ast.unparse(iterable)}' ({type(value).__name__})",
            "iterate over range(n), a tuple, a list or a vector",
        ) from None


def _condition(ctx: TraceContext, node: ast.expr, test: ast.expr) -> bool:
    value = ctx.expr(test)
    if isinstance(value, (ir.Stmt, Vector)):
        raise ctx.error(
            TiSyntaxError,
            test,
            f"the 'if' of a {_KINDS[type(node)]} must be known at compile time",
            "filter on compile-time values, or compute both and choose with ti.select(cond, a, b)",
        )
    return bool(value)


def _bind(ctx: TraceContext, target: ast.expr, item) -> None:
    """Binds a ``for`` clause's target (a name, or names to unpack) to one item."""
    if isinstance(target, ast.Name):
        ctx.bind(target.id, item)
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        values = unpack(ctx, item, len(target.elts), target)
        for element, value in zip(target.elts, values, strict=True):
            _bind(ctx, element, value)
        return
    raise ctx.error(TiSyntaxError, target, "a comprehension's loop variables must be names")
