"""``ti.random(dtype)`` and ``ti.randn(dt)`` inside kernels.

Each call becomes one :class:`~ti_notebook.ir.nodes.RandStmt`; codegen turns it into a
Philox draw (``codegen/rng.py``), keyed as ``runtime/random_streams.py`` explains.
The type argument must be a type known at compile time: ``ti.f32``, ``ti.i64``,
``float``, ``int``, a NumPy scalar type.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def draw() -> ti.f64:
    ...     return ti.random(ti.f64) + 0 * ti.randn()
    >>> 0.0 <= draw() < 1.0
    True
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types

HANDLERS = Handlers()


def _type_argument(
    ctx: TraceContext, node: ast.Call, name: str, keywords: tuple[str, ...], usage: str
):
    """The one optional type argument of ``ti.<name>()`` (None or absent: float)."""
    given = [(None, a) for a in node.args] + [(kw.arg, kw.value) for kw in node.keywords]
    unknown = [k for k, _ in given if k is not None and k not in keywords]
    if len(given) > 1 or unknown:
        raise ctx.error(
            TiTypeError,
            node,
            f"ti.{name}() takes one optional argument, the type: {usage}",
            f"write ti.{name}(ti.f32) or ti.{name}()",
        )
    where = given[0][1] if given else node
    value = ctx.expr(where) if given else None
    if value is None:
        value = float
    dtype = None
    if not isinstance(value, (ir.Stmt, str)) and value is not bool:
        dtype = types.to_dtype(value, ctx.config.default_ip, ctx.config.default_fp)
    if dtype is None:
        shown = ast.unparse(where)
        raise ctx.error(
            TiTypeError,
            where,
            f"ti.{name}() takes a type, got '{shown}'",
            "pass a type known at compile time: ti.f32, ti.f64, ti.i32, float or int",
        )
    return dtype


@HANDLERS.call(ops.random)
def _random(ctx: TraceContext, node: ast.Call):
    dtype = _type_argument(ctx, node, "random", ("dtype",), "ti.random(dtype=float)")
    return ctx.builder.emit(ir.RandStmt(dtype))


@HANDLERS.call(ops.randn)
def _randn(ctx: TraceContext, node: ast.Call):
    dtype = _type_argument(ctx, node, "randn", ("dt", "dtype"), "ti.randn(dt=None)")
    if not dtype.is_float:
        raise ctx.error(
            TiTypeError,
            node,
            f"ti.randn() draws floats, not {dtype}",
            "use ti.randn(ti.f32) or ti.randn(ti.f64); for integers use ti.random(ti.i32)",
        )
    return ctx.builder.emit(ir.RandStmt(dtype, normal=True))
