"""The memory plan: where every element of every field of an SNode tree lives.

Computed once when a tree is finalised (DESIGN.md section 4) and read-only afterwards.
Codegen computes addresses from it, and so do ``to_numpy`` and the layout widget, so
what a picture shows is what the machine does. For a field on the path
``root → L1 → ... → Lk → place``, the byte address of index ``I`` relative to the
tree's base is

    sum over levels L of  offset_L + sum over axes a of L of
        ((I[a] // below[L, a]) % extent[L, a]) * stride[L, a]
    + offset of the field inside its cell

where ``below[L, a]`` is the product of the extents of axis ``a`` in the levels under
``L``. A dense level ``dense(ti.ij, (3, 4))`` is row-major over its own axes, so

    >>> from ti_notebook.ir.types import f32
    >>> lv = LevelPlan("dense", (0, 1), (3, 4), (1, 1), 4, (16, 4), 0, 12, None, (3, 4))
    >>> layout = FieldLayout(0, "x", "f32", (3, 4), (lv,), 0, 4)
    >>> layout.address((1, 2)), layout.strides
    (24, (16, 4))
"""

from __future__ import annotations

import dataclasses

import numpy as np


def mask_bytes(cells: int) -> int:
    """Bytes of a sparse level's activity bitmask: one bit per cell in 64-bit words (the
    tree reserves it, and a struct-for's snapshot copies it, with this one rule).

        >>> mask_bytes(1), mask_bytes(64), mask_bytes(65)
        (8, 8, 16)
    """
    return (cells + 63) // 64 * 8


def activity_bytes(kind: str, cells: int, extents: tuple[int, ...]) -> int:
    """Bytes a sparse level's activity takes in its tree: the bitmask of a ``pointer`` or
    ``bitmasked`` level (:func:`mask_bytes`), or the ``i32`` lengths of a ``dynamic``
    level, one per list (its cells over the whole tree divided by the list's capacity),
    padded to 8 bytes. ``cells`` is the level's cells over the whole tree.

        >>> activity_bytes("bitmasked", 100, (100,)), activity_bytes("dynamic", 4 * 8, (8,))
        (16, 16)
    """
    if kind == "dynamic":
        return (cells // extents[0] * 4 + 7) // 8 * 8
    return mask_bytes(cells)


@dataclasses.dataclass(frozen=True)
class LevelPlan:
    """One SNode level on a field's path from the root."""

    kind: str  # dense | pointer | bitmasked
    axes: tuple[int, ...]  # field axes split here, in the order of the dense() call
    extents: tuple[int, ...]  # cells along each of ``axes``
    below: tuple[int, ...]  # per axis: product of that axis's extents further down
    cell_size: int  # bytes of one cell
    strides: tuple[int, ...]  # bytes between neighbouring cells along each axis
    offset: int  # byte offset of this level's cells inside the parent's cell
    num_cells: int  # cells of this level inside one parent cell
    # sparse levels: tree offset of the activity bitmask, or of a dynamic level's lengths
    mask_offset: int | None
    # per field axis: cells of this level along it over the whole tree (bitmask grid)
    grid: tuple[int, ...] = ()

    @property
    def is_sparse(self) -> bool:
        """Whether some of the level's cells may be inactive (a struct-for skips them)."""
        return self.kind in ("pointer", "bitmasked", "dynamic")

    @property
    def has_bits(self) -> bool:
        """A ``pointer``/``bitmasked`` level: one activity bit per cell at ``mask_offset``."""
        return self.kind in ("pointer", "bitmasked")

    @property
    def is_dynamic(self) -> bool:
        """A ``dynamic`` level: lists of at most ``extents[0]`` cells along ``axes[0]``; the
        cells ``[0, length)`` of a list are active, its ``i32`` length is at
        ``mask_offset + 4 * list number`` (:meth:`FieldLayout.list_number`)."""
        return self.kind == "dynamic"

    @property
    def activity_span(self) -> tuple[int, int]:
        """(tree offset, bytes) of this sparse level's bits or lengths."""
        cells = 1
        for count in self.grid:
            cells *= count
        return self.mask_offset, activity_bytes(self.kind, cells, self.extents)


@dataclasses.dataclass(frozen=True)
class FieldLayout:
    """The memory plan of one field (``field.layout()``)."""

    tree_id: int
    name: str
    dtype_name: str
    shape: tuple[int, ...]
    levels: tuple[LevelPlan, ...]
    offset_in_cell: int  # the field's offset inside its leaf cell
    cell_size: int  # bytes of the leaf cell (all fields placed together)
    # ``offset=`` of the declaration: the user's index of position 0 on each axis (empty:
    # zeros). Every other method takes positions (indices counted from 0); the user's
    # index is position + index_offset, and code subtracts it before the arithmetic.
    index_offset: tuple[int, ...] = ()

    @property
    def itemsize(self) -> int:
        return int(self.dtype_name[1:]) // 8

    @property
    def origin(self) -> tuple[int, ...]:
        """The user's index of position 0 on each axis (``offset=``; zeros without one).

        >>> lv = LevelPlan("dense", (0,), (4,), (1,), 4, (4,), 0, 4, None, (4,))
        >>> plan = FieldLayout(0, "x", "f32", (4,), (lv,), 0, 4, (-2,))
        >>> plan.origin, plan.position((-1,)), plan.address(plan.position((-1,)))
        ((-2,), (1,), 4)
        """
        return tuple(self.index_offset) or (0,) * len(self.shape)

    def position(self, index) -> tuple[int, ...]:
        """The position (from 0) of the user's ``index`` (see :attr:`origin`)."""
        return tuple(int(i) - o for i, o in zip(index, self.origin, strict=True))

    def user_index(self, position) -> tuple[int, ...]:
        """The user's index of ``position``: what errors and pictures show."""
        return tuple(int(p) + o for p, o in zip(position, self.origin, strict=True))

    @property
    def offset(self) -> int:
        """Address of element 0 (all indices zero)."""
        return self.address((0,) * len(self.shape))

    @property
    def end(self) -> int:
        """Bytes from the tree's base to the end of the field's last cell: every element
        (active or not: a tree reserves all its cells) lies below it, so a kernel may
        read anywhere in ``[base, base + end)`` without faulting.

        >>> level = LevelPlan("dense", (0,), (4,), (1,), 8, (8,), 0, 4, None)
        >>> FieldLayout(0, "x", "f32", (4,), (level,), 4, 8).end
        32
        """
        total = self.offset_in_cell + self.itemsize
        for level in self.levels:
            total += level.offset
            total += sum(
                (extent - 1) * stride
                for extent, stride in zip(level.extents, level.strides, strict=True)
            )
        return total

    def address(self, index) -> int:
        """Byte address of ``index`` relative to the tree's base."""
        total = self.offset_in_cell
        for level in self.levels:
            total += level.offset
            for a, extent, below, stride in zip(
                level.axes, level.extents, level.below, level.strides, strict=True
            ):
                total += (index[a] // below % extent) * stride
        return total

    def addresses(self) -> np.ndarray:
        """Byte addresses of every element, shaped like the field (vectorised)."""
        grids = np.indices(self.shape, dtype=np.int64) if self.shape else np.zeros((0,))
        return self._addresses_of(grids, self.shape)

    def addresses_at(self, indices) -> np.ndarray:
        """Byte addresses of the elements at ``indices``, an ``(n, ndim)`` array: what
        :meth:`addresses` gives for them, without computing the rest of the field.

            >>> lv = LevelPlan("dense", (0,), (8,), (1,), 4, (4,), 0, 8, None, (8,))
            >>> FieldLayout(0, "x", "f32", (8,), (lv,), 0, 4).addresses_at([[2], [7]]).tolist()
            [8, 28]
        """
        grids = np.asarray(indices, dtype=np.int64).reshape(-1, len(self.shape)).T
        return self._addresses_of(grids, grids.shape[1:])

    def _addresses_of(self, grids, shape) -> np.ndarray:
        total = np.full(shape, self.offset_in_cell, dtype=np.int64)
        for level in self.levels:
            total += level.offset
            for a, extent, below, stride in zip(
                level.axes, level.extents, level.below, level.strides, strict=True
            ):
                total += (grids[a] // below % extent) * stride
        return total

    @property
    def strides(self) -> tuple[int, ...] | None:
        """Byte stride per axis when each axis is split by one level only, else None."""
        found: dict[int, int] = {}
        for level in self.levels:
            for a, stride in zip(level.axes, level.strides, strict=True):
                if a in found:
                    return None
                found[a] = stride
        return tuple(found.get(a, 0) for a in range(len(self.shape)))

    @property
    def is_sparse(self) -> bool:
        return any(level.is_sparse for level in self.levels)

    def block_shapes(self) -> list[tuple[int, ...]]:
        """Per level, the block (cells) it spans in index space, per field axis."""
        shapes = []
        for level in self.levels:
            block = [1] * len(self.shape)
            for a, extent, below in zip(level.axes, level.extents, level.below, strict=True):
                block[a] = extent * below
            shapes.append(tuple(block))
        return shapes

    def cell_index(self, level: LevelPlan, index) -> int:
        """Row-major number of the ``level`` cell holding ``index`` (its bitmask bit)."""
        g = 0
        divisors = self.cell_divisors(level)
        for a, (cells, divisor) in enumerate(zip(level.grid, divisors, strict=True)):
            g = g * cells + index[a] // divisor
        return g

    def list_number(self, level: LevelPlan, index) -> int:
        """Row-major number of the list of dynamic ``level`` holding ``index`` (the slot of
        its length): the cell number with the list's own axis left out.

            >>> lv = LevelPlan("dynamic", (1,), (8,), (1,), 4, (4,), 0, 8, 128, (3, 8))
            >>> FieldLayout(0, "x", "i32", (3, 8), (lv,), 0, 4).list_number(lv, (2, 5))
            2
        """
        g = 0
        divisors = self.cell_divisors(level)
        for a, (cells, divisor) in enumerate(zip(level.grid, divisors, strict=True)):
            if a != level.axes[0]:
                g = g * cells + index[a] // divisor
        return g

    def cell_divisors(self, level: LevelPlan) -> tuple[int, ...]:
        """Per axis of ``level.grid``, what an index is divided by to give the coordinate
        of the ``level`` cell holding it: the cells of that axis under the level. Every
        computation of a cell's number (Python, IR, LLVM) uses these."""
        below = dict(zip(level.axes, level.below, strict=True))
        prefix = self._prefix_below(level)
        return tuple(below.get(a, prefix[a]) for a in range(len(level.grid)))

    def _prefix_below(self, level: LevelPlan) -> list[int]:
        """Per axis, the product of that axis's extents under ``level`` (all levels)."""
        depth = self.levels.index(level)
        below = [1] * len(self.shape)
        for deeper in self.levels[depth + 1 :]:
            for a, e in zip(deeper.axes, deeper.extents, strict=True):
                below[a] *= e
        return below

    def visit_order(self, active=None, limit: int | None = None) -> np.ndarray:
        """Field indices of the cells a struct-for over this field visits, in order.

        See ``plan/visit.py``; ``active`` (field-shaped bools) drops the skipped cells.

            >>> lv = LevelPlan("dense", (1, 0), (2, 2), (1, 1), 4, (8, 4), 0, 4, None, (2, 2))
            >>> FieldLayout(0, "x", "f32", (2, 2), (lv,), 0, 4).visit_order().tolist()
            [[0, 0], [1, 0], [0, 1], [1, 1]]
        """
        from ti_notebook.plan.visit import visit_order

        return visit_order(self, active, limit)

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        lines = [f"field {self.name}: {self.dtype_name}{list(self.shape)} in tree {self.tree_id}"]
        if any(self.index_offset):
            lines[0] += f", indices from {self.origin}"
        for depth, level in enumerate(self.levels):
            axes = "".join("ijkl"[a] for a in level.axes)
            lines.append(
                f"  {'  ' * depth}{level.kind}({axes}, {level.extents}) cell={level.cell_size}B "
                f"strides={level.strides} offset={level.offset}"
            )
        lines.append(f"  leaf offset {self.offset_in_cell} of a {self.cell_size}B cell")
        return "\n".join(lines)
