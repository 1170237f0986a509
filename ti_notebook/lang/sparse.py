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

from ti_notebook.runtime.memory import before_host_access


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


def _bits(memory, level) -> np.ndarray:
    """A sparse level's activity bits as a bool array over its cell grid."""
    total = math.prod(level.grid)
    raw = memory.buffer[level.mask_offset : level.mask_offset + (total + 7) // 8]
    bits = np.unpackbits(raw, bitorder="little")[:total].astype(bool)
    return bits.reshape(level.grid)


def active_elements(field) -> np.ndarray:
    """Field-shaped bool array: True where every sparse cell on the path is active."""
    layout = field._layout
    memory = field._tree.memory
    active = np.ones(layout.shape, dtype=bool)
    grids = np.indices(layout.shape, dtype=np.int64)
    for level in _sparse_levels(layout):
        divisors = layout.cell_divisors(level)
        cell = tuple(grids[a] // divisor for a, divisor in enumerate(divisors))
        active &= _bits(memory, level)[cell]
    return active


def active_cells(node) -> list[int]:
    """Row-major numbers of the active cells of a sparse node."""
    level = node.layout().levels[-1]
    memory = node.builder.tree.memory
    before_host_access(memory, write=False)  # a CUDA kernel may have changed the bits
    return np.flatnonzero(_bits(memory, level)).tolist()


def deactivate_all(node) -> None:
    """Clears a sparse node's bits (and those below it) and zeroes what its cells held."""
    if node.kind not in ("pointer", "bitmasked"):
        raise TypeError("deactivate_all() is for pointer and bitmasked nodes")
    layout = node.layout()
    level = layout.levels[-1]
    memory = node.builder.tree.memory
    before_host_access(memory, write=True)
    if node.parent().kind == "root":
        # All of the node's cells are one range: zeroing it returns the pages.
        memory.zero(level.offset, level.num_cells * level.cell_size)
    else:
        # Inactive cells already hold zeros: clear the active ones only.
        starts = layout.addresses()[_bits(memory, level)]
        if level.cell_size <= 64:
            span = starts[:, None] + np.arange(level.cell_size)
            memory.buffer[span.ravel()] = 0
        else:
            for start in starts.tolist():
                memory.zero(start, level.cell_size)
    for sparse in node.sparse_subtree():
        below = sparse.level_plan
        memory.zero(below.mask_offset, (math.prod(below.grid) + 7) // 8)
