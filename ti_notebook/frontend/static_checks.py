"""``ti.static_print`` and ``ti.static_assert`` in kernels: run once, while compiling.

``ti.static_assert(cond, msg)`` needs ``cond`` known at compile time (a check of values
known only when the kernel runs is ``assert`` with ``ti.init(debug=True)``); when it
fails, compiling stops with a :class:`~ti_notebook.errors.TiAssertionError` at the
line. ``ti.static_print`` prints compile-time values (and describes kernel values:
their type, not a number) once per compilation.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> dim = 2
    >>> @ti.kernel
    ... def area(a: ti.f32) -> ti.f32:
    ...     ti.static_assert(dim == 2, "area() is for 2-D")
    ...     ti.static_print("compiling area for dim", dim, "with a", a)
    ...     return a * a
    >>> area(3.0)
    compiling area for dim 2 with a <kernel value: f32>
    9.0
    >>> area(4.0)  # compiled already: nothing printed
    16.0
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiAssertionError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import static_checks

HANDLERS = Handlers()


@HANDLERS.call(static_checks.static_assert)
def _static_assert(ctx: TraceContext, node: ast.Call) -> None:
    if not 1 <= len(node.args) <= 2 or any(kw.arg != "msg" for kw in node.keywords):
        raise ctx.error(
            TiTypeError,
            node,
            "ti.static_assert takes (cond) or (cond, msg)",
            'e.g. ti.static_assert(dim == 3, "a 3-D grid is needed")',
        )
    cond = ctx.expr(node.args[0])
    if isinstance(cond, (ir.Stmt, Vector)):
        raise ctx.error(
            TiTypeError,
            node.args[0],
            f"ti.static_assert needs a condition known at compile time, but "
            f"'{ast.unparse(node.args[0])}' is known only when the kernel runs",
            "use 'assert cond' with ti.init(debug=True) to check kernel values",
        )
    msg_node = node.args[1] if len(node.args) == 2 else (node.keywords or [None])[0]
    msg_node = msg_node.value if isinstance(msg_node, ast.keyword) else msg_node
    if cond:
        return
    condition = ast.unparse(node.args[0])
    if msg_node is None:
        message = f"static assertion failed: {condition}"
    else:
        message = str(ctx.expr(msg_node))
    hint = f"'{condition}' is false for this compilation (its values are fixed while compiling)"
    raise ctx.error(TiAssertionError, node, message, hint)


@HANDLERS.call(static_checks.static_print)
def _static_print(ctx: TraceContext, node: ast.Call) -> None:
    args = [_shown(ctx.expr(a)) for a in node.args]
    kwargs = {kw.arg: ctx.expr(kw.value) for kw in node.keywords}
    try:
        print(*args, **kwargs)
    except TypeError as exc:
        hint = "static_print takes print()'s arguments"
        raise ctx.error(TiTypeError, node, f"ti.static_print: {exc}", hint) from None


def _shown(value):
    """What static_print prints for a value: itself, or a kernel value's description."""
    if isinstance(value, ir.Stmt):
        return _KernelValue(f"<kernel value: {value.dtype}>")
    if isinstance(value, Vector):
        dtypes = {str(v.dtype) for v in value if isinstance(v, ir.Stmt)}
        return _KernelValue(f"<kernel vector{list(value.shape)}: {', '.join(sorted(dtypes))}>")
    return value


class _KernelValue(str):
    """A description printed without quotes, inside containers too."""

    __repr__ = str.__str__
