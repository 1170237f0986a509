"""The profiler's trace as a drawing: who ran what, when, on which thread.

Rows, top to bottom: compile and cache-load spans (``ti.profiler.spans()``), whole
launches, then one row per worker thread (``ThreadSpan.thread``: 0 is the launching
thread). Each task draws one bar per thread that ran part of it, from that thread's
first chunk's start to its last chunk's end, pale; the darker inner bar is its busy
time (the share of the span it spent running chunks, the rest being waits). Colours
are per kernel specialisation, with a legend; the time axis is ms from the first event.

Every bar carries a ``gid`` (``launch-L``, ``span-L-T-thread``, ``busy-L-T-thread``,
``compile-N``), so a test or a script can find the bar of one task's thread.

    >>> from ti_notebook.widgets.timeline_plot import timeline_figure
    >>> fig = timeline_figure(launches=(), spans=())
    >>> fig.axes[0].texts[0].get_text()
    'no launches recorded: ti.init(kernel_profiler=True), then run kernels'
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

import ti_notebook as ti

__all__ = ["EMPTY", "specialisation_colours", "timeline_figure", "total_ms"]

EMPTY = "no launches recorded: ti.init(kernel_profiler=True), then run kernels"
_SPAN_COLOURS = {"compile": "0.45", "cache load": "0.75"}
# at most this many launches drawn: a long profile is many thousands of bars
MAX_LAUNCHES = 400


def specialisation_colours(launches: Sequence) -> dict[str, str]:
    """A colour per specialisation, in the order they first launched (``C0``, ``C1``…).

    >>> from types import SimpleNamespace as L
    >>> specialisation_colours([L(specialisation="f[a]"), L(specialisation="f[b]")])
    {'f[a]': 'C0', 'f[b]': 'C1'}
    """
    colours: dict[str, str] = {}
    for event in launches:
        colours.setdefault(event.specialisation, f"C{len(colours) % 10}")
    return colours


def timeline_figure(
    launches: Sequence | None = None,
    spans: Sequence | None = None,
    *,
    window: tuple[float, float] | None = None,
    highlight: tuple[int, int] | None = None,
) -> Figure:
    """Draws ``launches`` (default: ``ti.profiler.launches()``) and ``spans`` (default:
    ``ti.profiler.spans()`` when launches are not given, else none).

    ``window`` is the visible time range in ms from the first event; ``highlight`` a
    ``(launch position, task index)`` whose bars get a black edge. Returns a bare
    matplotlib Figure (no pyplot state).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu, kernel_profiler=True)
        >>> v = ti.field(ti.f32, shape=32)
        >>> @ti.kernel
        ... def zero_v():
        ...     for i in v:
        ...         v[i] = 0
        >>> zero_v()
        >>> fig = timeline_figure(window=(0.0, 1.0))
        >>> [float(x) for x in fig.axes[0].get_xlim()]
        [0.0, 1.0]
        >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:2]
        ['compile / load', 'launches']
    """
    if launches is None:
        launches = ti.profiler.launches()
        spans = ti.profiler.spans() if spans is None else spans
    launches, spans = list(launches)[-MAX_LAUNCHES:], list(spans or ())
    threads = sorted({s.thread for e in launches for t in e.tasks for s in t.threads})
    rows = (["compile / load"] if spans else []) + ["launches"]
    rows += [f"thread {t}" for t in threads]
    fig = Figure(figsize=(8, 1.2 + 0.35 * len(rows)), layout="constrained")
    ax = fig.add_subplot()
    if not launches and not spans:
        ax.text(0.5, 0.5, EMPTY, ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    origin = min([e.start_ns for e in launches] + [s.start_ns for s in spans])
    y_of = {name: k for k, name in enumerate(rows)}

    def bar(y: float, start_ns: int, length_ns: int, height: float, **style) -> Rectangle:
        rect = Rectangle(
            ((start_ns - origin) / 1e6, y - height / 2), max(length_ns, 0) / 1e6, height, **style
        )
        ax.add_patch(rect)
        return rect

    for n, span in enumerate(spans):
        colour = _SPAN_COLOURS.get(span.name, "0.6")
        row = y_of["compile / load"]
        bar(row, span.start_ns, span.duration_ns, 0.7, color=colour, gid=f"compile-{n}")
    colours = specialisation_colours(launches)
    for position, event in enumerate(launches):
        colour = colours[event.specialisation]
        row = y_of["launches"]
        bar(row, event.start_ns, event.duration_ns, 0.7, color=colour, gid=f"launch-{position}")
        for task in event.tasks:
            chosen = highlight == (position, task.index)
            edge = {"edgecolor": "black", "linewidth": 1.5} if chosen else {"linewidth": 0}
            for s in task.threads:
                y = y_of[f"thread {s.thread}"]
                tag = f"{position}-{task.index}-{s.thread}"
                pale = {"facecolor": colour, "alpha": 0.35, "gid": f"span-{tag}", **edge}
                bar(y, s.start_ns, s.end_ns - s.start_ns, 0.7, **pale)
                bar(y, s.start_ns, s.busy_ns, 0.35, facecolor=colour, gid=f"busy-{tag}")
    end = max([e.end_ns for e in launches] + [s.end_ns for s in spans])
    total_ms = max((end - origin) / 1e6, 1e-6)
    ax.set_xlim(*(window or (0.0, total_ms)))
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("ms from the first event")
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=c, label=name) for name, c in colours.items()]
    handles += [Patch(color=_SPAN_COLOURS[n], label=n) for n in _SPAN_COLOURS if spans]
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def total_ms(launches: Sequence, spans: Sequence = ()) -> float:
    """Milliseconds from the first event's start to the last one's end (0 when none).

    >>> total_ms([])
    0.0
    """
    events = list(launches) + list(spans)
    if not events:
        return 0.0
    return (max(e.end_ns for e in events) - min(e.start_ns for e in events)) / 1e6
