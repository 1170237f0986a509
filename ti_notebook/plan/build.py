"""Computing a tree's memory plan: cell sizes, offsets and each level's plan.

Called once when a tree is finalised (``lang/snode_tree.py``), on a :class:`PlanNode`
tree: the description of the SNode tree that ``lang`` hands down (kinds, axes,
extents, the placed fields' types), into which the plan writes what it computes (cell
sizes, offsets, level plans); the plan never reads the user's SNode objects. The result
is the read-only plan of ``plan/layout.py``. A node's cell holds its children side by
side, each aligned to its largest element, so a dense level is a row-major array of such
cells.

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

import dataclasses
import math

from ti_notebook.ir.types import DataType
from ti_notebook.plan import layout as _plan


@dataclasses.dataclass(eq=False)
class PlanNode:
    """One node of the tree the plan is computed from: what it reads (``kind``,
    ``axes`` as the field indexes them, ``extents``, ``name``; a place node's field's
    ``dtype``, ``field_name`` and ``index_offset``) and what it computes
    (``cell_size``, ``offset_in_parent``, ``level_plan``).

        >>> from ti_notebook.ir.types import f32
        >>> root = PlanNode("root")
        >>> cells = root.add(PlanNode("dense", (0,), (4,), "dense(i)"))
        >>> _ = cells.add(PlanNode("place", dtype=f32, field_name="x"))
        >>> layout_cells(root), cells.cell_size, path(cells) == [cells]
        (16, 4, True)
    """

    kind: str
    axes: tuple[int, ...] = ()
    extents: tuple[int, ...] = ()
    name: str = ""
    dtype: DataType | None = None
    field_name: str = ""
    index_offset: tuple[int, ...] = ()
    parent: PlanNode | None = None
    children: list[PlanNode] = dataclasses.field(default_factory=list)
    cell_size: int = 0
    offset_in_parent: int = 0
    level_plan: _plan.LevelPlan | None = None

    def add(self, child: PlanNode) -> PlanNode:
        child.parent = self
        self.children.append(child)
        return child


def path(node) -> list:
    """Levels from the root's first child down to ``node`` (place nodes left out); any
    node with ``kind`` and ``parent`` (a :class:`PlanNode`)."""
    nodes = []
    while node is not None and node.kind != "root":
        if node.kind != "place":
            nodes.append(node)
        node = node.parent
    return nodes[::-1]


def grid_shape(levels: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> tuple[int, ...]:
    """The index space spanned by a path's ``levels``, given as (axes, extents) pairs:
    per axis, the product of the extents along it (a field's shape, a level's grid).

        >>> grid_shape([((0, 1), (4, 4)), ((1,), (8,))])
        (4, 32)
    """
    shape = [1] * max((a + 1 for axes, _ in levels for a in axes), default=0)
    for axes, extents in levels:
        for a, e in zip(axes, extents, strict=True):
            shape[a] *= e
    return tuple(shape)


def cell_count(extents: list[tuple[int, ...]]) -> int:
    """How many cells the last level of a path has in the whole tree, from the
    ``extents`` of the path's levels."""
    return math.prod(math.prod(e) for e in extents)


def _spans(levels: list[PlanNode]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(node.axes, node.extents) for node in levels]


def walk(node):
    """The node and everything under it, depth first."""
    yield node
    for child in node.children:
        yield from walk(child)


def align(value: int, alignment: int) -> int:
    """``value`` rounded up to a multiple of ``alignment``."""
    return (value + alignment - 1) // alignment * alignment


def alignment(node: PlanNode) -> int:
    """The alignment a node's cell needs: its largest element's size."""
    if node.kind == "place":
        return node.dtype.size
    return max((alignment(c) for c in node.children), default=1)


def layout_cells(node: PlanNode) -> int:
    """Lays out ``node``'s cell (children side by side); returns the container size."""
    offset = 0
    for child in node.children:
        offset = align(offset, alignment(child))
        child.offset_in_parent = offset
        offset += layout_cells(child) if child.kind != "place" else child.dtype.size
    node.cell_size = align(offset, alignment(node)) if node.children else 0
    return node.cell_size * (math.prod(node.extents) if node.kind != "root" else 1)


def level(node: PlanNode, below_axes: dict, mask_offsets: dict) -> _plan.LevelPlan:
    """The plan of ``node``'s level; ``mask_offsets``: the tree offset of each sparse
    node's activity, by ``id`` of its :class:`PlanNode`."""
    grid = grid_shape(_spans(path(node)))
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


def path_levels(nodes: list, mask_offsets: dict) -> tuple[_plan.LevelPlan, ...]:
    """The plan of each level of a path's ``nodes``, indexed in the space of its last."""
    levels, below = [], {}
    for node in reversed(nodes):
        levels.append(level(node, below, mask_offsets))
        for a, e in zip(node.axes, node.extents, strict=True):
            below[a] = below.get(a, 1) * e
    return tuple(reversed(levels))


def field_layout(tree_id: int, leaf: PlanNode, mask_offsets: dict) -> _plan.FieldLayout:
    """The plan of the field placed at ``leaf``."""
    parent = leaf.parent
    levels = path(leaf)
    return _plan.FieldLayout(
        tree_id,
        leaf.field_name,
        leaf.dtype.name,
        grid_shape(_spans(levels)) if parent.kind != "root" else (),
        path_levels(levels, mask_offsets),
        leaf.offset_in_parent,
        parent.cell_size,
        leaf.index_offset,  # place(x, offset=...)
    )


def node_layout(tree_id: int, node: PlanNode, mask_offsets: dict) -> _plan.FieldLayout:
    """A node's cells as the elements of a pseudo-field (``u8`` at offset 0 of each)."""
    levels = path(node)
    return _plan.FieldLayout(
        tree_id,
        node.name,
        "u8",
        grid_shape(_spans(levels)),
        path_levels(levels, mask_offsets),
        0,
        node.cell_size,
    )
