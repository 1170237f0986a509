"""The profiler's trace as a drawing: who ran what, when, on which thread.

Rows, top to bottom: compile and cache-load spans (``ti.profiler.spans()``), whole
launches, then one lane per worker thread (``ThreadSpan.thread``: thread 0 is the one
that launched the kernel). Each task draws one bar per thread that ran part of it, from
that thread's first chunk's start to its last chunk's end, pale; the darker inner bar
is its busy time (the share of the span it spent running chunks, the rest being waits).
Colours are per kernel specialisation, with a legend.

The drawing shows a time window (:class:`~.timeline_window.TimeWindow`), by default the
last launch with a little margin: a session is seconds long and a launch microseconds,
so the whole session would draw every task as a sliver. Only the rows with something in
the window are drawn; the title names the threads idle in it. A bar shorter than
:data:`MIN_BAR_PX` pixels is drawn that wide and marked with a small triangle.

Every bar carries a ``gid`` (``launch-L``, ``span-L-T-thread``, ``busy-L-T-thread``,
``compile-N``), so a test or a script can find the bar of one task's thread (a window
with more than :data:`MAX_SEPARATE_BARS` bars draws one collection per kind instead,
``span-bars``, ``busy-bars``, ``launch-bars``, ``compile-bars``). The
triangles over a row's widened bars are one marker line, ``tiny-launches``,
``tiny-compile-load`` or ``tiny-thread-T``.

    >>> from ti_notebook.widgets.timeline_plot import timeline_figure
    >>> fig = timeline_figure(launches=(), spans=())
    >>> fig.axes[0].texts[0].get_text()
    'no launches recorded: ti.init(kernel_profiler=True), then run kernels'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiValueError
from ti_notebook.widgets.timeline_window import TimeWindow, around

__all__ = [
    "EMPTY",
    "MAX_LAUNCHES",
    "MAX_SEPARATE_BARS",
    "check_launch",
    "MIN_BAR_PX",
    "SESSION",
    "launch_name",
    "launch_window",
    "resolve_window",
    "session_window",
    "specialisation_colours",
    "task_window",
    "thread_label",
    "timeline_figure",
    "total_ms",
]

EMPTY = "no launches recorded: ti.init(kernel_profiler=True), then run kernels"
_SPAN_COLOURS = {"compile": "0.45", "cache load": "0.75"}
# at most this many launches kept: a long profile is many thousands of bars
MAX_LAUNCHES = 400
# ``window=SESSION``: from the first event to the last one's end
SESSION = "session"
# the narrowest bar drawn, in pixels at the 96 dpi of the widget's PNG
MIN_BAR_PX = 2
# more bars than this in the window (a wide window over many launches) are drawn as one
# collection per kind, without a gid per bar: thousands of patches take seconds
MAX_SEPARATE_BARS = 600
_FIG_WIDTH_IN = 9.0
# tall enough that a lane's label, its pale span and its busy bar are all readable
_LANE_IN = 0.5
_FIRST_EVENT = "the first event"
_COMPILE, _LAUNCHES = "compile / load", "launches"


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


def thread_label(thread: int) -> str:
    """A thread lane's label.

    >>> thread_label(0), thread_label(3)
    ('thread 0 (launching)', 'thread 3')
    """
    return "thread 0 (launching)" if thread == 0 else f"thread {thread}"


def launch_name(event) -> str:
    """How the drawing and the widget name one launch: its specialisation and number.

    >>> from types import SimpleNamespace as L
    >>> launch_name(L(specialisation="add[a=rows]", launch=3))
    'add[a=rows] #3'
    """
    return f"{event.specialisation} #{event.launch}"


def _bounds(launches: Sequence, spans: Sequence) -> tuple[int, int]:
    events = list(launches) + list(spans)
    return min(e.start_ns for e in events), max(e.end_ns for e in events)


def session_window(launches: Sequence, spans: Sequence = ()) -> TimeWindow:
    """The whole session (first event to the last one's end), with a margin.

    >>> from types import SimpleNamespace as E
    >>> w = session_window([E(start_ns=0, end_ns=10_000_000)])
    >>> w.label, w.start, w.end
    ('ms from the first event', -1.0, 11.0)
    """
    first, last = _bounds(launches, spans)
    return around(first, last, origin_ns=first, origin=_FIRST_EVENT)


def check_launch(launches: Sequence, position: int) -> int:
    """``position`` as an index into ``launches`` (negative counts from the end), or a
    :class:`~ti_notebook.errors.TiIndexError` saying which positions exist.

    >>> check_launch(["a", "b", "c"], -1)
    2
    """
    count = len(launches)
    if not -count <= position < count:
        raise TiIndexError(
            f"launch={position}, but the timeline holds {count} launch(es)",
            hint=f"pick 0 to {count - 1}, or -1 for the last one" if count else "run a kernel",
        )
    return position % count


def launch_window(launches: Sequence, position: int) -> TimeWindow:
    """One launch (``launches[position]``, negative counts from the end) with a margin,
    counted from its start.

    >>> from types import SimpleNamespace as E
    >>> w = launch_window([E(specialisation="f", launch=0, start_ns=5e6, end_ns=5e6 + 3e4)], -1)
    >>> w.label, round(w.start, 3), round(w.end, 3)
    ('µs from the start of f #0', -3.0, 33.0)
    """
    event = launches[check_launch(launches, position)]
    origin = f"the start of {launch_name(event)}"
    return around(event.start_ns, event.end_ns, origin_ns=event.start_ns, origin=origin)


def task_window(launches: Sequence, position: int, task: int) -> TimeWindow:
    """One task (the ``task``-th of ``launches[position]``) with a margin, counted from
    its launch's start.

    >>> from types import SimpleNamespace as E
    >>> t = E(start_ns=1_000, end_ns=2_000)
    >>> w = task_window([E(specialisation="f", launch=0, start_ns=0, tasks=(t,))], 0, 0)
    >>> w.label, w.start, w.end
    ('µs from the start of f #0', 0.9, 2.1)
    """
    event = launches[position]
    chosen = event.tasks[task]
    origin = f"the start of {launch_name(event)}"
    return around(chosen.start_ns, chosen.end_ns, origin_ns=event.start_ns, origin=origin)


def resolve_window(
    launches: Sequence,
    spans: Sequence = (),
    window: TimeWindow | tuple[float, float] | str | None = None,
    launch: int | None = None,
) -> TimeWindow:
    """The window ``timeline_figure`` draws (see its arguments).

    >>> from types import SimpleNamespace as E
    >>> events = [E(specialisation="f", launch=0, start_ns=0, end_ns=1_000_000)]
    >>> resolve_window(events, window=(0.5, 0.75)).label
    "µs from the window's start (0.5 ms after the first event)"
    """
    if isinstance(window, TimeWindow):
        return window
    if isinstance(window, str) and window != SESSION:
        raise TiValueError(f"window={window!r} is not a window", hint="window='session'")
    if window == SESSION or (window is None and not launches):
        return session_window(launches, spans)
    if window is None:
        return launch_window(launches, -1 if launch is None else launch)
    low_ms, high_ms = (float(v) for v in window)  # type: ignore[union-attr]
    first, _ = _bounds(launches, spans)
    start, end = first + low_ms * 1e6, first + high_ms * 1e6
    if launch is not None:
        focus = launches[check_launch(launches, launch)]
        return TimeWindow(start, end, focus.start_ns, f"the start of {launch_name(focus)}")
    if low_ms == 0:
        return TimeWindow(start, end, first, _FIRST_EVENT)
    return TimeWindow(start, end, start, f"the window's start ({low_ms:g} ms after {_FIRST_EVENT})")


def timeline_figure(
    launches: Sequence | None = None,
    spans: Sequence | None = None,
    *,
    window: TimeWindow | tuple[float, float] | str | None = None,
    launch: int | None = None,
    highlight: tuple[int, int | None] | None = None,
) -> Figure:
    """Draws ``launches`` (default: ``ti.profiler.launches()``, the last
    :data:`MAX_LAUNCHES`) and ``spans`` (default: ``ti.profiler.spans()`` when launches
    are not given, else none) in one time window.

    ``window``: None for the launch ``launches[launch]`` (default the last) with a
    margin, counted from its start; :data:`SESSION` for everything; ``(start, end)`` in
    ms from the first event; or a :class:`~.timeline_window.TimeWindow`. The axis unit
    (µs, ms or s) follows the window's width, and its label says what it counts from.
    ``highlight`` is a ``(launch position, task index)`` whose bars get a black edge
    (task index None: the launch's bar). Returns a bare matplotlib Figure (no pyplot).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu, kernel_profiler=True)
        >>> v = ti.field(ti.f32, shape=32)
        >>> @ti.kernel
        ... def zero_v():
        ...     for i in v:
        ...         v[i] = 0
        >>> zero_v()
        >>> ax = timeline_figure().axes[0]
        >>> ax.get_xlabel()
        'µs from the start of zero_v #0'
        >>> [t.get_text() for t in ax.get_yticklabels()][:2]
        ['launches', 'thread 0 (launching)']
        >>> [float(x) for x in timeline_figure(window=(0.0, 1.0)).axes[0].get_xlim()]
        [0.0, 1000.0]
    """
    if launches is None:
        launches = ti.profiler.launches()
        spans = ti.profiler.spans() if spans is None else spans
    launches, spans = list(launches)[-MAX_LAUNCHES:], list(spans or ())
    if not launches and not spans:
        fig = Figure(figsize=(_FIG_WIDTH_IN, 1.5), layout="constrained")
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, EMPTY, ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    view = resolve_window(launches, spans, window, launch)
    shown = [(n, e) for n, e in enumerate(launches) if view.overlaps(e.start_ns, e.end_ns)]
    shown_spans = [(n, s) for n, s in enumerate(spans) if view.overlaps(s.start_ns, s.end_ns)]
    every_thread = {s.thread for e in launches for t in e.tasks for s in t.threads}
    threads = sorted(
        {
            s.thread
            for _, e in shown
            for t in e.tasks
            for s in t.threads
            if view.overlaps(s.start_ns, s.end_ns)
        }
    )
    rows = ([_COMPILE] if shown_spans else []) + [_LAUNCHES]
    rows += [thread_label(t) for t in threads]
    fig, ax = _frame(view, rows, launches, spans, _note(shown, every_thread - set(threads)))
    # the layout is fixed by now, so the axes' width in inches gives a pixel's width
    axes_in = ax.get_position().width * fig.get_figwidth()
    min_units = (view.end - view.start) * (MIN_BAR_PX / 96) / axes_in
    y_of = {name: k for k, name in enumerate(rows)}
    tips: dict[str, list[float]] = {}  # row -> x of each widened bar's triangle
    bars: list[tuple] = []  # (gid, x, bottom, width, height, face colour, chosen)

    def bar(row: str, start_ns: float, length_ns: float, height: float, mark: bool, *args):
        x, width = view.to_unit(start_ns), max(length_ns, 0) / view.ns_per_unit
        bars.append((args[0], x, y_of[row] - height / 2, max(width, min_units), height, *args[1:]))
        if width < min_units and mark:
            tips.setdefault(row, []).append(x + min_units / 2)
        return x, max(width, min_units)

    for n, span in shown_spans:
        colour = _SPAN_COLOURS.get(span.name, "0.6")
        bar(_COMPILE, span.start_ns, span.duration_ns, 0.7, True, f"compile-{n}", colour, False)
    colours = specialisation_colours(launches)
    for position, event in shown:
        colour = colours[event.specialisation]
        chosen = highlight == (position, None)
        gid = f"launch-{position}"
        x, width = bar(_LAUNCHES, event.start_ns, event.duration_ns, 0.7, True, gid, colour, chosen)
        _name_launch(ax, view, x, width, y_of[_LAUNCHES], launch_name(event))
        for task in event.tasks:
            chosen = highlight == (position, task.index)
            for s in task.threads:
                if s.thread not in threads:
                    continue
                row, tag = thread_label(s.thread), f"{position}-{task.index}-{s.thread}"
                # the face alone is pale: an outline of the chosen task stays black
                pale = to_rgba(colour, 0.35)
                bar(row, s.start_ns, s.end_ns - s.start_ns, 0.7, True, f"span-{tag}", pale, chosen)
                bar(row, s.start_ns, s.busy_ns, 0.35, False, f"busy-{tag}", colour, False)
    _place(ax, bars)
    for row, xs in tips.items():
        # one artist per row: thousands of separate markers would take seconds to draw
        name = re.sub(r"[^a-z0-9]+", "-", row.split(" (")[0])  # "thread-0", "compile-load"
        line = Line2D(xs, [y_of[row] - 0.35] * len(xs), marker="v", markersize=4)
        line.set(color="black", linestyle="none", clip_on=False, gid=f"tiny-{name}")
        ax.add_line(line)
    return fig


def _note(shown: list, idle: set[int]) -> str:
    """The title: what the window leaves out, so a missing lane is never a mystery."""
    notes = [] if shown else ["no launch in this window"]
    if idle:
        notes.append("idle in this window: " + ", ".join(thread_label(t) for t in sorted(idle)))
    return "; ".join(notes)


def _frame(
    view: TimeWindow, rows: list[str], launches: list, spans: list, note: str
) -> tuple[Figure, object]:
    """The figure with its axes, labels and legend, laid out once and then frozen, so
    that bar widths in pixels are known while the bars are placed."""
    fig = Figure(figsize=(_FIG_WIDTH_IN, 1.4 + _LANE_IN * len(rows)), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlim(view.start, view.end)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(view.label)
    ax.grid(axis="x", alpha=0.3)
    if note:
        ax.set_title(note, loc="right", fontsize="small")
    handles: list = [
        Patch(color=c, label=name) for name, c in specialisation_colours(launches).items()
    ]
    names = {s.name for s in spans}
    handles += [Patch(color=c, label=n) for n, c in _SPAN_COLOURS.items() if n in names]
    handles += [
        Patch(facecolor=to_rgba("0.5", 0.35), label="thread's span"),
        Patch(facecolor="0.5", label="busy in it (half height)"),
        Line2D([], [], color="black", marker="v", linestyle="none", label="widened to 2 px"),
    ]
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.get_layout_engine().execute(fig)
    fig.set_layout_engine("none")
    return fig, ax


def _name_launch(ax, view: TimeWindow, x: float, width: float, y: float, name: str) -> None:
    """Writes the launch's name on its bar when the visible part is wide enough."""
    left, right = max(x, view.start), min(x + width, view.end)
    if right - left >= 0.15 * (view.end - view.start):
        ax.text((left + right) / 2, y, name, ha="center", va="center", fontsize="x-small")


def _place(ax, bars: list[tuple]) -> None:
    """Adds the bars: one Rectangle each (with its gid) when there are at most
    :data:`MAX_SEPARATE_BARS`, else one collection per kind (``span-bars``...), since
    thousands of separate patches take seconds to build and draw."""
    if len(bars) <= MAX_SEPARATE_BARS:
        for gid, x, bottom, width, height, face, chosen in bars:
            edge = {"edgecolor": "black", "linewidth": 1.5} if chosen else {"linewidth": 0}
            ax.add_patch(Rectangle((x, bottom), width, height, facecolor=face, gid=gid, **edge))
        return
    kinds: dict[str, list[tuple]] = {}
    for one in bars:
        kinds.setdefault(one[0].split("-")[0], []).append(one)
    for kind, group in kinds.items():
        corners = [[(x, b), (x + w, b), (x + w, b + h), (x, b + h)] for _, x, b, w, h, *_ in group]
        collection = PolyCollection(
            corners,
            facecolors=[one[5] for one in group],
            edgecolors=["black" if one[6] else "none" for one in group],
            linewidths=[1.5 if one[6] else 0 for one in group],
            gid=f"{kind}-bars",
        )
        ax.add_collection(collection, autolim=False)


def total_ms(launches: Sequence, spans: Sequence = ()) -> float:
    """Milliseconds from the first event's start to the last one's end (0 when none).

    >>> total_ms([])
    0.0
    """
    if not list(launches) and not list(spans):
        return 0.0
    first, last = _bounds(launches, spans)
    return (last - first) / 1e6
