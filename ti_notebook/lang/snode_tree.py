"""A finalised SNode tree (``ti.SNodeTree``): its memory plan, its memory, its fields.

``FieldsBuilder.finalize()`` (and ``ti.root``'s first use) makes one: it lays out the
cells (``plan/build.py``), puts the sparse nodes' activity bits or list lengths after
them, checks that no node has more cells than a 32-bit loop index reaches, reserves the
bytes and binds every placed field to its plan. A tree too large for memory or for an
index is refused with a message naming its fields.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> fb = ti.FieldsBuilder()
    >>> x = ti.field(ti.f32)
    >>> fb.dense(ti.i, 4).place(x)
    <ti.SNode dense>
    >>> tree = fb.finalize()
    >>> tree.nbytes, [f.name for f in tree.fields], tree.destroyed
    (16, ['x'], False)
    >>> tree.destroy()
    >>> tree.destroyed
    True
"""

from __future__ import annotations

from ti_notebook.errors import TiMemoryError, TiRuntimeError, TiValueError
from ti_notebook.plan import build as _layout
from ti_notebook.plan import layout as _plan
from ti_notebook.runtime.memory import allocate_tree

__all__ = ["MAX_CELLS", "SPARSE_KINDS", "SNodeTree", "described"]

# the node kinds whose cells are active or not: their bits (lengths) follow the cells
SPARSE_KINDS = ("pointer", "bitmasked", "dynamic")

# Loop counters and cell numbers are 32-bit, as in Taichi, which refuses larger fields too.
MAX_CELLS = (1 << 31) - 1


def _check_cell_counts(root) -> None:
    for node in _layout.walk(root):
        if node.kind == "place":
            continue
        cells = node.cells_in_tree()
        if cells > MAX_CELLS:
            what = ", ".join(
                leaf.field.label for leaf in _layout.walk(node) if leaf.kind == "place"
            )
            raise TiValueError(
                f"{what or 'a node'} would have {cells:,} cells, more than {MAX_CELLS:,} "
                "(2**31 - 1), the most a loop index can address",
                hint="split the data over several fields (e.g. one per slab of the outer axis)",
            )


def described(node, parent: _layout.PlanNode | None = None) -> _layout.PlanNode:
    """The plan's description of ``node`` and its subtree (``plan/build.py``); each SNode
    keeps its own as ``_plan_node``, where the plan writes its sizes and offsets."""
    if node.kind == "place":
        field = node.field
        offset = tuple(getattr(node, "index_offset", ()))
        planned = _layout.PlanNode(
            "place", dtype=field.dtype, field_name=field.name, index_offset=offset
        )
    else:
        planned = _layout.PlanNode(node.kind, node.axes, node.extents, node.name)
    if parent is not None:
        parent.add(planned)
    node._plan_node = planned
    for child in node.children:
        described(child, planned)
    return planned


class SNodeTree:
    """A finalised tree: its memory and its plan. ``destroy()`` frees both.

    ``builder`` is the ``FieldsBuilder`` (``lang/snode.py``) whose root it lays out."""

    def __init__(self, builder) -> None:
        self.builder = builder
        root = described(builder.root)
        size = _layout.layout_cells(root)
        sparse = [n for n in _layout.walk(root) if n.kind in SPARSE_KINDS]
        # by id of the PlanNode: bits, or a dynamic node's lengths, after all cells
        mask_offsets = {}
        for node in sparse:
            size = _layout.align(size, 8)  # u32 bit words, i32 lengths: even after u8 cells
            mask_offsets[id(node)] = size
            cells = _layout.cell_count([level.extents for level in _layout.path(node)])
            size += _plan.activity_bytes(node.kind, cells, node.extents)
        self.mask_offsets = mask_offsets
        self.nbytes = size
        _check_cell_counts(builder.root)
        try:
            self.memory = allocate_tree(size, huge_pages=not sparse)
        except TiMemoryError:
            raise
        except MemoryError as error:
            # a matrix field's components share its label: each name once, the first few
            labels = (leaf.field.label for leaf in _layout.walk(builder.root) if leaf.field)
            names = list(dict.fromkeys(labels))
            more = f" and {len(names) - 4} more" if len(names) > 4 else ""
            shown = ", ".join(names[:4]) + more
            raise TiMemoryError(
                f"cannot reserve {size:,} bytes for {shown or 'an empty tree'}: {error}",
                hint="use smaller shapes, a sparse layout (ti.root.pointer) for mostly empty "
                "fields, or destroy() trees that are no longer needed",
            ) from None
        self.tree_id = self.memory.tree_id
        self.fields = []
        for node in _layout.walk(builder.root):
            planned = node._plan_node
            if node.kind == "place":
                node.field._bind(self, _layout.field_layout(self.tree_id, planned, mask_offsets))
                self.fields.append(node.field)
            elif node.kind != "root":
                planned.level_plan = _layout.level(planned, {}, mask_offsets)
                node.level_plan = planned.level_plan

    @property
    def destroyed(self) -> bool:
        return not self.memory.alive

    def check_alive(self) -> None:
        if not self.memory.alive:
            raise TiRuntimeError(
                f"SNode tree {self.tree_id} was destroyed",
                hint="declare the fields again in a new FieldsBuilder",
            )

    def destroy(self) -> None:
        """Frees the tree's memory; its fields and kernels using them stop working.

        Called from another thread while a kernel runs, it waits for that launch to end.
        """
        from ti_notebook.lang import settings
        from ti_notebook.runtime.launch import no_launch_running

        with no_launch_running():
            if not self.memory.alive:
                raise TiRuntimeError(
                    f"SNode tree {self.tree_id} is already destroyed",
                    hint="destroy() each tree once",
                )
            self.memory.free()
            settings.bump_generation()  # compiled kernels may point into this tree

    def resident_bytes(self) -> int:
        return self.memory.resident_bytes()
