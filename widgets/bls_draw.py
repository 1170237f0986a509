"""Draws a :class:`~ti_notebook.widgets.bls_data.BlsData` with matplotlib (no pyplot).

Left, the global grid around the block (one cell of margin beyond the accessed range):
the block outlined in black, the halo (accessed cells outside the block) shaded blue,
cells outside the field hatched, buffer cells no iteration reads (the pass fills the
whole box) dotted. Right, the buffer, its shape in the title. A selected
buffer cell is red in both pictures; the iterations that read it (the module rule of
:mod:`~ti_notebook.widgets.bls_data`) carry an orange dot. The mapping text and the reuse
figures are the caption. The first axis runs down, as in the layout view (``i`` down,
``j`` across; the buffer's ``u0`` down, ``u1`` across); 1-D loops are drawn as one row
(``i`` across); 3-D and more are not drawn. The figure is sized so that the caption's
longest line fits: the live widget shows it as SVG, at whatever scale the page needs.

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets.bls_data import bls_data
    >>> from ti_notebook.widgets.render import svg_text
    >>> ti.init(arch=ti.cpu)
    >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    >>> _ = ti.root.pointer(ti.i, 4).dense(ti.i, 8).place(a, b)
    >>> @ti.kernel
    ... def smooth():
    ...     ti.block_local(a)
    ...     for i in b:
    ...         b[i] = a[i] + a[i + 1]
    >>> fig = draw(bls_data(smooth)[0], (1,))
    >>> fig.axes[1].get_title()
    'buffer of a: 9 (36 bytes)'
    >>> svg_text(fig) == svg_text(draw(bls_data(smooth)[0], (1,)))
    True
"""

from __future__ import annotations

import matplotlib.patches
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ti_notebook.errors import TiValueError

from .bls_data import BlsData

HALO = "#9ecae1"
BLOCK = "#eef5fb"  # the block's own cells: in the buffer too, but not the halo
UNUSED = "0.55"  # dots on buffer cells filled but read by no iteration of the block
SELECTED = "#d62728"
READER = "#ff7f0e"
CELL_INCHES = 0.32
MARGIN = 1  # cells drawn beyond the accessed range
CAPTION_POINTS = 7
# DejaVu Sans Mono (matplotlib's monospace) advances 0.602 em per character, a little
# more once rounded to pixels; lines are set 1.2 em apart: what the caption needs, so
# the figure can be made wide enough for it
CHAR_INCHES = 0.63 * CAPTION_POINTS / 72
LINE_INCHES = 1.2 * CAPTION_POINTS / 72
SHOWN_OFFSETS = 8  # offsets listed in the caption; more are counted


def _rows_cols(values: tuple[int, ...]) -> tuple[int, int]:
    """A 1-D extent as one row of the picture."""
    return (1, values[0]) if len(values) == 1 else (values[0], values[1])


def _square(ax, r, c, **style) -> None:
    ax.add_patch(matplotlib.patches.Rectangle((c, r), 1, 1, **style))


def _grid_lines(ax, rows: int, cols: int) -> None:
    for r in range(rows + 1):
        ax.plot([0, cols], [r, r], color="0.75", lw=0.5, zorder=1)
    for c in range(cols + 1):
        ax.plot([c, c], [0, rows], color="0.75", lw=0.5, zorder=1)
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")


def _ticks(ax, rows: int, cols: int, row0: int, col0: int, names: tuple[str, ...]) -> None:
    """Tick labels per cell and the axes named (``names``: first axis, then second)."""
    ax.set_xticks(np.arange(cols) + 0.5, [str(col0 + c) for c in range(cols)])
    if len(names) == 2:
        ax.set_yticks(np.arange(rows) + 0.5, [str(row0 + r) for r in range(rows)])
        ax.set_ylabel(names[0], fontsize=8, rotation=0, labelpad=8)
    else:
        ax.set_yticks([])
    ax.set_xlabel(names[-1], fontsize=8, labelpad=2)
    ax.tick_params(length=0, labelsize=6)


def _draw_global(ax, data: BlsData, cell) -> None:
    two_d = len(data.block_shape) == 2
    lo = [c + r[0] - MARGIN for c, r in zip(data.corner, data.ranges, strict=True)]
    hi = [c + r[1] + MARGIN for c, r in zip(data.corner, data.ranges, strict=True)]
    row0, col0 = (lo[0], lo[1]) if two_d else (0, lo[0])
    rows, cols = (hi[0] - lo[0], hi[1] - lo[1]) if two_d else (1, hi[0] - lo[0])

    def place(index) -> tuple[int, int]:
        return (index[0] - row0, index[1] - col0) if two_d else (0, index[0] - col0)

    read = data.read_cells()
    for u in np.ndindex(*data.buffer_shape):  # the halo: the buffer's cells
        g = data.global_of(u)
        r, c = place(g)
        _square(ax, r, c, fc=BLOCK if data.in_block(g) else HALO, ec="none", zorder=0)
        if g not in read:
            _square(ax, r, c, fill=False, hatch="..", ec=UNUSED, lw=0, zorder=1)
    for index in np.ndindex(*((rows, cols) if two_d else (cols,))):
        g = (index[0] + row0, index[1] + col0) if two_d else (index[0] + col0,)
        if not all(0 <= x < n for x, n in zip(g, data.field_shape, strict=True)):
            r, c = place(g)
            _square(ax, r, c, fill=False, hatch="///", ec="0.6", lw=0, zorder=1)
    br, bc = place(data.corner)
    brows, bcols = _rows_cols(data.block_shape)
    _square(ax, br, bc, fill=False, ec="black", lw=2.2, zorder=4)
    ax.patches[-1].set_width(bcols)
    ax.patches[-1].set_height(brows)
    if cell is not None:
        r, c = place(data.global_of(cell))
        _square(ax, r, c, fc=SELECTED, ec="none", alpha=0.85, zorder=2)
        for reader in data.readers(cell):
            r, c = place(reader)
            ax.plot([c + 0.5], [r + 0.5], "o", color=READER, ms=5, mec="black", zorder=5)
    _grid_lines(ax, rows, cols)
    _ticks(ax, rows, cols, row0, col0, ("i", "j") if two_d else ("i",))
    corner = ", ".join(map(str, data.corner))
    ax.set_title(
        f"{data.field}: block {data.block} at ({corner}), halo shaded, unread dotted", fontsize=8
    )


def _draw_buffer(ax, data: BlsData, cell) -> None:
    rows, cols = _rows_cols(data.buffer_shape)
    read = data.read_cells()
    for u in np.ndindex(*data.buffer_shape):
        r, c = (u[0], u[1]) if len(u) == 2 else (0, u[0])
        g = data.global_of(u)
        face = (BLOCK if data.in_block(g) else HALO) if data.inside[u] else "0.85"
        _square(ax, r, c, fc=face, ec="none", zorder=0)
        if g not in read:
            _square(ax, r, c, fill=False, hatch="..", ec=UNUSED, lw=0, zorder=1)
    if cell is not None:
        u = tuple(cell)
        r, c = (u[0], u[1]) if len(u) == 2 else (0, u[0])
        _square(ax, r, c, fc=SELECTED, ec="none", alpha=0.85, zorder=2)
    _grid_lines(ax, rows, cols)
    _ticks(ax, rows, cols, 0, 0, tuple(f"u{a}" for a in range(len(data.buffer_shape))))
    shape = " x ".join(map(str, data.buffer_shape))
    ax.set_title(f"buffer of {data.field}: {shape} ({data.entry.bytes} bytes)", fontsize=8)


def _offsets_text(data: BlsData) -> str:
    offsets = data.offsets()
    shown = ", ".join(str(list(o)) for o in offsets[:SHOWN_OFFSETS])
    more = f", ... ({len(offsets)} in all)" if len(offsets) > SHOWN_OFFSETS else ""
    if data.offsets_exact:
        return f"offsets read: {shown}{more}"
    return f"offsets read (their box; the report lists none, so some may not be): {shown}{more}"


def caption(data: BlsData, cell=None) -> str:
    """The figure's caption: the mapping, the offsets, the reuse figures and the cell."""
    text = f"{data.mapping}   ({data.entry.corner})\n{_offsets_text(data)}\n{data.reuse_text()}"
    if cell is not None:
        text += "\n" + data.cell_text(cell).replace("; read by", "\nread by")
    return text


def draw(data: BlsData, cell=None) -> Figure:
    """The figure of ``data``; ``cell`` (a buffer index) is highlighted with its readers."""
    if len(data.block_shape) > 2:
        raise TiValueError(
            f"the BLS picture draws 1-D and 2-D loops, not {len(data.block_shape)}-D",
            hint="read the mapping as data: bls_data(kernel)[0].holds",
        )
    if cell is not None:
        cell = data._cell(cell)
    text = caption(data, cell)
    lines = text.split("\n")
    grows = data.ranges[0][1] - data.ranges[0][0] + 2 * MARGIN if len(data.ranges) == 2 else 1
    gcols = data.ranges[-1][1] - data.ranges[-1][0] + 2 * MARGIN
    brows, bcols = _rows_cols(data.buffer_shape)
    below = len(lines) * LINE_INCHES + 0.75  # the caption, the x labels and ticks
    width = max(6.0, (gcols + bcols) * CELL_INCHES + 1.8, max(map(len, lines)) * CHAR_INCHES + 0.4)
    height = max(grows, brows) * CELL_INCHES + below + 0.45
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    spec = fig.add_gridspec(
        1, 2, width_ratios=(gcols, max(bcols, 3)), bottom=below / height, top=1 - 0.4 / height
    )
    _draw_global(fig.add_subplot(spec[0, 0]), data, cell)
    _draw_buffer(fig.add_subplot(spec[0, 1]), data, cell)
    fig.text(
        0.2 / width, 0.1 / height, text, fontsize=CAPTION_POINTS, va="bottom", family="monospace"
    )
    return fig
