"""Draws an :class:`~ti_notebook.widgets.occupancy_data.OccupancyData` with matplotlib.

Occupancy (percent of the SM's warps) against block_dim, one line per kernel; each point's
marker shape names the resource that limits it (circle: warps, square: registers,
triangle: shared memory, diamond: blocks, cross: barriers), and a dashed vertical line
marks the current block_dim, labelled with the first kernel's value there. The caption lists each
kernel's resources and explains the current point. Every point's marker carries the id
``point-<kernel>-<block_dim>-<resource>`` in the SVG, and the current line
``current-block-dim-<n>``, so a test (or a reader of the SVG) can find them.

    >>> from ti_notebook.widgets.occupancy_data import occupancy_data
    >>> fig = draw(occupancy_data(registers=64, arch="sm_90", block_dim=256))
    >>> fig.axes[0].get_title()
    'theoretical occupancy on sm_90 (H100 SXM)'
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['32', '64', '128', '256', '512', '1024']
"""

from __future__ import annotations

import re

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .occupancy_data import OccupancyData

# one marker per limiting resource, in ti_notebook.cuda_analysis.RESOURCES order
MARKERS = {"warps": "o", "registers": "s", "shared memory": "^", "blocks": "D", "barriers": "X"}
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
CURRENT = "0.35"


def point_id(kernel: str, block_dim: int, resource: str) -> str:
    """The SVG id of one point's marker (characters other than letters and digits: ``_``).

    >>> point_id("reverse", 128, "shared memory")
    'point-reverse-128-shared_memory'
    """
    return "-".join(
        re.sub(r"\W", "_", str(part)) for part in ("point", kernel, block_dim, resource)
    )


def caption(data: OccupancyData) -> str:
    """The resources of every kernel and the explanation of the current point."""
    lines = [s.resources_text() for s in data.series]
    for series in data.series:
        point = series.at(data.block_dim).explain().partition(": ")[2]
        lines.append(f"{series.name} at block_dim={data.block_dim}: {point}")
    return "\n".join(lines)


def draw(data: OccupancyData) -> Figure:
    """The figure of ``data`` (a bare Figure, no pyplot state)."""
    caption_inches = 0.14 * 2 * len(data.series) + 0.15  # two caption lines per kernel
    plot_inches, below, above = 2.4, 0.5, 0.35  # axes, tick labels under them, title
    height = caption_inches + below + plot_inches + above
    fig = Figure(figsize=(6.4, height))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.11, (caption_inches + below) / height, 0.59, plot_inches / height))
    xs = range(len(data.block_dims))
    seen = set()
    for n, series in enumerate(data.series):
        colour = COLOURS[n % len(COLOURS)]
        values = [100 * p.occupancy for p in series.points]
        ax.plot(xs, values, "-", color=colour, lw=1.6, zorder=2, label=series.name)
        for x, point in zip(xs, series.points, strict=True):
            seen.add(point.limiting)
            (marker,) = ax.plot(
                [x],
                [100 * point.occupancy],
                MARKERS[point.limiting],
                color=colour,
                mec="black",
                mew=0.6,
                ms=7,
                zorder=3,
            )
            marker.set_gid(point_id(series.name, point.block_size, point.limiting))
    current = data.block_dims.index(data.block_dim)
    line = ax.axvline(current, color=CURRENT, ls="--", lw=1, zorder=1)
    line.set_gid(f"current-block-dim-{data.block_dim}")
    first = data.series[0].at(data.block_dim)
    label = f" block_dim={data.block_dim}: {first.occupancy:.0%}"
    ax.text(current, 102, label, fontsize=7, color="0.2", va="bottom")
    ax.set_xticks(list(xs), [str(d) for d in data.block_dims])
    ax.set_xlim(-0.5, len(data.block_dims) - 0.5)
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 25), [f"{v}%" for v in range(0, 101, 25)])
    ax.set_xlabel("block_dim (threads per block)")
    ax.set_ylabel("active warps / SM")
    ax.grid(True, axis="y", color="0.9", lw=0.6)
    ax.set_title(f"theoretical occupancy on {data.arch} ({data.device.name})", fontsize=10)
    handles = [
        Line2D([], [], color=COLOURS[n % len(COLOURS)], label=s.name)
        for n, s in enumerate(data.series)
    ]
    handles += [
        Line2D([], [], ls="", marker=MARKERS[r], color="0.6", mec="black", label=f"limited by {r}")
        for r in MARKERS
        if r in seen
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7)
    fig.text(0.02, 0.02, caption(data), fontsize=7, va="bottom", family="monospace")
    return fig
