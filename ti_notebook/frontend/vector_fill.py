"""``v.fill(x)``: sets every component of a local vector/matrix (or of a vector field's
element) to ``x``, in place, as Taichi's ``Matrix.fill`` does in kernels.

It is the one vector method that changes its receiver, so it works on what the
receiver names (a local, ``x[i]``), not on its value.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def filled() -> ti.f32:
    ...     m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    ...     m.fill(0.5)
    ...     return m.sum()
    >>> filled()
    2.0
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import check_scalar
from ti_notebook.frontend.places import lvalue, store
from ti_notebook.frontend.values import BoundMethod, Slots
from ti_notebook.frontend.vector_methods import positional

HANDLERS = Handlers()


@HANDLERS.method("fill")
def _fill(ctx: TraceContext, method: BoundMethod, args: list, keywords: dict, node):
    return _checked_fill(ctx, method, args, keywords, node)


@positional(1, "v.fill(value)")
def _checked_fill(ctx: TraceContext, value, args: list, node: ast.Call) -> None:
    (fill,) = args
    check_scalar(ctx, fill, node)
    receiver = node.func.value if isinstance(node, ast.Call) else None
    slots = None
    if isinstance(receiver, (ast.Name, ast.Subscript, ast.Attribute)):
        slots = lvalue(ctx, receiver)
    if not isinstance(slots, Slots):
        raise ctx.error(
            TiSyntaxError,
            node,
            "fill() changes a vector in place: call it on a local vector/matrix or a "
            "vector field's element",
            "e.g. 'v = ti.Vector([0.0, 0.0])' then 'v.fill(1.0)'",
        )
    store(ctx, slots, fill, node)
