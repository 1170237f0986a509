"""``print(...)`` in kernels: text and values, f-strings with format specs, sep and end.

A print becomes one :class:`~ti_notebook.ir.nodes.PrintStmt` whose items are text or
(value, format spec) pairs; codegen formats them when the kernel runs. Constants print
with their kernel type, as Taichi does (``True`` as 1, ``1.5`` as an f32).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def show(a: ti.f32):
    ...     print("a =", a, ti.Vector([1, 2]), sep="|")
    ...     print(f"half: {a / 2:.2f}", end="!\\n")
    >>> show(3.0)
    a =|3.000000|[1, 2]
    half: 1.50!
"""

from __future__ import annotations

import ast
import builtins

from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import static_eval
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir

HANDLERS = Handlers()


@HANDLERS.call(builtins.print)
def _print(ctx: TraceContext, node: ast.Call) -> None:
    kw = {k.arg: static_eval(ctx, k.value) for k in node.keywords}
    items: list = []
    for arg in node.args:
        if isinstance(arg, ast.JoinedStr):
            items.extend(_fstring_items(ctx, arg))
        else:
            items.extend(_print_items(ctx, ctx.expr(arg), None))
        items.append(None)  # a separator position
    if items:
        items.pop()
    stmt = ir.PrintStmt(items, end=kw.get("end", "\n"), sep=kw.get("sep", " "))
    ctx.builder.emit(stmt)


def _print_items(ctx: TraceContext, value, spec: str | None) -> list:
    """What one printed value contributes: text, or (statement, format spec) pairs."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Vector):
        if len(value.shape) == 2:  # a matrix prints row by row, as Taichi's [[1, 2], [3, 4]]
            value = [Vector(row) for row in value.rows()]
        items: list = ["["]
        for i, item in enumerate(value):
            items.extend([", "] if i else [])
            items.extend(_print_items(ctx, item, spec))
        return [*items, "]"]
    if isinstance(value, ir.Stmt) or is_constant(value):
        # Constants print with their kernel type, as Taichi does (True as 1, 1.5 as f32).
        return [(ctx.builder.value(int(value) if isinstance(value, bool) else value), spec)]
    return [repr(value)]


def _fstring_items(ctx: TraceContext, node: ast.JoinedStr) -> list:
    items: list = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            items.append(str(part.value))
            continue
        spec = None
        if part.format_spec is not None:
            spec = "".join(str(static_eval(ctx, v)) for v in part.format_spec.values)
        items.extend(_print_items(ctx, ctx.expr(part.value), spec))
    return items
