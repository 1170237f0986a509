"""``ti.svd``, ``ti.polar_decompose``, ``ti.sym_eig``, ``ti.eig`` and ``ti.solve`` calls.

Each checks its matrix where the kernel calls it (a square matrix of a size Taichi
supports: 2x2 or 3x3, 2x2 only for ``eig``), chooses the float type to work in (``dt``
when given, else the matrix's float type, else ``default_fp``: an f64 matrix is
decomposed in f64), casts the matrix to it and inlines the kernel-language
implementation from ``lang/linalg_funcs.py``, which returns matrices of that type.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def eigen_gap() -> ti.f64:
    ...     values, vectors = ti.sym_eig(ti.Matrix([[2.0, 1.0], [1.0, 2.0]], ti.f64))
    ...     return values[0] - values[1]
    >>> eigen_gap()
    2.0
"""

from __future__ import annotations

import ast
import functools

from ti_notebook.errors import TiNotImplementedError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.funcs import call_func
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import linalg, linalg_funcs, types

HANDLERS = Handlers()
# name -> (the public function, {size: implementation}, its parameters)
_OPERATIONS = {
    "svd": (linalg.svd, {2: linalg_funcs.svd2, 3: linalg_funcs.svd3}, ("A", "dt")),
    "polar_decompose": (
        linalg.polar_decompose,
        {2: linalg_funcs.polar2, 3: linalg_funcs.polar3},
        ("A", "dt"),
    ),
    "sym_eig": (linalg.sym_eig, {2: linalg_funcs.sym_eig2, 3: linalg_funcs.sym_eig3}, ("A", "dt")),
    "eig": (linalg.eig, {2: linalg_funcs.eig2}, ("A", "dt")),
    "solve": (linalg.solve, {2: linalg_funcs.solve, 3: linalg_funcs.solve}, ("A", "b", "dt")),
}


def _operation(name: str):
    _function, implementations, params = _OPERATIONS[name]

    def handler(ctx: TraceContext, node: ast.Call):
        values = _bind(ctx, name, params, node)
        matrix = values["A"]
        n = _square_size(ctx, name, matrix, node)
        if n not in implementations:
            sizes = " and ".join(f"{k}x{k}" for k in implementations)
            raise ctx.error(
                TiNotImplementedError,
                node,
                f"ti.{name}() supports {sizes} matrices (as Taichi), not {n}x{n}",
                "decompose larger matrices with an iterative method over a field",
            )
        dtype = _working_type(ctx, name, matrix, values.get("dt"), node)
        args = [_cast(ctx, matrix, dtype)]
        if name == "solve":
            args.append(_cast(ctx, _right_hand_side(ctx, values["b"], n, node), dtype))
        return call_func(ctx, implementations[n], [*args, dtype], {}, node)

    handler.__name__ = f"call_{name}"
    return handler


for _name, (_public, _impls, _params) in _OPERATIONS.items():
    HANDLERS.call(_public)(_operation(_name))


def _bind(ctx: TraceContext, name: str, params: tuple, node: ast.Call) -> dict:
    args = [ctx.expr(a) for a in node.args]
    kwargs = {k.arg: ctx.expr(k.value) for k in node.keywords}
    usage = f"ti.{name}({', '.join(params)}=None)"
    values = dict(zip(params, args, strict=False))
    if len(args) > len(params) or set(kwargs) - set(params) or set(kwargs) & set(values):
        raise ctx.error(TiTypeError, node, f"{usage} got other arguments", f"call {usage}")
    values |= kwargs
    missing = [p for p in params if p != "dt" and p not in values]
    if missing:
        raise ctx.error(TiTypeError, node, f"{usage} needs '{missing[0]}'", f"call {usage}")
    return values


def _square_size(ctx: TraceContext, name: str, matrix, node) -> int:
    shape = matrix.shape if isinstance(matrix, Vector) else ()
    if len(shape) == 2 and shape[0] == shape[1]:
        return shape[0]
    what = f"shape {matrix.shape}" if isinstance(matrix, Vector) else type(matrix).__name__
    raise ctx.error(
        TiTypeError,
        node,
        f"ti.{name}() needs a square matrix, got {what}",
        "pass an n x n ti.Matrix value, e.g. F[p] of a ti.Matrix.field(2, 2, ...)",
    )


def _working_type(ctx: TraceContext, name: str, matrix: Vector, dt, node) -> types.DataType:
    b = ctx.builder
    if dt is not None:
        dtype = b.data_type(dt)
        if not dtype.is_float:
            raise ctx.error(
                TiTypeError, node, f"ti.{name}() works in a float type, not {dtype}", "dt=ti.f64"
            )
        return dtype
    kinds = [x.dtype if isinstance(x, ir.Stmt) else b.literal_type(x) for x in matrix]
    common = functools.reduce(types.promote, kinds)
    return common if common.is_float else ctx.config.default_fp


def _right_hand_side(ctx: TraceContext, b, n: int, node) -> Vector:
    if isinstance(b, Vector) and b.shape == (n,):
        return b
    what = f"shape {b.shape}" if isinstance(b, Vector) else type(b).__name__
    raise ctx.error(
        TiTypeError, node, f"ti.solve(A, b) needs b of shape ({n},), got {what}", "b = ti.Vector"
    )


def _cast(ctx: TraceContext, value: Vector, dtype: types.DataType) -> Vector:
    return Vector([ctx.builder.cast(x, dtype) for x in value], value.shape)
