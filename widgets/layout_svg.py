"""The layout picture as SVG written directly: one ``<rect>`` per cell with a hover text.

The live widget and the static fallback of :func:`~ti_notebook.widgets.layout` show this
picture. Written by hand rather than saved from matplotlib because every cell is then an
element of its own: a browser shows its ``<title>`` (index, byte address, cache line,
visit) on hover without any JavaScript, a test can count the cells, and a 32×32 window
takes a few milliseconds instead of matplotlib's quarter second. It draws what
:func:`~ti_notebook.widgets.layout_draw.draw` draws (the figure for scripts): colour by
memory order, white cache-line edges, black block outlines, the loop's first N cells,
and the byte strip of the tree's first cache line. Its text and the strip's background
use ``currentColor`` and the shared theme style (``render.THEME_STYLE``), so the title
reads in JupyterLab's light and dark themes alike (inline: the theme's text colour; as an
``<img>``: mid-grey).

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets.layout_data import layout_data
    >>> ti.init(arch=ti.cpu)
    >>> data = layout_data(ti.field(ti.f32, shape=(4, 8), name="x"))
    >>> svg = layout_svg(data)
    >>> svg.count('class="ti-cell"'), svg == layout_svg(data)
    (32, True)
"""

from __future__ import annotations

import html

import matplotlib
import numpy as np

from .layout_data import CACHE_LINE, LayoutData
from .layout_draw import COLORMAP, LABEL_LIMIT, _block_ids, _edges, _grids, _picture_blocks, title
from .render import THEME_CLASS, THEME_STYLE

CELL = 18  # pixels per cell
GAP = 24  # pixels between the slices of a 3-D field
TITLE_LINE = 16
STRIP_HEIGHT = 28
BYTE = 9  # pixels per byte in the strip
WASH = "#8c8c8c"  # cells the loop has not visited yet
_STROKE = 'fill="none" stroke-width'  # edges: the width follows


def _colours(order: np.ndarray, top: int) -> np.ndarray:
    """Hex colour per cell: the colormap of the drawn figure, dark = low address."""
    rgba = matplotlib.colormaps[COLORMAP](order / max(top, 1))
    rgb = np.round(rgba[..., :3] * 255).astype(int)
    return np.array(
        [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.reshape(-1, 3)], dtype=object
    ).reshape(order.shape)


def _path(segments, x0: float, y0: float) -> str:
    """One ``d`` attribute for unit segments (cell units) placed at (x0, y0)."""
    return " ".join(
        f"M{x0 + a[0] * CELL:g} {y0 + a[1] * CELL:g}L{x0 + b[0] * CELL:g} {y0 + b[1] * CELL:g}"
        for a, b in segments
    )


def _text(x: float, y: float, size: int, words: str) -> str:
    """A caption in the theme's text colour (``currentColor``)."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="currentColor">'
        f"{html.escape(words)}</text>"
    )


def _hover(data: LayoutData, index: tuple[int, ...], address: int) -> str:
    text = f"{data.name}{list(index)}: byte {address}, cache line {address // CACHE_LINE}"
    return html.escape(text)


def _grid(data: LayoutData, where, origin, x0: float, y0: float, iterations) -> list[str]:
    order = data.order[where]
    top = max(int(data.order.max()), 1)
    colours = _colours(order, top)
    visited = None
    if iterations is not None and data.visit_rank is not None:
        rank = data.visit_rank[where]
        visited = (rank >= 0) & (rank < iterations)
    addresses = data.addresses[where]
    labels = max(order.shape) <= LABEL_LIMIT
    parts = []
    for (r, c), value in np.ndenumerate(order):
        local = {1: (c,), 2: (r, c), 3: (where[0], r, c)}[len(data.window)]
        index = tuple(int(i + k) for i, k in zip(local, data.corner, strict=True))
        hover = _hover(data, index, int(addresses[r, c]))
        if visited is not None:
            rank = int(data.visit_rank[where][r, c])
            hover += f", iteration {rank}" if rank >= 0 else ", not visited"
        fill = colours[r, c] if visited is None or visited[r, c] else WASH
        x, y = x0 + c * CELL, y0 + r * CELL
        parts.append(
            f'<rect class="ti-cell" x="{x:g}" y="{y:g}" width="{CELL}" height="{CELL}" '
            f'fill="{fill}"><title>{hover}</title></rect>'
        )
        if labels:
            shade = "white" if value < 0.6 * top else "black"
            parts.append(
                f'<text x="{x + CELL / 2:g}" y="{y + CELL / 2 + 3:g}" fill="{shade}" '
                f'font-size="8" text-anchor="middle" pointer-events="none">{value}</text>'
            )
    lines = _path(_edges(data.cache_lines[where]), x0, y0)
    parts.append(
        f'<path class="ti-cache-lines" d="{lines}" fill="none" stroke="white" stroke-width="1"/>'
    )
    for block in _picture_blocks(data):
        outline = _path(_edges(_block_ids(order.shape, origin, block)), x0, y0)
        parts.append(
            f'<path class="ti-blocks" d="{outline}" fill="none" stroke="black" stroke-width="2.5"/>'
        )
    if visited is not None and iterations:
        last = np.argwhere(data.visit_rank[where] == iterations - 1)
        for r, c in last:
            parts.append(
                f'<rect x="{x0 + c * CELL:g}" y="{y0 + r * CELL:g}" width="{CELL}" '
                f'height="{CELL}" fill="none" stroke="red" stroke-width="2"/>'
            )
    return parts


def _strip(data: LayoutData, y0: float) -> list[str]:
    palette = matplotlib.colormaps["tab10"]
    names = [data.name, *sorted({slot.field for slot in data.byte_strip} - {data.name})]
    parts = [
        f'<rect x="0" y="{y0}" width="{CACHE_LINE * BYTE}" height="{STRIP_HEIGHT}" '
        'fill="currentColor" fill-opacity="0.1"/>'
    ]
    for slot in data.byte_strip:
        r, g, b, _ = palette(names.index(slot.field) % 10)
        colour = f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
        hover = html.escape(
            f"{slot.field}{list(slot.index)}: bytes {slot.start}–{slot.start + slot.size - 1}"
        )
        parts.append(
            f'<rect class="ti-byte" x="{slot.start * BYTE}" y="{y0}" width="{slot.size * BYTE}" '
            f'height="{STRIP_HEIGHT}" fill="{colour}" stroke="white">'
            f"<title>{hover}</title></rect>"
        )
    caption = "bytes of the tree's first cache line (hover: which element)"
    parts.append(_text(0, y0 + STRIP_HEIGHT + 13, 10, caption))
    return parts


def layout_svg(data: LayoutData, iterations: int | None = None) -> str:
    """The picture of ``data`` as SVG text (same input, same bytes); with a loop, the
    first ``iterations`` cells keep their colour and the others are grey."""
    grids = _grids(data)
    rows, cols = data.order[grids[0][1]].shape
    caption = title(data, iterations).split("\n")
    top = TITLE_LINE * len(caption) + 8
    width = len(grids) * cols * CELL + (len(grids) - 1) * GAP
    parts = [_text(0, TITLE_LINE * (k + 1) - 4, 12, line) for k, line in enumerate(caption)]
    for n, (slice_caption, where, origin) in enumerate(grids):
        x0 = n * (cols * CELL + GAP)
        y0 = top + (TITLE_LINE if slice_caption else 0)
        if slice_caption:
            parts.append(_text(x0, top + 11, 10, slice_caption))
        parts.extend(_grid(data, where, origin, x0, y0, iterations))
    strip_top = top + (TITLE_LINE if len(grids) > 1 else 0) + rows * CELL + 12
    parts.extend(_strip(data, strip_top))
    width = max(width, CACHE_LINE * BYTE)
    height = strip_top + STRIP_HEIGHT + 18
    body = "\n".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ti-layout {THEME_CLASS}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">{THEME_STYLE}\n'
        f"{body}\n</svg>"
    )
