"""Turning a matplotlib Figure into the bytes a widget or a mime bundle shows.

The widgets draw on a bare :class:`matplotlib.figure.Figure` (no pyplot), so nothing
here touches the global backend a notebook chose. The SVG is deterministic: the same
figure gives the same text in every run (a fixed ``svg.hashsalt`` for the element ids,
no date in the metadata), so exported notebooks do not change when re-run.

Both outputs follow the light and the dark theme, for every widget at once:

- SVG: a transparent background, text kept as ``<text>`` (``svg.fonttype: none``), and
  matplotlib's black (text, axes, ticks) written as ``currentColor``. Shown inline (an
  ``ipywidgets.HTML``, an exported HTML page) it takes the page's text colour, which
  JupyterLab's theme sets. JupyterLab shows an ``image/svg+xml`` output as an ``<img>``,
  where no page CSS reaches and ``prefers-color-scheme`` follows the system, not
  JupyterLab's theme (which sets no ``color-scheme``): there the SVG's own ``<style>``
  (:data:`THEME_STYLE`) makes it mid-grey, readable on both.
- PNG (shown as ``<img>`` everywhere): a transparent background, and the black of text
  and axes turned mid-grey, readable on a white and on a near-black page alike.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.add_subplot().plot([0, 1], [1, 0])
    >>> svg = svg_text(fig)
    >>> svg == svg_text(fig), "#000000" in svg, png_bytes(fig)[:4]
    (True, False, b'\\x89PNG')
"""

from __future__ import annotations

import base64
import html
import io
import re

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from PIL import Image

__all__ = [
    "MID_GREY",
    "THEME_CLASS",
    "THEME_STYLE",
    "html_table",
    "inline_svg",
    "png_bytes",
    "svg_text",
    "themed_svg",
]

# any fixed text does: matplotlib hashes it with each element to name its ids
_HASH_SALT = "ti_notebook.widgets"
THEME_CLASS = "ti-figure"
# ``svg:root`` matches only when the SVG is a document of its own (an <img>, a file):
# inline in a page the SVG inherits the page's colour instead.
MID_GREY = (128, 128, 128)  # contrast about 4:1 on white and on JupyterLab's dark #111
THEME_STYLE = (
    f"<style>svg.{THEME_CLASS}:root{{color:#{bytes(MID_GREY).hex()}}}"
    f"svg.{THEME_CLASS} text{{fill:currentColor}}</style>"
)
# a neutral grey up to #555 (black, "0.2", "#444"): matplotlib's ink, drawn in the theme's
_DARK_INK = re.compile(r"(fill|stroke): ?#([0-5])([0-9a-f])\2\3\2\3\b")
# a legend's frame (white at 80 %): the page's background where there is a page
_LEGEND_FRAME = "fill: #ffffff; opacity: 0.8"
_SVG_OPEN = re.compile(r"<svg\b([^>]*)>")


def themed_svg(svg: str) -> str:
    """Matplotlib's SVG text made theme-aware (see the module): dark ink becomes
    ``currentColor``, the root gets :data:`THEME_CLASS` and :data:`THEME_STYLE`.

    >>> themed_svg('<svg x="1"><path style="stroke: #000000"/></svg>')[:60]
    '<svg class="ti-figure" x="1"><style>svg.ti-figure:root{color'
    >>> "stroke: currentColor" in themed_svg('<svg><path style="stroke: #333333"/></svg>')
    True
    """
    svg = _DARK_INK.sub(r"\1: currentColor", svg)
    svg = svg.replace(_LEGEND_FRAME, "fill: var(--jp-layout-color0, none); opacity: 0.8")
    return _SVG_OPEN.sub(
        lambda m: f'<svg class="{THEME_CLASS}"{m.group(1)}>{THEME_STYLE}', svg, count=1
    )


def svg_text(figure: Figure) -> str:
    """The figure as theme-aware SVG text, identical for identical figures (see the
    module)."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": _HASH_SALT, "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    return themed_svg(buffer.getvalue())


def inline_svg(svg: str) -> str:
    """SVG text as an HTML fragment (no XML declaration or DOCTYPE), for an
    ``ipywidgets.HTML``: its elements stay in the page, so hover titles work, a browser
    test can count them, and ``currentColor`` is the theme's text colour.

    >>> inline_svg('<?xml version="1.0"?>\\n<!DOCTYPE svg>\\n<svg></svg>\\n')
    '<svg></svg>'
    """
    return svg[svg.index("<svg") :].strip()


def png_bytes(figure: Figure, dpi: int = 96) -> bytes:
    """The figure as PNG on a transparent background, its dark ink mid-grey (see the
    module), for an ``ipywidgets.Image`` or a static ``image/png``."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, transparent=True)
    pixels = np.array(Image.open(io.BytesIO(buffer.getvalue())).convert("RGBA"))
    rgb = pixels[..., :3].astype(np.int16)
    # neutral and dark: text, axes and their antialiased edges (alpha keeps the shape)
    ink = (rgb.max(axis=-1) <= 0x55) & (rgb.max(axis=-1) - rgb.min(axis=-1) <= 8)
    pixels[ink, :3] = MID_GREY
    out = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(out, format="png", optimize=False)
    return out.getvalue()


def static_bundle(live: dict, figure: Figure, text: str, svg: str | None = None) -> dict:
    """A widget's mime bundle: the live view (``live``, from ipywidgets), a deterministic
    SVG, a PNG and a text line. JupyterLab shows the PNG where it cannot show the rest: a
    saved notebook whose widget state was not stored, or an untrusted one (it shows
    neither SVG nor widget views there)."""
    bundle = dict(live or {})
    bundle["image/svg+xml"] = svg if svg is not None else svg_text(figure)
    bundle["image/png"] = base64.b64encode(png_bytes(figure)).decode("ascii")
    bundle["text/plain"] = text
    return bundle


def html_table(header: list[str], rows: list[list[object]]) -> str:
    """A plain HTML table, every cell escaped.

    >>> html_table(["a"], [["<1>"]])
    '<table><tr><th>a</th></tr><tr><td>&lt;1&gt;</td></tr></table>'
    """
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"
