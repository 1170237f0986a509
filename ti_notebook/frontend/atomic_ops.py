"""``ti.atomic_add(dest, value)`` and the other atomics: the old value, per component too.

The destination is a field element, a component of one, or a local variable: a
kernel-scope local that a parallel loop updates is shared by its iterations, so it is
updated atomically too (codegen demotes the atomics no other thread can see).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=())
    >>> @ti.kernel
    ... def bump() -> ti.i32:
    ...     old = ti.atomic_add(x[None], 5)
    ...     ti.atomic_max(x[None], 3)
    ...     return old * 100 + x[None]
    >>> bump()
    5
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.places import atomic_update, lvalue
from ti_notebook.lang import ops

HANDLERS = Handlers()
_ATOMICS = {
    ops.atomic_add: "add",
    ops.atomic_sub: "sub",
    ops.atomic_min: "min",
    ops.atomic_max: "max",
    ops.atomic_and: "bit_and",
    ops.atomic_or: "bit_or",
    ops.atomic_xor: "bit_xor",
}


def _atomic(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        if len(node.args) != 2:
            raise ctx.error(TiTypeError, node, "atomic operations take (destination, value)")
        dest, value_node = node.args
        value = ctx.expr(value_node)
        targets = (ast.Name, ast.Subscript, ast.Attribute)
        slot = lvalue(ctx, dest) if isinstance(dest, targets) else None
        if slot is None:
            raise ctx.error(
                TiTypeError,
                dest,
                "the destination of an atomic must be a field element or a local variable",
                "e.g. ti.atomic_add(x[i], 1) or ti.atomic_add(total, x[i])",
            )
        # On a local too: a kernel-scope local that a parallel loop updates is shared.
        return atomic_update(ctx, op, slot, value, dest)

    return handler


for _function, _op in _ATOMICS.items():
    HANDLERS.call(_function)(_atomic(_op))
