"""Draws a roofline (``ti.profiler.roofline_data``) with matplotlib, log-log.

Memory roofs are sloped lines (GB/s x FLOPs per byte), one per level (or the GPU's
memory), each ending where it meets the highest compute peak; the f32 and f64 peaks are
horizontal lines. Each point is labelled with its kernel or task and "memory-bound" or
"compute-bound". Every point's marker carries the id ``point-<label>`` in the SVG and
every roof ``roof-<name>``, so a test (or a reader of the SVG) can find them. The
background is transparent and the roofs are drawn in neutral greys, so the picture reads
in light and dark themes alike.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> fig = draw(ti.profiler.roofline_data([]))  # no points yet: the roofs alone
    >>> fig.axes[0].get_title().startswith("roofline: ")
    True
"""

from __future__ import annotations

import re

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

NEUTRAL = "#808080"
POINT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def element_id(kind: str, name: str) -> str:
    """The SVG id of a point or roof (characters other than letters and digits: ``_``).

    >>> element_id("point", "saxpy task 1")
    'point-saxpy_task_1'
    """
    return kind + "-" + re.sub(r"\W", "_", name)


def draw(data) -> Figure:
    """The figure of a :class:`RooflineData` (a bare Figure, no pyplot state)."""
    fig = Figure(figsize=(6.4, 4.2))
    FigureCanvasAgg(fig)
    fig.patch.set_alpha(0.0)
    ax = fig.add_subplot()
    ax.set_facecolor("none")
    ax.set_xscale("log")
    ax.set_yscale("log")
    memory = [r for r in data.roofs if r.kind == "memory"]
    compute = [r for r in data.roofs if r.kind == "compute"]
    top = max(r.value for r in compute)
    xs = [p.x for p in data.points] or [1.0]
    ridges = [top / r.value for r in memory]
    low = min([*xs, *ridges]) / 8
    high = max([*xs, *ridges]) * 8
    for n, roof in enumerate(memory):
        ridge = top / roof.value
        (line,) = ax.plot([low, ridge], [roof.value * low, top], color=NEUTRAL,
                          lw=1.2, ls=("-", "--", "-.", ":")[n % 4])  # fmt: skip
        line.set_gid(element_id("roof", roof.name))
        ax.text(low * 1.15, roof.value * low * 1.25, f"{roof.name} {roof.value:.0f} GB/s",
                fontsize=7, color=NEUTRAL, rotation=0)  # fmt: skip
    for roof in compute:
        line = ax.axhline(roof.value, color=NEUTRAL, lw=1.2)
        line.set_gid(element_id("roof", roof.name))
        ax.text(high / 1.1, roof.value * 1.08, f"{roof.name} {roof.value:.0f} GFLOP/s",
                fontsize=7, color=NEUTRAL, ha="right")  # fmt: skip
    for n, point in enumerate(data.points):
        colour = POINT_COLOURS[n % len(POINT_COLOURS)]
        (marker,) = ax.plot([point.x], [point.y], "o", color=colour, mec=NEUTRAL, ms=7)
        marker.set_gid(element_id("point", point.label))
        ax.annotate(f"{point.label}\n{point.bound}", (point.x, point.y), fontsize=7,
                    color=colour, xytext=(6, -4), textcoords="offset points")  # fmt: skip
    ys = [p.y for p in data.points]
    floor = min([*ys, *(r.value * low for r in memory)]) / 2
    ax.set_xlim(low, high)
    ax.set_ylim(floor, top * 3)
    ax.set_xlabel("arithmetic intensity (FLOPs per byte, compiler's counts)", color=NEUTRAL)
    ax.set_ylabel("GFLOP/s (measured)", color=NEUTRAL)
    ax.tick_params(colors=NEUTRAL, which="both")
    for side in ax.spines.values():
        side.set_color(NEUTRAL)
    ax.set_title(f"roofline: {data.machine} ({data.source} ceilings)", fontsize=9,
                 color=NEUTRAL)  # fmt: skip
    fig.tight_layout()
    return fig
