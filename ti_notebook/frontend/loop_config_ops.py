"""``ti.loop_config(...)`` and ``ti.block_dim(n)``: settings for the next outermost loop.

They are checked here, at their line, so a bad value (``block_dim="abc"``) is a
``TiTypeError`` with a caret rather than a failure deep in code generation; the loop that
follows takes them (``frontend/loops.py``) and the offload pass hands them to its task.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=64)
    >>> @ti.kernel
    ... def fill():
    ...     ti.loop_config(parallelize=2, block_dim=16)
    ...     for i in x:
    ...         x[i] = i
    >>> sorted(fill.report["tasks"][-1]["loop_config"].items())
    [('block_dim', 16), ('parallelize', 2)]
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import keywords, static_eval
from ti_notebook.lang import ops

HANDLERS = Handlers()


@HANDLERS.call(ops.loop_config)
def _loop_config(ctx: TraceContext, node: ast.Call):
    kw = keywords(ctx, node)
    unknown = set(kw) - {"parallelize", "block_dim", "serialize"}
    if unknown or node.args:
        raise ctx.error(
            TiTypeError,
            node,
            f"ti.loop_config() got unexpected argument(s) {sorted(unknown) or node.args}",
            "it takes parallelize=N, block_dim=N and serialize=True",
        )
    for name, value in kw.items():
        if value is None:
            continue
        if name == "serialize":
            if not isinstance(value, (bool, int)):
                raise ctx.error(
                    TiTypeError, node, f"ti.loop_config(serialize={value!r}) needs True or False"
                )
            value = bool(value)
        else:
            value = _positive_int(ctx, node, f"ti.loop_config({name}=...)", value)
        ctx.state.pending_loop_config[name] = value


def _positive_int(ctx: TraceContext, node: ast.Call, what: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ctx.error(
            TiTypeError,
            node,
            f"{what} needs a positive integer, got {value!r}",
            "e.g. ti.loop_config(parallelize=4, block_dim=128)",
        )
    return value


@HANDLERS.call(ops.block_dim)
def _block_dim(ctx: TraceContext, node: ast.Call):
    (value,) = [static_eval(ctx, a) for a in node.args]
    ctx.state.pending_loop_config["block_dim"] = _positive_int(ctx, node, "ti.block_dim()", value)
