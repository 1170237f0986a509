"""Activity of sparse SNodes (``pointer``, ``bitmasked``, ``dynamic``) seen from Python.

Each ``pointer``/``bitmasked`` node has one bit per cell in its tree's bitmask region
(the plan's ``mask_offset``), a ``dynamic`` node one length per list
(``lang/dynamic.py``); a cell's storage is part of the tree's lazily committed region, so
a ``pointer`` cell costs memory only once written, and an inactive cell always holds
zeros: deactivation clears the bit (or the length) and zeroes the cell's storage.

``ti.is_active``, ``ti.activate`` and ``ti.deactivate`` work from Python as they do in a
kernel (Taichi allows them in kernels only): the node, then an index in the node's own
index space.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> block = ti.root.pointer(ti.i, 4)
    >>> block.dense(ti.i, 8).place(x)
    <ti.SNode dense>
    >>> x[9] = 1.0
    >>> active_cells(block), ti.is_active(block, 2)
    ([1], 0)
    >>> ti.deactivate(block, 1)
    >>> x[9], active_cells(block)
    (0.0, [])
"""

from __future__ import annotations

import math

import numpy as np

from ti_notebook.errors import TiIndexError, TiTypeError
from ti_notebook.lang import dynamic, loop_registry
from ti_notebook.runtime.memory import before_host_access


def _bit_levels(layout):
    return [level for level in layout.levels if level.has_bits]


def _set_bit(memory, mask_offset: int, g: int) -> None:
    memory.buffer[mask_offset + (g >> 3)] |= np.uint8(1 << (g & 7))


def activate_path(field, index: tuple[int, ...]) -> None:
    """Python-scope write: activates every sparse cell on the element's path (and makes
    a dynamic list long enough to hold the element)."""
    layout = field._layout
    if not layout.is_sparse:
        return
    memory = field._tree.memory
    for level in layout.levels:
        if level.has_bits:
            _set_bit(memory, level.mask_offset, layout.cell_index(level, index))
        elif level.is_dynamic:
            dynamic.grow_to(layout, level, memory, index)


def _bits(memory, level) -> np.ndarray:
    """A sparse level's activity bits as a bool array over its cell grid."""
    total = math.prod(level.grid)
    raw = memory.buffer[level.mask_offset : level.mask_offset + (total + 7) // 8]
    bits = np.unpackbits(raw, bitorder="little")[:total].astype(bool)
    return bits.reshape(level.grid)


def active_elements(field) -> np.ndarray:
    """Field-shaped bool array: True where every sparse cell on the path is active (a
    compiled struct-for over the field marks the cells it visits)."""
    return loop_registry.loops().active_mask(field)


def active_cells(node) -> list[int]:
    """Row-major numbers of the active cells of a sparse node."""
    layout = node.layout()
    if layout.levels[-1].is_dynamic:  # a list's cells are its fields' elements
        placed = [child.field for child in node.children if child.kind == "place"]
        return np.flatnonzero(active_elements(placed[0])).tolist() if placed else []
    memory = node.builder.tree.memory
    before_host_access(memory, write=False)  # a CUDA kernel may have changed the bits
    return np.flatnonzero(_bits(memory, layout.levels[-1])).tolist()


# -- ti.is_active / ti.activate / ti.deactivate from Python --------------------------------
def _sparse_node(node, name: str, dynamic_ok: bool):
    kind = getattr(node, "kind", None)
    if kind in ("pointer", "bitmasked") or (dynamic_ok and kind == "dynamic"):
        return node
    if kind == "dynamic":
        raise TiTypeError(
            f"ti.{name}() works on pointer and bitmasked nodes, not on a dynamic node",
            hint="a dynamic list's cells [0, ti.length(node, i)) are active; "
            "ti.append adds one, ti.deactivate(node, i) empties the list",
        )
    raise TiTypeError(
        f"ti.{name}() needs a pointer or bitmasked SNode, got "
        + (f"a {kind} node" if kind else type(node).__name__),
        hint="a dense cell is always active; pass the sparse node, e.g. x.snode.parent()",
    )


def _node_index(node, indices, name: str) -> tuple[int, ...]:
    items = list(indices) if isinstance(indices, (tuple, list, np.ndarray)) else [indices]
    shape = node.shape
    if len(items) != len(shape):
        raise TiIndexError(
            f"ti.{name}() got {len(items)} index(es) for a {len(shape)}-D node of shape {shape}",
            hint="indices are in the node's own index space, one per axis",
        )
    for i, extent in zip(items, shape, strict=True):
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TiTypeError(f"ti.{name}(): index {i!r} is not an integer")
        if not 0 <= i < extent:
            raise TiIndexError(f"ti.{name}(): index {tuple(items)} is outside shape {shape}")
    return tuple(int(i) for i in items)


def is_active(node, indices) -> int:
    """``ti.is_active(node, I)``: 1 when the node's cell ``I`` and the sparse cells
    above it are active, else 0."""
    index = _node_index(_sparse_node(node, "is_active", False), indices, "is_active")
    layout = node.layout()
    memory = node.builder.tree.memory
    before_host_access(memory, write=False)
    for level in _bit_levels(layout):
        g = layout.cell_index(level, index)
        if not memory.buffer[level.mask_offset + (g >> 3)] & (1 << (g & 7)):
            return 0
    return 1


def activate(node, indices) -> None:
    """``ti.activate(node, I)``: activates cell ``I`` and the sparse cells above it."""
    index = _node_index(_sparse_node(node, "activate", False), indices, "activate")
    layout = node.layout()
    memory = node.builder.tree.memory
    before_host_access(memory, write=True)
    for level in _bit_levels(layout):
        _set_bit(memory, level.mask_offset, layout.cell_index(level, index))


def deactivate(node, indices) -> None:
    """``ti.deactivate(node, I)``: deactivates cell ``I`` and zeroes what it held (the
    sparse cells inside it become inactive too); on a dynamic node, empties list ``I``."""
    if _sparse_node(node, "deactivate", True).kind == "dynamic":
        dynamic.clear_list(node, indices)
        return
    index = _node_index(node, indices, "deactivate")
    layout = node.layout()
    level = layout.levels[-1]
    memory = node.builder.tree.memory
    before_host_access(memory, write=True)
    g = layout.cell_index(level, index)
    byte, bit = level.mask_offset + (g >> 3), np.uint8(1 << (g & 7))
    if not memory.buffer[byte] & bit:
        return
    memory.buffer[byte] &= ~bit
    memory.zero(layout.address(index), level.cell_size)
    for below in node.sparse_subtree():
        if below is not node:
            _clear_inside(node, index, below, memory)


def _clear_inside(node, index: tuple[int, ...], below, memory) -> None:
    """Deactivates the cells of sparse node ``below`` lying inside ``node``'s cell
    ``index`` (their storage was zeroed with it)."""
    plan = below.level_plan
    ratios = [g // (node.shape[a] if a < len(node.shape) else 1) for a, g in enumerate(plan.grid)]
    starts = [index[a] * r if a < len(index) else 0 for a, r in enumerate(ratios)]
    inside = tuple(slice(s, s + r) for s, r in zip(starts, ratios, strict=True))
    if plan.is_dynamic:
        counts = dynamic.lengths(plan, memory)
        axis = plan.axes[0]
        counts[tuple(s for a, s in enumerate(inside) if a != axis)] = 0
        return
    bits = _bits(memory, plan)
    bits[inside] = False
    packed = np.packbits(bits.reshape(-1), bitorder="little")
    memory.buffer[plan.mask_offset : plan.mask_offset + packed.size] = packed


# -- deactivate_all ----------------------------------------------------------------------
def deactivate_all(node) -> None:
    """Deactivates every sparse node in ``node``'s subtree (``node`` of any kind) and
    zeroes what their cells held; dynamic lists become empty."""
    covered: set[int] = set()
    for sparse in node.sparse_subtree():
        if id(sparse) not in covered:
            _deactivate_all_cells(sparse)
            covered.update(id(n) for n in sparse.sparse_subtree())


def _deactivate_all_cells(node) -> None:
    layout = node.layout()
    level = layout.levels[-1]
    memory = node.builder.tree.memory
    if node.parent().kind != "root":
        # Inactive cells already hold zeros: a compiled loop over the active ones (the
        # lists) deactivates each, zeroing it and clearing the sparse cells inside it.
        loop_registry.loops().deactivate_cells(node)
        return
    before_host_access(memory, write=True)
    # All of the node's cells are one range: zeroing it returns the pages.
    memory.zero(level.offset, level.num_cells * level.cell_size)
    for sparse in node.sparse_subtree():
        memory.zero(*sparse.level_plan.activity_span)
