"""Making vectors and matrices in kernels: ``ti.Vector([...])``, ``ti.Matrix.zero``...

A literal ``ti.Vector([...])`` / ``ti.Matrix([[...], ...])`` has one element type, as in
Taichi: the given ``dt`` (a ti type, or Python's ``float``/``int`` for the defaults),
else its items' promoted type, so ``ti.Vector([1, 2.5])`` is a float vector. The
constructors named on the class are Taichi's kernel-scope ones, with Taichi's
signatures: ``zero(dt, n, m=None)``, ``one(dt, n, m=None)``, ``unit(n, i, dt=int)``,
``identity(dt, n)``, ``diag(dim, val)``, ``rows([...])`` and ``cols([...])`` (of vectors
or lists); ``ti.zero(x)`` / ``ti.one(x)`` take ``x``'s type and shape.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def built() -> ti.f32:
    ...     e = ti.Vector.unit(3, 1, float) + ti.Vector.one(int, 3)
    ...     m = ti.Matrix.cols([e, ti.Vector([1, 2.5, 0])]) + ti.Matrix.zero(float, 3, 2)
    ...     return m[1, 0] * 10 + m[1, 1] + ti.Matrix.diag(2, 4.0)[1, 1]
    >>> built()
    26.5
"""

from __future__ import annotations

import ast
import functools

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import check_scalar, keywords
from ti_notebook.frontend.values import MatrixConstructor, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import matrix as lang_matrix
from ti_notebook.lang import ops, types

HANDLERS = Handlers()
# Taichi's kernel-scope constructors and their parameters (name, default or REQUIRED).
REQUIRED = object()
SIGNATURES = {
    "zero": (("dt", REQUIRED), ("n", REQUIRED), ("m", None)),
    "one": (("dt", REQUIRED), ("n", REQUIRED), ("m", None)),
    "unit": (("n", REQUIRED), ("i", REQUIRED), ("dt", None)),
    "identity": (("dt", REQUIRED), ("n", REQUIRED)),
    "diag": (("dim", REQUIRED), ("val", REQUIRED)),
    "rows": (("rows", REQUIRED),),
    "cols": (("cols", REQUIRED),),
}


def kernel_constructor(cls: type, name: str) -> MatrixConstructor | None:
    """``ti.Matrix.<name>`` / ``ti.Vector.<name>`` in a kernel: the constructor it names
    (whatever the Python-scope class defines under that name), else None.

    >>> kernel_constructor(lang_matrix.Vector, "unit"), kernel_constructor(int, "unit")
    (MatrixConstructor(name='unit'), None)
    """
    if name in SIGNATURES and issubclass(cls, lang_matrix.Matrix):
        return MatrixConstructor(name)
    return None


# -- literals ------------------------------------------------------------------------------
@HANDLERS.call(lang_matrix.Vector)
def _vector_literal(ctx: TraceContext, node: ast.Call) -> Vector:
    return _literal(ctx, node, is_vector=True)


@HANDLERS.call(lang_matrix.Matrix)
def _matrix_literal(ctx: TraceContext, node: ast.Call) -> Vector:
    return _literal(ctx, node, is_vector=False)


def _literal(ctx: TraceContext, node: ast.Call, is_vector: bool) -> Vector:
    """``ti.Vector([...], dt=None)`` or ``ti.Matrix([[...], ...], dt=None)``."""
    args = [ctx.expr(a) for a in node.args]
    kw = keywords(ctx, node)
    dtype = kw.pop("dt", kw.pop("dtype", args[1] if len(args) > 1 else None))
    if len(args) not in (1, 2) or kw:
        raise ctx.error(
            TiTypeError,
            node,
            "ti.Vector/ti.Matrix take a list of values and an optional dt",
            "e.g. ti.Vector([1.0, 2.0], dt=ti.f32)",
        )
    value = args[0]
    if isinstance(value, Vector):
        value = list(value.items) if len(value.shape) == 1 else value.rows()
    if isinstance(value, np.ndarray):  # from Python scope, as Taichi takes one
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise ctx.error(
            TiTypeError,
            node,
            "ti.Vector/ti.Matrix take a list of values",
            "e.g. ti.Vector([x, y]) or ti.Matrix([[a, b], [c, d]])",
        )
    if value and isinstance(value[0], (list, tuple, Vector)) and not is_vector:
        return _from_rows(ctx, value, dtype, node)
    return Vector(typed_items(ctx, list(value), dtype, node))


def typed_items(ctx: TraceContext, items: list, dtype, node: ast.AST) -> list:
    """``items`` of one element type: ``dtype`` when given, else their promoted type
    (constants stay Python numbers when every item is one, so they still fold)."""
    b = ctx.builder
    for item in items:
        check_scalar(ctx, item, node)
    if dtype is not None:
        resolved = b.data_type(dtype)
        return [b.cast(item, resolved) for item in items]
    if not items:
        return []
    kinds = [item.dtype if isinstance(item, ir.Stmt) else b.literal_type(item) for item in items]
    common = functools.reduce(types.promote, kinds)
    if all(is_constant(item) for item in items):
        return [float(item) if common.is_float else int(item) for item in items]
    return [b.cast(item, common) for item in items]


def _from_rows(ctx: TraceContext, rows: list, dtype, node: ast.AST) -> Vector:
    grid = [list(r.items) if isinstance(r, Vector) else list(r) for r in rows]
    width = len(grid[0])
    if any(len(r) != width for r in grid):
        raise ctx.error(
            TiTypeError,
            node,
            f"matrix rows must have the same length, got {[len(r) for r in grid]}",
            "give every row as many values",
        )
    items = typed_items(ctx, [x for r in grid for x in r], dtype, node)
    return Vector(items, (len(grid), width))


# -- named constructors --------------------------------------------------------------------
def _constructor(name: str):
    def handler(ctx: TraceContext, node: ast.Call) -> Vector:
        values = _bind(ctx, name, node)
        return _BUILDERS[name](ctx, node, **values)

    handler.__name__ = f"matrix_{name}"
    return handler


def _bind(ctx: TraceContext, name: str, node: ast.Call) -> dict:
    """The call's arguments by parameter name, as Python would bind them."""
    signature = SIGNATURES[name]
    names = [p for p, _ in signature]
    args = [ctx.expr(a) for a in node.args]
    kw = {k.arg: ctx.expr(k.value) for k in node.keywords}
    usage = f"ti.Matrix.{name}({', '.join(names)})"
    if len(args) > len(names) or set(kw) - set(names) or set(kw) & set(names[: len(args)]):
        raise ctx.error(TiTypeError, node, f"{usage} got other arguments", f"call {usage}")
    values = dict(zip(names, args, strict=False)) | kw
    for param, default in signature:
        if param not in values:
            if default is REQUIRED:
                raise ctx.error(TiTypeError, node, f"{usage} needs '{param}'", f"call {usage}")
            values[param] = default
    return values


def _size(ctx: TraceContext, value, what: str, node: ast.AST, low: int = 1) -> int:
    """A dimension or position that must be a compile-time integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(
            TiTypeError,
            node,
            f"{what} must be an integer known at compile time, got {_describe(value)}",
            "use a Python int, a template argument or ti.static(...)",
        )
    if value < low:
        raise ctx.error(
            TiValueError, node, f"{what} must be at least {low}, got {value}", "check the size"
        )
    return value


def _describe(value) -> str:
    return "a kernel value" if isinstance(value, (ir.Stmt, Vector)) else repr(value)


def _filled(ctx: TraceContext, node, dt, n, m, fill) -> Vector:
    dtype = ctx.builder.data_type(dt)
    n = _size(ctx, n, "n", node)
    shape = (n,) if m is None else (n, _size(ctx, m, "m", node))
    count = n if m is None else n * shape[1]
    return Vector([ctx.builder.const(fill, dtype) for _ in range(count)], shape)


def _zero(ctx: TraceContext, node, dt, n, m) -> Vector:
    return _filled(ctx, node, dt, n, m, 0)


def _one(ctx: TraceContext, node, dt, n, m) -> Vector:
    return _filled(ctx, node, dt, n, m, 1)


def _unit(ctx: TraceContext, node, n, i, dt) -> Vector:
    n = _size(ctx, n, "n", node)
    i = _size(ctx, i, "i", node, low=0)
    if i >= n:
        raise ctx.error(
            TiValueError,
            node,
            f"ti.Vector.unit: i={i} is not below n={n}",
            "ti.Vector.unit(n, i) has its 1 at index i of 0..n-1",
        )
    dtype = ctx.builder.data_type(int if dt is None else dt)
    return Vector([ctx.builder.const(int(k == i), dtype) for k in range(n)])


def _identity(ctx: TraceContext, node, dt, n) -> Vector:
    dtype = ctx.builder.data_type(dt)
    n = _size(ctx, n, "n", node)
    return Vector(
        [ctx.builder.const(int(r == c), dtype) for r in range(n) for c in range(n)], (n, n)
    )


def _diag(ctx: TraceContext, node, dim, val) -> Vector:
    dim = _size(ctx, dim, "dim", node)
    items = [val if r == c else 0 for r in range(dim) for c in range(dim)]
    return Vector(typed_items(ctx, items, None, node), (dim, dim))


def _rows(ctx: TraceContext, node, rows) -> Vector:
    if not isinstance(rows, (list, tuple)) or not rows:
        raise ctx.error(
            TiTypeError,
            node,
            "ti.Matrix.rows/cols take a list of vectors or lists",
            "pass e.g. [ti.Vector([1, 2]), ti.Vector([3, 4])]",
        )
    for row in rows:
        if not isinstance(row, (list, tuple)) and not (
            isinstance(row, Vector) and len(row.shape) == 1
        ):
            raise ctx.error(
                TiTypeError,
                node,
                f"ti.Matrix.rows/cols take vectors or lists, got {_describe(row)}",
                "pass e.g. [ti.Vector([1, 2]), ti.Vector([3, 4])]",
            )
    return _from_rows(ctx, list(rows), None, node)


def _cols(ctx: TraceContext, node, cols) -> Vector:
    made = _rows(ctx, node, cols)
    n, m = made.shape
    return Vector([made.items[r * m + c] for c in range(m) for r in range(n)], (m, n))


_BUILDERS = {
    "zero": _zero,
    "one": _one,
    "unit": _unit,
    "identity": _identity,
    "diag": _diag,
    "rows": _rows,
    "cols": _cols,
}


def _python_scope_names(name: str) -> set:
    """The Python-scope functions ``ti.Matrix.<name>`` / ``ti.Vector.<name>`` hold now: a
    kernel may call one through an alias (``eye = ti.Matrix.identity``)."""
    found = set()
    for cls in (lang_matrix.Matrix, lang_matrix.Vector):
        function = cls.__dict__.get(name)
        function = getattr(function, "__func__", function)  # a staticmethod's function
        if callable(function):
            found.add(function)
    return found


for _name in SIGNATURES:
    HANDLERS.call(MatrixConstructor(_name), *_python_scope_names(_name))(_constructor(_name))


# -- like another value ----------------------------------------------------------------------
@HANDLERS.call(ops.zero)
def _zero_like(ctx: TraceContext, node: ast.Call):
    """``ti.zero(x)``: zeros of ``x``'s type and shape."""
    return _filled_like(ctx, node, 0)


@HANDLERS.call(ops.one)
def _one_like(ctx: TraceContext, node: ast.Call):
    """``ti.one(x)``: ones of ``x``'s type and shape."""
    return _filled_like(ctx, node, 1)


def _filled_like(ctx: TraceContext, node: ast.Call, fill: int):
    b = ctx.builder
    if len(node.args) != 1 or node.keywords:
        raise ctx.error(
            TiTypeError,
            node,
            f"{ast.unparse(node.func)}(x) takes one value",
            "pass the scalar or vector whose type and shape to copy",
        )
    value = ctx.expr(node.args[0])

    def like(item):
        check_scalar(ctx, item, node)
        return b.const(fill, item.dtype if isinstance(item, ir.Stmt) else b.literal_type(item))

    if isinstance(value, Vector):
        return Vector([like(item) for item in value], value.shape)
    return like(value)
