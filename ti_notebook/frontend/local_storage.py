"""``ti.block_local(*fields)``: asks ``make_block_local`` to cache fields per block.

It must be the first thing in the body of a struct-for over a field (Taichi's rule);
the pass (``passes/make_block_local.py``) does the rest.
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops
from ti_notebook.lang.field import Field


def _block_local(tracer, node: ast.Call):
    if node.keywords or not node.args:
        raise tracer.error(TiTypeError, node, "ti.block_local() takes one or more fields")
    fields = []
    for arg in node.args:
        value = tracer.expr(arg)
        components = getattr(value, "components", None)
        if components is not None:
            fields.extend(components)
        elif isinstance(value, Field):
            fields.append(value)
        else:
            raise tracer.error(
                TiTypeError,
                arg,
                f"ti.block_local() caches fields, not {type(value).__name__}",
                "pass the field itself: ti.block_local(a)",
            )
    loops = tracer.state.loops
    innermost = loops[-1][0] if loops else None
    if not isinstance(innermost, ir.StructForStmt) or not isinstance(innermost.field, Field):
        raise tracer.error(
            TiSyntaxError,
            node,
            "ti.block_local() must be inside a struct-for over a field",
            "write it as the first line of `for i, j in x:`",
        )
    tracer.builder.emit(ir.BlockLocalStmt(fields))


HANDLERS = {ops.block_local: _block_local}
