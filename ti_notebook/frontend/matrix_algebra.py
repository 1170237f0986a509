"""Square-matrix algebra in kernels: ``m.determinant()`` and ``m.inverse()``, up to 4x4.

As in Taichi 1.7, both take n x n matrices with n <= 4 and unroll into scalar IR:
the determinant by cofactor expansion along the first row (an integer matrix keeps an
integer determinant), the inverse as the adjugate times ``1.0 / det`` (so it is a float
matrix, of the matrix's float type or ``default_fp``). A singular matrix gives inf/nan
entries, as there; larger matrices are refused at their line.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def solved() -> ti.f32:
    ...     m = ti.Matrix([[4.0, 7.0], [2.0, 6.0]])
    ...     x = m.inverse() @ ti.Vector([1.0, 2.0])
    ...     return m.determinant() * 100 + (m @ x)[1]
    >>> solved()
    1002.0
"""

from __future__ import annotations

from ti_notebook.errors import TiNotImplementedError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.values import Vector
from ti_notebook.frontend.vector_methods import need_square, positional

HANDLERS = Handlers()
MAX_SIZE = 4  # Taichi's limit: the cofactor expansion grows as n!


@HANDLERS.method("determinant")
@positional(0, "m.determinant()")
def _determinant(ctx: TraceContext, m: Vector, args: list, node):
    n = _checked_size(ctx, m, "determinant", node)
    return determinant(ctx, _grid(m, n))


@HANDLERS.method("inverse")
@positional(0, "m.inverse()")
def _inverse(ctx: TraceContext, m: Vector, args: list, node):
    n = _checked_size(ctx, m, "inverse", node)
    b = ctx.builder
    grid = _grid(m, n)
    inv_det = b.binary("truediv", 1.0, determinant(ctx, grid))
    if n == 1:
        return Vector([inv_det], (1, 1))
    items = []
    for r in range(n):
        for c in range(n):  # the adjugate is the cofactor matrix transposed
            cofactor = determinant(ctx, _minor(grid, c, r))
            if (r + c) % 2:
                cofactor = b.unary("neg", cofactor)
            items.append(b.binary("mul", cofactor, inv_det))
    return Vector(items, (n, n))


def determinant(ctx: TraceContext, grid: list[list]):
    """The determinant of a square grid of values, by cofactor expansion (row 0)."""
    b = ctx.builder
    n = len(grid)
    if n == 1:
        return grid[0][0]
    if n == 2:
        ad = b.binary("mul", grid[0][0], grid[1][1])
        return b.binary("sub", ad, b.binary("mul", grid[0][1], grid[1][0]))
    total = None
    for c in range(n):
        term = b.binary("mul", grid[0][c], determinant(ctx, _minor(grid, 0, c)))
        total = term if total is None else b.binary("sub" if c % 2 else "add", total, term)
    return total


def _minor(grid: list[list], row: int, col: int) -> list[list]:
    return [[x for c, x in enumerate(r) if c != col] for k, r in enumerate(grid) if k != row]


def _grid(m: Vector, n: int) -> list[list]:
    return [m.items[r * n : (r + 1) * n] for r in range(n)]


def _checked_size(ctx: TraceContext, m: Vector, name: str, node) -> int:
    n = need_square(ctx, m, name, node)
    if n > MAX_SIZE:
        raise ctx.error(
            TiNotImplementedError,
            node,
            f"{name}() of a {n}x{n} matrix is not supported (at most {MAX_SIZE}x{MAX_SIZE}, "
            "as in Taichi)",
            "solve larger systems with an iterative method over a field",
        )
    return n
