"""Activity of sparse SNodes (``pointer``, ``bitmasked``) seen from Python.

Each sparse node has one bit per cell in its tree's bitmask region (the plan's
``mask_offset``); a cell's storage is part of the tree's lazily committed region, so a
``pointer`` cell costs memory only once written, and an inactive cell always holds
zeros: deactivation clears the bit and zeroes (releases) the cell's storage.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> block = ti.root.pointer(ti.i, 4)
    >>> block.dense(ti.i, 8).place(x)
    <ti.SNode dense>
    >>> x[9] = 1.0
    >>> active_cells(block)
    [1]
"""

from __future__ import annotations

import math

import numpy as np


def _sparse_levels(layout):
    return [level for level in layout.levels if level.is_sparse]


def _set_bit(memory, mask_offset: int, g: int) -> None:
    memory.buffer[mask_offset + (g >> 3)] |= np.uint8(1 << (g & 7))


def activate_path(field, index: tuple[int, ...]) -> None:
    """Python-scope write: activates every sparse cell on the element's path."""
    layout = field._layout
    if not layout.is_sparse:
        return
    for level in _sparse_levels(layout):
        _set_bit(field._tree.memory, level.mask_offset, layout.cell_index(level, index))


def activate_all(field) -> None:
    """``fill``/``from_numpy`` on a sparse field: every cell becomes active."""
    memory = field._tree.memory
    for level in _sparse_levels(field._layout):
        total = math.prod(level.grid)
        memory.buffer[level.mask_offset : level.mask_offset + (total + 7) // 8] = 0xFF


def _fields_under(node):
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind == "place":
            yield current.field
        stack.extend(current.children)


def _level_of(layout, node):
    return layout.levels[len(node.path()) - 1]


def active_cells(node) -> list[int]:
    """Row-major numbers of the active cells of a sparse node."""
    field = next(_fields_under(node))
    layout = field.layout()
    level = _level_of(layout, node)
    total = math.prod(level.grid)
    raw = field._tree.memory.buffer[level.mask_offset : level.mask_offset + (total + 7) // 8]
    bits = np.unpackbits(raw, bitorder="little")[:total]
    return np.flatnonzero(bits).tolist()


def deactivate_all(node) -> None:
    """Clears a sparse node's bits (and those below it) and zeroes what its cells held."""
    if node.kind not in ("pointer", "bitmasked"):
        raise TypeError("deactivate_all() is for pointer and bitmasked nodes")
    fields = list(_fields_under(node))
    if not fields:
        return
    tree = fields[0].tree
    memory = tree.memory
    for f in fields:
        layout = f.layout()
        depth = len(node.path()) - 1
        for level in layout.levels[depth:]:
            if level.is_sparse:
                total = math.prod(level.grid)
                memory.zero(level.mask_offset, (total + 7) // 8)
        if all(n.kind == "root" for n in [node.parent()]):
            level = layout.levels[depth]
            memory.zero(level.offset, level.num_cells * level.cell_size)
        else:
            addresses = layout.addresses().ravel()
            view = f._flat_view()
            view[addresses // f.dtype.size] = 0
