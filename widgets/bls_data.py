"""What the block-local-storage view draws, as data: one block, its halo and its buffer.

Everything comes from the kernel's typed report (``kernel.report.block_local``, one
``BlockLocalBuffer`` per cached field): the block shape, the accessed ``ranges`` (per
axis ``[lo, hi)`` relative to the block's corner), the buffer's shape, and the mapping
``to_global(corner, u)``; nothing is recomputed from the IR (DESIGN.md sections 4, 6).
The block drawn is the one at flat index ``block`` (row-major) of the loop's block grid,
``ceil(field.shape / block_shape)`` blocks per axis, where ``field`` is the cached field
(it has the loop's dimensionality; in the usual stencil it is also the loop's shape).

**Which iterations read a buffer cell.** The report lists the distinct offsets the
loop reads the cached field at (``entry.offsets``, relative to the iteration's index),
so iteration (block cell) ``I`` reads ``I + o`` for each of them, and the readers of
buffer cell ``u``, which holds ``g``, are the ``g - o`` that lie in the block: exact.
A report without offsets (one access reads too many to list) falls back to their box,
``lo[a] <= o[a] <= hi[a] - block[a]``, which over-approximates ("may read").

**Reuse figures**, per block: ``global_reads`` = block cells x the reads per iteration
(the report's ``accesses``, repeats included: ``a[i] * a[i]`` is 2), what the loop
reads from the field without the buffer; ``buffer_loads`` = buffer cells, since the pass
fills the whole box, also cells no iteration reads; ``loads_saved`` = their difference
(negative: BLS adds loads); ``reuse`` = ``global_reads / buffer_loads``. The page's
example reads 2 values per iteration of a 4 x 4 block: 32 reads, 30 buffer loads.

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
    >>> data.readers((0, 0)), data.offsets()
    ([(4, 4)], [(-1, 0), (0, 2)])
    >>> data.global_reads, data.buffer_loads, data.loads_saved, round(data.reuse, 3)
    (32, 30, 2, 1.067)
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
        """Per axis the inclusive ``(low, high)`` offsets an iteration reads: the box."""
        return tuple(
            (lo, hi - b) for (lo, hi), b in zip(self.ranges, self.block_shape, strict=True)
        )

    @property
    def offsets_exact(self) -> bool:
        """Whether the report lists the offsets read (else :meth:`offsets` is the box)."""
        return bool(self.entry.offsets)

    def offsets(self) -> list[tuple[int, ...]]:
        """The offsets an iteration reads, sorted: the report's, or every one of the box."""
        if self.offsets_exact:
            return [tuple(o) for o in self.entry.offsets]
        return list(itertools.product(*(range(lo, hi + 1) for lo, hi in self.offset_box)))

    def global_of(self, cell) -> tuple[int, ...]:
        """The global index buffer cell ``cell`` holds (the report's ``to_global``)."""
        return tuple(int(g) for g in self.entry.to_global(self.corner, self._cell(cell)))

    def readers(self, cell) -> list[tuple[int, ...]]:
        """The iterations (global indices of block cells) that read buffer cell ``cell``.

        ``I = g - o`` for each offset ``o`` of :meth:`offsets`, kept when ``I`` is in
        the block.
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

    def read_cells(self) -> set[tuple[int, ...]]:
        """The global cells some iteration of the block reads (a subset of the buffer's)."""
        pairs = zip(self.corner, self.block_shape, strict=True)
        block = itertools.product(*(range(c, c + b) for c, b in pairs))
        return {tuple(map(sum, zip(i, o, strict=True))) for i in block for o in self.offsets()}

    @property
    def cells_read(self) -> int:
        """How many buffer cells the block reads; the pass fills the others unused."""
        return len(self.read_cells())

    @property
    def reads_per_iteration(self) -> int:
        """Reads (or adds) of the field per iteration, repeats included: the report's
        ``accesses``; without it, one per offset (an estimate)."""
        accesses = self.entry.accesses
        return accesses if accesses is not None else len(self.offsets())

    @property
    def global_reads(self) -> int:
        """Reads of the field per block without the buffer: block cells x reads each."""
        return self.block_cells * self.reads_per_iteration

    @property
    def buffer_loads(self) -> int:
        """Loads from the field per block with the buffer: the pass fills every cell."""
        return self.buffer_cells

    @property
    def loads_saved(self) -> int:
        """``global_reads - buffer_loads``: global loads the buffer saves per block
        (negative when it adds loads)."""
        return self.global_reads - self.buffer_loads

    @property
    def reuse(self) -> float:
        """``global_reads / buffer_loads``: above 1 the buffer saves loads."""
        return self.global_reads / self.buffer_loads

    @property
    def loads_per_use(self) -> float:
        """Loads from the field per read the loop makes: ``1 / reuse``."""
        return self.buffer_loads / self.global_reads

    def reuse_text(self) -> str:
        """The reuse figures in words (three lines)."""
        if len(self.buffer_shape) == 1:
            shape = f"{self.buffer_cells}-cell"
        else:
            shape = " x ".join(map(str, self.buffer_shape))
        estimate = "" if self.entry.accesses is not None else " (estimated: one per offset)"
        if self.entry.mode == "read":
            did, unit, moved = "reads", "loads", f"{self.buffer_loads} loads"
            how = f"the pass fills the whole {shape} buffer, {self.cells_read} cells of it read"
        else:  # accumulate: the write-back adds each non-zero buffer cell
            did, unit, moved = "atomic adds", "adds", f"at most {self.buffer_loads} adds"
            how = f"the write-back adds each non-zero cell of the {shape} buffer"
        saved = self.loads_saved
        outcome = f"{saved} {unit} saved" if saved >= 0 else f"BLS adds {-saved} {unit}"
        return (
            f"per block without BLS: {self.block_cells} iterations x "
            f"{self.reads_per_iteration} {did}{estimate} = {self.global_reads} {unit} of "
            f"{self.field}\nwith BLS: {moved} ({how})\n"
            f"{outcome} per block, reuse {self.reuse:.2f} ({self.global_reads} / "
            f"{self.buffer_loads})"
        )

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
            f"{self.global_reads} reads -> {self.buffer_loads} buffer loads per block "
            f"(reuse {self.reuse:.2f})"
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
