"""Turning a matplotlib Figure into the bytes a widget or a mime bundle shows.

The widgets draw on a bare :class:`matplotlib.figure.Figure` (no pyplot), so nothing
here touches the global backend a notebook chose. The SVG is deterministic: the same
figure gives the same text in every run (a fixed ``svg.hashsalt`` for the element ids,
no date in the metadata), so exported notebooks do not change when re-run.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.add_subplot().plot([0, 1], [1, 0])
    >>> svg_text(fig) == svg_text(fig), png_bytes(fig)[:4]
    (True, b'\\x89PNG')
"""

from __future__ import annotations

import html
import io

import matplotlib
from matplotlib.figure import Figure

__all__ = ["html_table", "inline_svg", "png_bytes", "svg_text"]

# any fixed text does: matplotlib hashes it with each element to name its ids
_HASH_SALT = "ti_notebook.widgets"


def svg_text(figure: Figure) -> str:
    """The figure as SVG text, identical for identical figures (see the module)."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": _HASH_SALT}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def inline_svg(svg: str) -> str:
    """SVG text as an HTML fragment (no XML declaration or DOCTYPE), for an
    ``ipywidgets.HTML``: its elements stay in the page, so hover titles work and a
    browser test can count them.

    >>> inline_svg('<?xml version="1.0"?>\\n<!DOCTYPE svg>\\n<svg></svg>\\n')
    '<svg></svg>'
    """
    return svg[svg.index("<svg") :].strip()


def png_bytes(figure: Figure, dpi: int = 96) -> bytes:
    """The figure as PNG, for an ``ipywidgets.Image``."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


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
