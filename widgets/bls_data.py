"""What the block-local-storage view draws, as data: one block, its halo and its buffer.

Everything comes from the kernel's typed report (``kernel.report.block_local``, one
``BlockLocalBuffer`` per cached field): the block shape, the accessed ``ranges`` (per
axis ``[lo, hi)`` relative to the block's corner), the buffer's shape, and the mapping
``to_global(corner, u)``; nothing is recomputed from the IR (DESIGN.md sections 4, 6).
The block drawn is the one at flat index ``block`` (row-major) of the loop's block grid,
``ceil(field.shape / block_shape)`` blocks per axis, where ``field`` is the cached field
(it has the loop's dimensionality; in the usual stencil it is also the loop's shape).

**Which iterations read a buffer cell.** The report keeps the bounding box of the
offsets, not each access, so the rule is: iteration (block cell) ``I`` reads the global
cells ``I + o`` for every offset ``o`` with ``lo[a] <= o[a] <= hi[a] - block[a]`` on every
axis (``ranges`` minus the block's extent: the box of the accessed offsets). It is exact
when the kernel reads every offset in that box (a full stencil) and an
over-approximation ("may read") otherwise: the page's ``a[i - 1, j] + a[i, j + 2]``
has the box ``{-1, 0} x {0, 1, 2}`` (6 offsets) for 2 accesses.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    >>> _ = ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a, b)
    >>> @ti.kernel
    ... def foo():
    ...     ti.block_local(a)
    ...     for i, j in b:
    ...         b[i, j] = a[i - 1, j] + a[i, j + 2]
    >>> (data,) = bls_data(foo, block=9)
    >>> data.buffer_shape, data.corner, data.global_of((0, 0))
    ((5, 6), (4, 4), (3, 4))
    >>> data.readers((0, 0))
    [(4, 4)]
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError

NO_BLS_HINT = (
    "write ti.block_local(a) on the line before a struct-for over a blocked field "
    "(ti.root.pointer(ti.ij, 32).dense(ti.ij, 4).place(a)), e.g. `for i, j in a:`; "
    "and keep ti.init(make_block_local=True), the default"
)


@dataclasses.dataclass(frozen=True)
class BlsData:
    """One cached field of one kernel, at one block of its loop.

    ``holds`` is the mapping as data: ``holds[u]`` is the global index buffer cell ``u``
    holds (``entry.to_global(corner, u)``), shape ``(*buffer_shape, ndim)``; ``inside``
    says which of those lie in the field (the others hold 0: the pass fills them so).
    """

    kernel: str
    entry: object  # the report's BlockLocalBuffer
    field_shape: tuple[int, ...]
    grid: tuple[int, ...]  # blocks per axis
    block: int  # flat (row-major) index in the grid
    corner: tuple[int, ...]  # global index of the block's first cell
    holds: np.ndarray
    inside: np.ndarray

    @property
    def field(self) -> str:
        return self.entry.field

    @property
    def block_shape(self) -> tuple[int, ...]:
        return tuple(self.entry.block_shape)

    @property
    def buffer_shape(self) -> tuple[int, ...]:
        return tuple(self.entry.buffer_shape)

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        return tuple(tuple(r) for r in self.entry.ranges)

    @property
    def mapping(self) -> str:
        return self.entry.mapping

    @property
    def offset_box(self) -> tuple[tuple[int, int], ...]:
        """Per axis the inclusive ``(low, high)`` offsets an iteration reads (the rule)."""
        return tuple(
            (lo, hi - b) for (lo, hi), b in zip(self.ranges, self.block_shape, strict=True)
        )

    def offsets(self) -> list[tuple[int, ...]]:
        """Every offset in :attr:`offset_box`, row-major."""
        return list(itertools.product(*(range(lo, hi + 1) for lo, hi in self.offset_box)))

    def global_of(self, cell) -> tuple[int, ...]:
        """The global index buffer cell ``cell`` holds (the report's ``to_global``)."""
        return tuple(int(g) for g in self.entry.to_global(self.corner, self._cell(cell)))

    def readers(self, cell) -> list[tuple[int, ...]]:
        """The iterations (global indices of block cells) that read buffer cell ``cell``.

        ``I = g - o`` for each offset ``o`` of the box, kept when ``I`` is in the block.
        """
        g = self.global_of(cell)
        found = set()
        for o in self.offsets():
            i = tuple(x - d for x, d in zip(g, o, strict=True))
            if self.in_block(i):
                found.add(i)
        return sorted(found)

    def in_block(self, index) -> bool:
        """Whether the global ``index`` is a cell of the block (an iteration drawn)."""
        pairs = zip(index, self.corner, self.block_shape, strict=True)
        return all(c <= x < c + b for x, c, b in pairs)

    @property
    def block_cells(self) -> int:
        return math.prod(self.block_shape)

    @property
    def buffer_cells(self) -> int:
        return math.prod(self.buffer_shape)

    @property
    def loads_per_use(self) -> float:
        """Elements loaded into the buffer per element used: buffer cells / block cells."""
        return self.buffer_cells / self.block_cells

    @property
    def loads_saved(self) -> int:
        """Global loads saved per block: offsets per iteration x block cells - buffer cells.

        Without the buffer each iteration loads each offset it reads from the field;
        with it the block loads every buffer cell once. Offsets come from the box rule
        (module doc), so this is an upper bound when the kernel reads fewer offsets.
        """
        return len(self.offsets()) * self.block_cells - self.buffer_cells

    def cell_text(self, cell) -> str:
        """One line: what buffer cell ``cell`` holds and which iterations read it."""
        u = self._cell(cell)
        g = self.global_of(u)
        where = "" if self.inside[u] else " (outside the field: holds 0)"
        readers = self.readers(u)
        listed = ", ".join(str(list(r)) for r in readers) or "none"
        return (
            f"buffer{list(u)} = {self.field}{list(g)}{where}; "
            f"read by {len(readers)} iteration{'s' * (len(readers) != 1)}: {listed}"
        )

    def describe(self) -> str:
        """The buffer in one line, with the reuse figures."""
        shape = " x ".join(map(str, self.buffer_shape))
        return (
            f"{self.kernel}: {self.field} ({self.entry.mode}) cached in a {shape} buffer "
            f"({self.entry.bytes} bytes) per {' x '.join(map(str, self.block_shape))} block; "
            f"{self.loads_per_use:.2f} loads per element used, "
            f"{self.loads_saved} loads saved per block"
        )

    def _cell(self, cell) -> tuple[int, ...]:
        u = (cell,) if isinstance(cell, int) else tuple(int(c) for c in cell)
        if len(u) != len(self.buffer_shape) or not all(
            0 <= c < n for c, n in zip(u, self.buffer_shape, strict=True)
        ):
            raise TiValueError(
                f"buffer cell {list(u)} is not in the {list(self.buffer_shape)} buffer",
                hint=f"choose 0 <= u < {list(self.buffer_shape)} on every axis",
            )
        return u


def _find_field(kernel: ti.Kernel, name: str, fields) -> ti.Field:
    """The field the report names: from ``fields`` or the kernel's globals and closure."""
    pool = list(fields or ())
    func = kernel.func
    pool += list(getattr(func, "__globals__", {}).values())
    pool += [c.cell_contents for c in (func.__closure__ or ()) if _filled(c)]
    for value in pool:
        if isinstance(value, ti.Field) and value.name == name:
            return value
    raise TiValueError(
        f"kernel '{kernel.name}' caches field '{name}', which its globals do not name",
        hint=f"pass it: bls(kernel, fields=[{name}])",
    )


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 -- an empty closure cell raises
    except ValueError:
        return False
    return True


def _block_corner(block, grid, block_shape, kernel_name) -> tuple[int, tuple[int, ...]]:
    count = math.prod(grid)
    if isinstance(block, int):
        if not 0 <= block < count:
            raise TiValueError(
                f"block {block} is not in kernel '{kernel_name}''s grid of {count} blocks",
                hint=f"choose 0 <= block < {count} (grid {list(grid)})",
            )
        position = np.unravel_index(block, grid)
    else:
        position = tuple(int(b) for b in block)
        if len(position) != len(grid) or not all(
            0 <= p < n for p, n in zip(position, grid, strict=True)
        ):
            raise TiValueError(
                f"block {list(position)} is not in the block grid {list(grid)}",
                hint="give a flat index or one index per axis within the grid",
            )
        block = int(np.ravel_multi_index(position, grid))
    corner = tuple(int(p) * b for p, b in zip(position, block_shape, strict=True))
    return block, corner


def bls_data(kernel: ti.Kernel, *args, block=0, fields=None) -> list[BlsData]:
    """One :class:`BlsData` per field ``kernel`` caches (see the module doc).

    ``args`` compile the kernel when it has template or ndarray parameters; ``block``
    is a flat index into the loop's block grid, or one index per axis; ``fields`` names
    the cached fields when the kernel's globals do not.
    """
    if not isinstance(kernel, ti.Kernel):
        raise TiTypeError(
            f"bls() shows a kernel's block-local storage, not {type(kernel).__name__}",
            hint="pass a @ti.kernel whose loop uses ti.block_local(a)",
        )
    entries = kernel.stages(*args)["report"].block_local
    if not entries:
        raise TiValueError(
            f"kernel '{kernel.name}' caches no field in block-local storage", hint=NO_BLS_HINT
        )
    out = []
    for entry in entries:
        field = _find_field(kernel, entry.field, fields)
        shape = tuple(field.shape)
        grid = tuple(-(-n // b) for n, b in zip(shape, entry.block_shape, strict=True))
        flat, corner = _block_corner(block, grid, entry.block_shape, kernel.name)
        cells = list(np.ndindex(*entry.buffer_shape))
        holds = np.array([entry.to_global(corner, u) for u in cells], dtype=np.int64)
        holds = holds.reshape(*entry.buffer_shape, len(shape))
        inside = np.all((holds >= 0) & (holds < np.array(shape)), axis=-1)
        out.append(BlsData(kernel.name, entry, shape, grid, flat, corner, holds, inside))
    return out
