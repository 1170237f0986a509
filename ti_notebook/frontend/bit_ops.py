"""Bit counting in kernels: ``ti.math.popcnt(x)`` and ``ti.math.clz(x)``.

Each is one LLVM intrinsic (``ctpop``, ``ctlz``) on an integer of any width, applied to
each component of a vector; a float is refused with a hint to cast. ``clz(0)`` is the
type's width.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def bits(a: ti.i32) -> ti.i32:
    ...     return ti.math.popcnt(a) * 100 + ti.math.clz(a)
    >>> bits(11), bits(-1)
    (328, 3200)
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import call_args, map_vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops

HANDLERS = Handlers()


def _counter(op: str):
    def handler(ctx: TraceContext, node: ast.Call):
        (value,) = call_args(ctx, node, 1)

        def count(item):
            item = ctx.builder.value(item)
            if item.dtype.is_float:
                raise ctx.error(
                    TiTypeError,
                    node,
                    f"{op}() needs an integer, got {item.dtype}",
                    "cast first, e.g. ti.cast(x, ti.i32)",
                )
            return ctx.builder.emit(ir.UnaryOpStmt(op, item, item.dtype))

        return map_vector(ctx, value, count)

    return handler


HANDLERS.call(ops.popcnt)(_counter("popcnt"))
HANDLERS.call(ops.clz)(_counter("clz"))
