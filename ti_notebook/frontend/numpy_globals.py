"""NumPy arrays a kernel reads from Python scope: values known while compiling.

As in Taichi, an array reached from a kernel or ``ti.func`` (a global, a closure
variable, an attribute) is a Python value, not kernel data: arithmetic with numbers,
tuples or other arrays is NumPy's, done while compiling (``n - 1``, ``shape * 2``), and
an index known at compile time reads the element (``n[1]``, ``m[1, 0]``, ``m[0]`` a row)
as a constant of the kernel's ``default_ip``/``default_fp``, as Taichi reads a NumPy
scalar. ``ti.ndrange(*(n - 1))`` unpacks one.

Where Taichi refuses the array - indexed by a value known only when the kernel runs,
or met with a kernel value (``v + n`` for a kernel vector ``v``) - ti_notebook makes it
a constant vector or matrix of its values, when it is 1-D or 2-D, of numbers, and of at
most ``MAX_KERNEL_COMPONENTS`` elements; anything else is an error that says to pass
the array as a ``ti.types.ndarray()`` argument or copy it into a field.

The values are baked into the compiled kernel: like Taichi, changing the array later
(``n[0] = 7``) does not reach a kernel that already compiled. A kernel called after
such a change says so once (``session/stale_globals.py``), and the offline cache keys on
the array's contents (``cache/fingerprint.py``), so a changed array compiles again.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> cube = np.array([5, 4, 3])
    >>> @ti.kernel
    ... def cells() -> ti.i32:
    ...     count = 0
    ...     for I in ti.grouped(ti.ndrange(*(cube - 1))):
    ...         count += 1
    ...     return count * 1000 + cube[1] * 10 + cube[count % 3]
    >>> cells()
    24045
"""

from __future__ import annotations

import ast

import numpy as np

from ti_notebook.errors import TiIndexError, TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.pointers import MAX_KERNEL_COMPONENTS
from ti_notebook.frontend.values import Vector
from ti_notebook.frontend.vectors import index_positions, pick_element, vector_element
from ti_notebook.ir import nodes as ir

_HINT = (
    "pass it as a ti.types.ndarray() argument, or copy it into a field "
    "(x = ti.field(ti.f32, shape=a.shape); x.from_numpy(a))"
)


def is_array(value) -> bool:
    """Whether ``value`` is a NumPy array read from Python scope.

    >>> is_array(np.zeros(3)), is_array((1, 2))
    (True, False)
    """
    return isinstance(value, np.ndarray)


def known_while_compiling(value) -> bool:
    """Whether NumPy can compute with ``value`` while compiling (no kernel value in it)."""
    if is_array(value) or is_constant(value):
        return True
    if isinstance(value, (tuple, list)):
        return all(known_while_compiling(v) for v in value)
    return False


def constant_vector(ctx: TraceContext, array: np.ndarray, node: ast.AST, name: str) -> Vector:
    """``array`` as a kernel vector (1-D) or matrix (2-D) of its values, each a constant
    of the kernel's default type; an error at ``node`` when it cannot be one."""
    if array.dtype.kind not in "biuf":
        raise ctx.error(
            TiTypeError,
            node,
            f"NumPy array '{name}' of dtype {array.dtype} cannot be a kernel constant",
            "kernels compute on numbers: " + _HINT,
        )
    if array.ndim not in (1, 2):
        raise ctx.error(
            TiTypeError,
            node,
            f"NumPy array '{name}' of shape {array.shape} cannot be a kernel vector or "
            "matrix here (only 1-D or 2-D arrays can)",
            "index it with compile-time integers, or " + _HINT,
        )
    if array.size > MAX_KERNEL_COMPONENTS:
        raise ctx.error(
            TiTypeError,
            node,
            f"NumPy array '{name}' of shape {array.shape} is too big to be a kernel "
            f"constant ({array.size} elements; at most {MAX_KERNEL_COMPONENTS})",
            "index it with compile-time integers, or " + _HINT,
        )
    return Vector(array.reshape(-1).tolist(), array.shape)


def as_operand(ctx: TraceContext, value, node: ast.AST, name: str):
    """``value`` ready for kernel arithmetic: an array becomes a constant vector."""
    return constant_vector(ctx, value, node, name) if is_array(value) else value


def array_subscript(ctx: TraceContext, array: np.ndarray, node: ast.Subscript):
    """``a[k]``, ``a[i, j]``, ``a[i]`` (a row): NumPy's own indexing for indices known
    while compiling, a constant vector's element for one known only at run time."""
    name = ast.unparse(node.value)
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(part, ast.Slice) for part in parts):  # a[1:], m[:, 0]
        return vector_element(ctx, constant_vector(ctx, array, node.value, name), node)
    index = ctx.expr(node.slice)
    items = index if isinstance(index, tuple) else (index,)
    if all(_compile_time_int(i) for i in items):
        where = tuple(int(i.value if isinstance(i, ir.ConstStmt) else i) for i in items)
        try:
            return array[where]
        except IndexError:
            raise ctx.error(
                TiIndexError,
                node,
                f"index {where} out of range for NumPy array '{name}' of shape {array.shape}",
                "indices start at 0",
            ) from None
    vector = constant_vector(ctx, array, node.value, name)
    return pick_element(ctx, vector, index_positions(ctx, vector.shape, index, node))


def _compile_time_int(value) -> bool:
    if isinstance(value, ir.ConstStmt):
        return not value.dtype.is_float
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
