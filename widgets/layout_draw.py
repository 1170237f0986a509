"""Draws a :class:`~ti_notebook.widgets.layout_data.LayoutData` with matplotlib.

Cells are coloured by memory order (a sequential colormap: dark = low address) and
labelled with their order number when they are big enough to read; thin white lines
separate 64-byte cache lines, thick black ones the blocks of hierarchical layouts. A
1-D field is a strip, a 2-D field a grid (first axis down, as NumPy prints it), a 3-D
field a row of 2-D slices along its first axis. Under the grid, a strip of the tree's
first cache line shows which field's element sits at which byte.

The figure is a plain :class:`matplotlib.figure.Figure` on the Agg canvas (no pyplot, so
no global figure list and no GUI backend), for scripts; ``widgets.render.svg_text`` saves
it as SVG with the same bytes every time. The live view and the static fallback draw the
same picture as SVG of their own (``layout_svg.py``).

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets.layout_data import layout_data
    >>> from ti_notebook.widgets.render import svg_text
    >>> ti.init(arch=ti.cpu)
    >>> fig = draw(layout_data(ti.field(ti.f32, shape=(4, 4)), loop="ndrange"), iterations=5)
    >>> svg_text(fig) == svg_text(fig)
    True
"""

from __future__ import annotations

import matplotlib
import matplotlib.patches
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from .layout_data import CACHE_LINE, LayoutData

COLORMAP = "viridis"
LABEL_LIMIT = 16  # cells per side up to which order numbers fit in a cell
CELL_INCHES = 0.22  # size of one cell of a 32-wide window


def _grids(data: LayoutData) -> list[tuple[str, tuple, np.ndarray]]:
    """The 2-D pictures to draw: (title, window slice, field index offset)."""
    if len(data.window) == 1:
        return [("", (np.newaxis, slice(None)), np.array([0, data.corner[0]]))]
    if len(data.window) == 2:
        return [("", (slice(None), slice(None)), np.array(data.corner))]
    return [
        (f"{data.name}[{data.corner[0] + s}, :, :]", (s,), np.array(data.corner[1:]))
        for s in range(data.window[0])
    ]


def _edges(labels: np.ndarray) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Unit segments between neighbouring cells whose labels differ (x right, y down)."""
    segments = []
    for r, c in np.argwhere(labels[:, 1:] != labels[:, :-1]):
        segments.append(((c + 1, r), (c + 1, r + 1)))
    for r, c in np.argwhere(labels[1:, :] != labels[:-1, :]):
        segments.append(((c, r + 1), (c + 1, r + 1)))
    return segments


def _block_ids(shape2d, origin: np.ndarray, block: tuple[int, ...]) -> np.ndarray:
    """Per cell of a 2-D picture, a number shared by the cells of one block."""
    rows = (origin[0] + np.arange(shape2d[0])) // block[0]
    cols = (origin[1] + np.arange(shape2d[1])) // block[1]
    return rows[:, None] * (cols.max() + 1) + cols[None, :]


def _picture_blocks(data: LayoutData) -> list[tuple[int, int]]:
    """The block shapes in picture axes (a 1-D block spans one row; 3-D drops axis 0)."""
    if len(data.window) == 1:
        return [(1, b[0]) for b in data.blocks]
    return [tuple(b[-2:]) for b in data.blocks]


def _draw_grid(ax, data: LayoutData, where, origin, iterations: int | None) -> None:
    order = data.order[where]
    top = max(int(data.order.max()), 1)
    ax.imshow(
        order,
        cmap=COLORMAP,
        vmin=0,
        vmax=top,
        extent=(0, order.shape[1], order.shape[0], 0),
        interpolation="nearest",
    )
    if iterations is not None and data.visit_rank is not None:
        # cells not visited yet are washed out; the visited keep their colour
        later = ~((data.visit_rank[where] >= 0) & (data.visit_rank[where] < iterations))
        wash = np.zeros((*order.shape, 4))
        wash[later] = (0.55, 0.55, 0.55, 0.8)  # grey: white cache lines stay visible
        ax.imshow(wash, extent=(0, order.shape[1], order.shape[0], 0), interpolation="nearest")
        last = np.argwhere(data.visit_rank[where] == iterations - 1)
        for r, c in last:
            ax.add_patch(
                matplotlib.patches.Rectangle((c, r), 1, 1, fill=False, ec="red", lw=2, zorder=4)
            )
    lines = _edges(data.cache_lines[where])
    ax.add_collection(LineCollection(lines, colors="white", linewidths=0.8, zorder=2))
    for block in _picture_blocks(data):
        edges = _edges(_block_ids(order.shape, origin, block))
        ax.add_collection(LineCollection(edges, colors="black", linewidths=2.2, zorder=3))
    if max(order.shape) <= LABEL_LIMIT:
        for (r, c), value in np.ndenumerate(order):
            shade = "white" if value < 0.6 * top else "black"
            ax.text(c + 0.5, r + 0.5, str(value), ha="center", va="center", fontsize=7, color=shade)
    ax.set_xlim(0, order.shape[1])
    ax.set_ylim(order.shape[0], 0)
    ax.set_xticks(
        [0.5, order.shape[1] - 0.5], [str(origin[1]), str(origin[1] + order.shape[1] - 1)]
    )
    ax.set_yticks(
        [0.5, order.shape[0] - 0.5] if order.shape[0] > 1 else [],
        [str(origin[0]), str(origin[0] + order.shape[0] - 1)] if order.shape[0] > 1 else [],
    )
    ax.tick_params(length=0, labelsize=7)


def _draw_bytes(ax, data: LayoutData) -> None:
    palette = matplotlib.colormaps["tab10"]
    # the drawn field keeps the first colour whichever fields share its tree
    names = [data.name, *sorted({slot.field for slot in data.byte_strip} - {data.name})]
    for slot in data.byte_strip:
        colour = palette(names.index(slot.field) % 10)
        ax.add_patch(
            matplotlib.patches.Rectangle((slot.start, 0), slot.size, 1, fc=colour, ec="white")
        )
        if slot.size >= 4:
            label = f"{slot.field}{list(slot.index)}"
            ax.text(
                slot.start + slot.size / 2,
                0.5,
                label,
                ha="center",
                va="center",
                fontsize=5,
                rotation=90 if slot.size < 8 else 0,
                color="white",
            )
    ax.set_xlim(0, CACHE_LINE)
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    ax.set_xticks(range(0, CACHE_LINE + 1, 8))
    ax.tick_params(length=2, labelsize=6)
    ax.set_xlabel("bytes of the tree's first cache line (gaps: fields not shown)", fontsize=7)


def title(data: LayoutData, iterations: int | None) -> str:
    """The figure's caption: the field, its full shape, and the loop's cache lines.

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets.layout_data import layout_data
    >>> ti.init(arch=ti.cpu)
    >>> title(layout_data(ti.field(ti.f32, shape=32, name="x"), loop="ndrange"), 16)
    'x: f32[32]; colour: memory order\\nndrange: 16 iterations touched 1 cache line'
    """
    text = f"{data.describe()}; colour: memory order"
    if data.loop is not None and iterations is not None:
        lines = data.lines_touched(iterations)
        plural = "" if lines == 1 else "s"
        text += f"\n{data.loop}: {iterations} iterations touched {lines} cache line{plural}"
        if len(data.visit) < np.prod(data.shape):
            text += f" (of the first {len(data.visit):,} the view follows)"
    return text


def draw(data: LayoutData, iterations: int | None = None) -> Figure:
    """The figure of ``data``; with a loop, the first ``iterations`` cells highlighted.

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets.layout_data import layout_data
    >>> ti.init(arch=ti.cpu)
    >>> len(draw(layout_data(ti.field(ti.f32, shape=(2, 3, 4)))).axes)  # 2 slices + bytes
    3
    """
    grids = _grids(data)
    rows, cols = data.order[grids[0][1]].shape
    width = max(4.0, min(11.0, len(grids) * cols * CELL_INCHES * 32 / max(32, cols) + 1))
    height = max(1.2, width / len(grids) * rows / cols) if len(data.window) > 1 else 0.9
    fig = Figure(figsize=(width, height + 1.6))
    FigureCanvasAgg(fig)
    spec = fig.add_gridspec(2, len(grids), height_ratios=(height, 0.35), hspace=0.45)
    for n, (caption, where, origin) in enumerate(grids):
        ax = fig.add_subplot(spec[0, n])
        _draw_grid(ax, data, where, origin, iterations)
        if caption:
            ax.set_title(caption, fontsize=7)
    _draw_bytes(fig.add_subplot(spec[1, :]), data)
    fig.suptitle(title(data, iterations), fontsize=8)
    return fig
