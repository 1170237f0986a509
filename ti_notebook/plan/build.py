"""Computing a tree's memory plan: cell sizes, offsets and each level's plan.

Called once when a tree is finalised (``lang/snode.py``); the result is the read-only
plan of ``plan/layout.py``. A node's cell holds its children side by side, each aligned
to its largest element, so a dense level is a row-major array of such cells.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> y = ti.field(ti.f64)
    >>> ti.root.dense(ti.i, 4).place(x, y)
    <ti.SNode dense>
    >>> x.layout().cell_size, y.layout().offset_in_cell  # f32 then f64, 8-aligned
    (16, 8)
"""

from __future__ import annotations

import math

from ti_notebook.plan import layout as _plan


def walk(node):
    """The node and everything under it, depth first."""
    yield node
    for child in node.children:
        yield from walk(child)


def align(value: int, alignment: int) -> int:
    """``value`` rounded up to a multiple of ``alignment``."""
    return (value + alignment - 1) // alignment * alignment


def alignment(node) -> int:
    """The alignment a node's cell needs: its largest element's size."""
    if node.kind == "place":
        return node.field.dtype.size
    return max((alignment(c) for c in node.children), default=1)


def layout_cells(node) -> int:
    """Lays out ``node``'s cell (children side by side); returns the container size."""
    offset = 0
    for child in node.children:
        offset = align(offset, alignment(child))
        child.offset_in_parent = offset
        offset += layout_cells(child) if child.kind != "place" else child.field.dtype.size
    node.cell_size = align(offset, alignment(node)) if node.children else 0
    return node.cell_size * (math.prod(node.extents) if node.kind != "root" else 1)


def level(node, below_axes: dict, mask_offsets: dict) -> _plan.LevelPlan:
    ndim = max((a + 1 for n in node.path() for a in n.axes), default=0)
    grid = [1] * ndim
    for upper in node.path():
        for a, e in zip(upper.axes, upper.extents, strict=True):
            grid[a] *= e
    strides, step = [], node.cell_size
    for extent in reversed(node.extents):
        strides.append(step)
        step *= extent
    below = tuple(below_axes.get(a, 1) for a in node.axes)
    return _plan.LevelPlan(
        node.kind,
        node.axes,
        node.extents,
        below,
        node.cell_size,
        tuple(reversed(strides)),
        node.offset_in_parent,
        math.prod(node.extents),
        mask_offsets.get(id(node)),
        tuple(grid),
    )


def path_levels(path: list, mask_offsets: dict) -> tuple[_plan.LevelPlan, ...]:
    """The plan of each level of ``path``, indexed in the space of the path's last node."""
    levels, below = [], {}
    for node in reversed(path):
        levels.append(level(node, below, mask_offsets))
        for a, e in zip(node.axes, node.extents, strict=True):
            below[a] = below.get(a, 1) * e
    return tuple(reversed(levels))


def field_layout(tree_id: int, leaf, mask_offsets: dict) -> _plan.FieldLayout:
    parent = leaf.parent()
    return _plan.FieldLayout(
        tree_id,
        leaf.field.name,
        leaf.field.dtype.name,
        parent.shape if parent.kind != "root" else (),
        path_levels(leaf.path(), mask_offsets),
        leaf.offset_in_parent,
        parent.cell_size,
        tuple(getattr(leaf, "index_offset", ())),  # place(x, offset=...)
    )


def node_layout(tree_id: int, node, mask_offsets: dict) -> _plan.FieldLayout:
    """A node's cells as the elements of a pseudo-field (``u8`` at offset 0 of each)."""
    return _plan.FieldLayout(
        tree_id,
        node.name,
        "u8",
        node.shape,
        path_levels(node.path(), mask_offsets),
        0,
        node.cell_size,
    )
