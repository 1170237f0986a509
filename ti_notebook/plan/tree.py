"""``snode.plan()``: the memory plan of an SNode and everything under it, read-only.

Each node reports what codegen uses: its cells, their size and strides, where its cells
sit inside the parent's cell, and, for sparse nodes, where its activity bits are.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> y = ti.field(ti.i32)
    >>> blk = ti.root.pointer(ti.i, 4)
    >>> blk.dense(ti.i, 8).place(x, y)
    <ti.SNode dense>
    >>> print(blk.plan())
    pointer(i) extents=(4,) cells=4 x 64 B strides=(64,) at +0, bits at +256
      dense(i) extents=(8,) cells=8 x 8 B strides=(8,) at +0
        x: f32 at +0 of the cell
        y: i32 at +4 of the cell
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class SNodePlan:
    """One node of the plan; ``children`` are nodes, ``fields`` the fields placed here."""

    kind: str
    axes: tuple[int, ...]
    extents: tuple[int, ...]
    cell_size: int
    strides: tuple[int, ...]
    offset: int  # of this node's cells inside the parent's cell
    mask_offset: int | None  # sparse nodes: tree offset of the activity bits (dynamic: lengths)
    fields: tuple[tuple[str, str, int], ...]  # (name, dtype, offset inside the cell)
    children: tuple[SNodePlan, ...]

    @property
    def num_cells(self) -> int:
        count = 1
        for extent in self.extents:
            count *= extent
        return count

    def lines(self, depth: int = 0) -> list[str]:
        pad = "  " * depth
        if self.kind == "root":
            head = [f"{pad}root: one cell of {self.cell_size} B"]
        else:
            axes = "".join("ijkl"[a] for a in self.axes)
            what = "lengths" if self.kind == "dynamic" else "bits"
            bits = f", {what} at +{self.mask_offset}" if self.mask_offset is not None else ""
            head = [
                f"{pad}{self.kind}({axes}) extents={self.extents} cells={self.num_cells} x "
                f"{self.cell_size} B strides={self.strides} at +{self.offset}{bits}"
            ]
        for name, dtype, offset in self.fields:
            head.append(f"{pad}  {name}: {dtype} at +{offset} of the cell")
        for child in self.children:
            head.extend(child.lines(depth + 1))
        return head

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython shows the text
        printer.text(str(self))


def plan_of(node) -> SNodePlan:
    """Builds the plan of a finalised node from its tree's computed layout (``node``: the
    node's ``plan/build.py`` PlanNode)."""
    fields, children = [], []
    for child in node.children:
        if child.kind == "place":
            fields.append((child.field_name, child.dtype.name, child.offset_in_parent))
        else:
            children.append(plan_of(child))
    level = node.level_plan
    return SNodePlan(
        node.kind,
        node.axes,
        node.extents,
        node.cell_size,
        level.strides if level else (),
        level.offset if level else 0,
        level.mask_offset if level else None,
        tuple(fields),
        tuple(children),
    )
