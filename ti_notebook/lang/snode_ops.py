"""The ``ti.*`` functions that act on SNodes: activity, dynamic lists, addresses.

Inside a kernel the frontend compiles calls to them (``frontend/sparse_ops.py``,
``frontend/snode_builtins.py``); from Python, ``ti.is_active``, ``ti.activate``,
``ti.deactivate``, ``ti.append``, ``ti.length`` and ``ti.rescale_index`` compute on the
tree's memory directly (Taichi allows most of them in kernels only), while
``ti.get_addr`` and ``ti.no_activate`` are kernel-only.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> block = ti.root.pointer(ti.ij, 4)
    >>> block.dense(ti.ij, 2).place(x)
    <ti.SNode dense>
    >>> ti.rescale_index(x, block, [5, 2]).tolist()
    [2, 1]
    >>> ti.activate(block, [2, 1]); ti.is_active(block, [2, 1])
    1
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.lang import dynamic, sparse
from ti_notebook.lang.field import live_trees


def is_active(node, indices) -> int:
    """``ti.is_active(node, I)``: 1 when ``node``'s cell ``I`` (an index in the node's
    own index space) and the sparse cells above it are active, else 0."""
    return sparse.is_active(node, indices)


def activate(node, indices) -> None:
    """``ti.activate(node, I)``: activates ``node``'s cell ``I`` and those above it."""
    sparse.activate(node, indices)


def deactivate(node, indices) -> None:
    """``ti.deactivate(node, I)``: deactivates cell ``I`` and zeroes what it held; on a
    dynamic node ``I`` names a list, which becomes empty."""
    sparse.deactivate(node, indices)


def append(node, indices, value) -> int:
    """``ti.append(node, I, value)``: appends ``value`` (one value per field component
    placed in the dynamic ``node``) to list ``I``; returns the list's old length."""
    return dynamic.append(node, indices, value)


def length(node, indices) -> int:
    """``ti.length(node, I)``: the length of list ``I`` of the dynamic ``node``."""
    return dynamic.length(node, indices)


def deactivate_all_snodes() -> None:
    """``ti.deactivate_all_snodes()``: every sparse node of every tree becomes inactive
    (dynamic lists empty) and what their cells held reads 0."""
    for tree in live_trees():
        if not tree.destroyed:
            sparse.deactivate_all(tree.builder.root)


def _shape_of(value, name: str) -> tuple[int, ...]:
    shape = getattr(value, "shape", None)
    if shape is None or isinstance(value, np.ndarray):
        raise TiTypeError(
            f"ti.rescale_index(): {name} must be a field or an SNode, got {type(value).__name__}",
            hint="e.g. ti.rescale_index(x, x.snode.parent(2), I)",
        )
    return tuple(shape)


def rescale_factors(a, b) -> list[tuple[str, int]]:
    """Per axis shared by ``a`` and ``b``: how an index of ``a`` becomes one of ``b``,
    ``("div", k)``, ``("mul", k)`` or ``("keep", 1)`` (Taichi's ``rescale_index``)."""
    shape_a, shape_b = _shape_of(a, "the first argument"), _shape_of(b, "the second argument")
    factors = []
    for extent_a, extent_b in zip(shape_a, shape_b, strict=False):
        if extent_a > extent_b:
            factors.append(("div", extent_a // extent_b))
        elif extent_a < extent_b:
            factors.append(("mul", extent_b // extent_a))
        else:
            factors.append(("keep", 1))
    return factors


def rescale_index(a, b, I):  # noqa: E741 - Taichi's name
    """``ti.rescale_index(a, b, I)``: index ``I`` of field or SNode ``a`` as an index of
    SNode (or field) ``b``: divided where ``b`` is coarser, multiplied where finer."""
    values = [int(v) for v in np.asarray(I).reshape(-1)]
    for axis, (how, k) in enumerate(rescale_factors(a, b)[: len(values)]):
        if how == "div":
            values[axis] //= k
        elif how == "mul":
            values[axis] *= k
    return np.array(values)


def _kernel_only(name: str, hint: str):
    def call(*args, **kwargs):
        raise TiSyntaxError(f"ti.{name}() can only be used inside a kernel", hint=hint)

    call.__name__ = call.__qualname__ = name
    return call


get_addr = _kernel_only(
    "get_addr", "the address is the kernel's view of memory; from Python, x.layout().address(I)"
)
get_addr.__doc__ = """``ti.get_addr(f, I)`` in a kernel: the u64 address of element ``I`` of
field (or SNode) ``f``: the tree's base plus ``f.layout().address(I)``."""

no_activate = _kernel_only("no_activate", "call it at the top of the kernel that writes")
no_activate.__doc__ = """``ti.no_activate(*fields)`` in a kernel: writes to these fields in
this kernel activate no cell; a write to an inactive cell is dropped (it stays
inactive and reads 0), so the kernel saves the activation's test and atomic."""
