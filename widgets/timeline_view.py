"""``timeline()``: the profiler's trace in a notebook, zoomable, with task details.

The drawing is :func:`~ti_notebook.widgets.timeline_plot.timeline_figure` shown as a
PNG, in a time window that opens on the last launch (or ``launch=N``) with a little
margin. Controls, all standard ipywidgets:

- two Dropdowns, the launch and one of its tasks (or the whole launch): choosing one
  zooms to it, outlines its bars and shows its details (kernel, specialisation, task,
  kind, loop_config, duration, iterations, bytes, GB/s, busy share), a hover substitute;
- a FloatLogSlider of the window's width in µs (1 µs to the whole session) and zoom
  buttons that divide or multiply it by 4, keeping the window's centre;
- pan buttons that move the window by a quarter of its width, and "whole session".

``view.window`` is the current :class:`~.timeline_window.TimeWindow` (``start``,
``end`` and ``unit`` on the axis, ``start_ns``/``end_ns`` on the profiler clock). The
trace is read once, when the widget is made; ``refresh()`` reads it again.

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets import timeline
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> x = ti.field(ti.f32, shape=64)
    >>> @ti.kernel
    ... def ramp():
    ...     for i in x:
    ...         x[i] = i
    >>> ramp()
    >>> view = timeline()
    >>> view.tasks.options[1][0]
    'task 0 (struct_for)'
    >>> view.window.unit, view.window.label
    ('µs', 'µs from the start of ramp #0')
    >>> view.tasks.index = 1
    >>> "struct_for" in view.details.value
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure

import ti_notebook as ti
from ti_notebook.widgets.render import html_table, png_bytes, static_bundle
from ti_notebook.widgets.timeline_plot import (
    EMPTY,
    MAX_LAUNCHES,
    check_launch,
    launch_name,
    launch_window,
    session_window,
    task_window,
    timeline_figure,
)
from ti_notebook.widgets.timeline_window import MIN_WIDTH_NS, PAN_STEP, ZOOM_STEP, TimeWindow

__all__ = ["Timeline", "launch_details", "task_details", "timeline"]


def _duration(ns: float) -> str:
    return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def _busy_share(task) -> str:
    spans = sum(s.end_ns - s.start_ns for s in task.threads)
    if not spans:
        return "-"
    return f"{100 * sum(s.busy_ns for s in task.threads) / spans:.0f}% of the threads' spans"


def task_details(launch, task) -> list[tuple[str, str]]:
    """What the details pane shows of one task of one launch, as (name, text) pairs.

    >>> from types import SimpleNamespace as E
    >>> task = E(index=0, kind="range_for", loop_config={"block_dim": 32}, gbps=2.0,
    ...          start_ns=0, end_ns=1500, duration_ns=1500, iterations=8, bytes=3000,
    ...          threads=())
    >>> dict(task_details(E(kernel="k", specialisation="k", launch=3), task))["loop_config"]
    'block_dim=32'
    """
    gbps = task.gbps
    config = ", ".join(f"{k}={v}" for k, v in dict(task.loop_config).items()) or "(defaults)"
    return [
        ("kernel", launch.kernel),
        ("specialisation", launch.specialisation),
        ("launch", str(launch.launch)),
        ("task", str(task.index)),
        ("kind", task.kind),
        ("what", getattr(task, "description", "") or task.kind.replace("_", "-")),
        ("loop_config", config),
        ("duration", _duration(task.duration_ns)),
        ("iterations", "-" if task.iterations is None else str(task.iterations)),
        ("bytes", "-" if task.bytes is None else str(task.bytes)),
        ("GB/s", "-" if gbps is None else f"{gbps:.2f}"),
        ("threads", str(len(task.threads))),
        ("busy", _busy_share(task)),
    ]


def launch_details(launch) -> list[tuple[str, str]]:
    """What the details pane shows of a whole launch, as (name, text) pairs.

    >>> from types import SimpleNamespace as E
    >>> event = E(kernel="k", specialisation="k", launch=0, device="cpu",
    ...           duration_ns=2_500, tasks=(), bytes=None)
    >>> dict(launch_details(event))["duration"]
    '2.5 µs'
    """
    gbps = launch.bytes / launch.duration_ns if launch.bytes and launch.duration_ns > 0 else None
    return [
        ("kernel", launch.kernel),
        ("specialisation", launch.specialisation),
        ("launch", str(launch.launch)),
        ("device", launch.device),
        ("duration", _duration(launch.duration_ns)),
        ("tasks", str(len(launch.tasks))),
        ("bytes", "-" if launch.bytes is None else str(launch.bytes)),
        ("GB/s", "-" if gbps is None else f"{gbps:.2f}"),
    ]


class Timeline:
    """The timeline's data and widgets; ``timeline(...)`` makes one (see the module).

    ``launches`` and ``spans`` are what it draws, ``window`` the visible
    :class:`~.timeline_window.TimeWindow` (None for an empty profile), ``launch`` and
    ``tasks`` the Dropdowns, ``width`` the zoom slider, ``details`` the chosen item's
    table, ``widget`` the whole view. ``show``, ``zoom``, ``pan`` and ``show_session``
    do what the Dropdowns and buttons do.

        >>> from types import SimpleNamespace as E
        >>> span = E(thread=0, start_ns=0, end_ns=40_000, busy_ns=30_000)
        >>> task = E(index=0, kind="serial", loop_config={}, start_ns=0, end_ns=40_000,
        ...          duration_ns=40_000, iterations=None, bytes=None, gbps=None,
        ...          threads=(span,))
        >>> run = E(kernel="k", specialisation="k", launch=0, device="cpu", start_ns=0,
        ...         end_ns=40_000, duration_ns=40_000, tasks=(task,), bytes=None)
        >>> view = Timeline([run])
        >>> view.window.start, view.window.end, view.window.unit
        (-4.0, 44.0, 'µs')
        >>> view.zoom(1)  # 4 times narrower, same centre
        >>> view.window.start, view.window.end, view.pan_step_ns
        (14.0, 26.0, 3000.0)
        >>> view.pan(-1)
        >>> view.window.start
        11.0
    """

    def __init__(
        self, launches: Sequence | None = None, spans: Sequence | None = None, launch: int = -1
    ):
        self._given, self._start = (launches, spans), launch
        self._quiet, self._strict = False, True
        self.window: TimeWindow | None = None
        self.launch = widgets.Dropdown(description="launch")
        self.tasks = widgets.Dropdown(description="task")
        self.width = widgets.FloatLogSlider(
            description="width µs", base=10, min=0, step=0.05, readout_format=".3g"
        )
        self.width.continuous_update = False
        buttons = [("zoom in", self.zoom, 1), ("zoom out", self.zoom, -1)]
        buttons += [("◀ earlier", self.pan, -1), ("later ▶", self.pan, 1)]
        self.buttons = [self._button(text, act, arg) for text, act, arg in buttons]
        self.buttons.append(self._button("whole session", self.show_session, None))
        self.where = widgets.Label()
        self.details = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.message = widgets.HTML()
        self.widget = widgets.VBox(
            [
                self.message,
                widgets.HBox([self.launch, self.tasks]),
                widgets.HBox([self.width, *self.buttons]),
                self.where,
                self.image,
                self.details,
            ]
        )
        self.refresh()
        self._strict = False
        self.launch.observe(lambda c: self._chosen(c.new, None), names="value")
        self.tasks.observe(lambda c: self._chosen(*(c.new or (None, None))), names="value")
        self.width.observe(lambda c: self._resized(c.new), names="value")

    @staticmethod
    def _button(text: str, action, argument) -> widgets.Button:
        button = widgets.Button(description=text, layout=widgets.Layout(width="auto"))
        button.on_click(lambda _b: action() if argument is None else action(argument))
        return button

    def refresh(self) -> None:
        """Reads the trace again (``ti.profiler`` when no launches were given) and opens
        on the launch the view was made with (by default the last one)."""
        launches, spans = self._given
        if launches is None:
            launches = ti.profiler.launches()
            spans = ti.profiler.spans() if spans is None else spans
        self.launches = tuple(launches)[-MAX_LAUNCHES:]
        self.spans = tuple(spans or ())
        self._quiet = True
        self.launch.options = [
            (f"{launch_name(e)} ({_duration(e.duration_ns)})", n)
            for n, e in enumerate(self.launches)
        ]
        self._quiet = False
        if not self.launches and not self.spans:
            self.message.value = f"<i>{EMPTY}</i>"
        else:
            profiler = "" if ti.profiler.is_enabled() else " (the profiler is off now)"
            count = f"{len(self.launches)} launch(es), {len(self.spans)} span(s)"
            self.message.value = count + profiler
        if self.launches:
            self._session = session_window(self.launches, self.spans)
            # the slider spans 1 µs to the whole session, and needs max > min
            self._quiet = True
            self.width.max = max(math.log10(self._session.width_ns / 1e3), 0.5)
            self._quiet = False
            # a bad launch=N is an error when the view is made; a later, shorter trace
            # (cleared and re-run) opens on its last launch instead
            count = len(self.launches)
            fits = -count <= self._start < count
            self.show(self._start if fits or self._strict else -1)
        elif self.spans:
            self._session = session_window((), self.spans)
            self._choose(None, None)
            self._set_window(self._session)
        else:
            self.window = None
            self._choose(None, None)
            self._redraw()

    def show(self, launch: int = -1, task: int | None = None) -> None:
        """Zooms to ``launches[launch]`` (negative counts from the end) or to its
        ``task``-th task, with a margin, and shows its details."""
        position = check_launch(self.launches, launch)
        if task is None:
            window = launch_window(self.launches, position)
        else:
            window = task_window(self.launches, position, task)
        self._choose(position, task)
        self._set_window(window)

    def show_session(self) -> None:
        """Shows the whole session, first event to last, counted from the first."""
        if self.window is not None:
            self._set_window(self._session)

    def zoom(self, steps: float = 1) -> None:
        """Narrows the window ``ZOOM_STEP ** steps`` times around its centre (negative
        ``steps`` widens it), within 1 µs and the whole session."""
        if self.window is not None:
            self._set_window(self.window.zoomed(ZOOM_STEP**steps))

    @property
    def pan_step_ns(self) -> float:
        """How far one pan step moves the window: a fixed share of its width."""
        return 0.0 if self.window is None else PAN_STEP * self.window.width_ns

    def pan(self, steps: float = 1) -> None:
        """Moves the window ``steps`` pan steps later (negative: earlier)."""
        if self.window is not None:
            self._set_window(self.window.panned(steps))

    def _resized(self, width_us: float) -> None:
        if not self._quiet and self.window is not None:
            self._set_window(self.window.with_width(width_us * 1e3))

    def _chosen(self, position: int | None, task: int | None) -> None:
        if not self._quiet and position is not None:
            self.show(position, task)

    def _choose(self, position: int | None, task: int | None) -> None:
        """Sets both Dropdowns and the details to ``(position, task)``, quietly."""
        self._quiet = True
        try:
            if position is None:
                self.tasks.options, self.details.value = [], ""
                return
            event = self.launches[position]
            self.launch.value = position
            kinds = [(f"task {k} ({t.kind})", (position, k)) for k, t in enumerate(event.tasks)]
            self.tasks.options = [("whole launch", (position, None)), *kinds]
            self.tasks.value = (position, task)
            if task is None:
                pairs = launch_details(event)
            else:
                pairs = task_details(event, event.tasks[task])
            self.details.value = html_table(["", ""], [list(p) for p in pairs])
        finally:
            self._quiet = False

    def _set_window(self, window: TimeWindow) -> None:
        """Keeps the window between 1 µs and the whole session, and on the session."""
        session = self._session
        width = min(max(window.width_ns, MIN_WIDTH_NS), max(session.width_ns, MIN_WIDTH_NS))
        window = window.with_width(width).clamped(session.start_ns, session.end_ns)
        self.window = window
        self._quiet = True
        self.width.value = window.width_ns / 1e3
        self._quiet = False
        self.where.value = (
            f"{window.start:.4g} to {window.end:.4g} {window.label}; "
            f"one pan step {self.pan_step_ns / window.ns_per_unit:.3g} {window.unit}"
        )
        self._redraw()

    def _highlight(self) -> tuple[int, int | None] | None:
        chosen = self.tasks.value
        if chosen is None:
            return None
        position, task = chosen
        return position, None if task is None else self.launches[position].tasks[task].index

    def figure(self) -> Figure:
        """The drawing as a matplotlib Figure, in the current window, the chosen launch
        or task outlined."""
        return timeline_figure(
            self.launches, self.spans, window=self.window, highlight=self._highlight()
        )

    def _redraw(self) -> None:
        self.image.value = png_bytes(self.figure())

    def __repr__(self) -> str:
        if not self.launches and not self.spans:
            return f"<Timeline: {EMPTY}>"
        return f"<Timeline {len(self.launches)} launch(es), {len(self.spans)} span(s)>"

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget, with a static SVG and text for exported notebooks."""
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), repr(self))


def timeline(
    launches: Sequence | None = None, spans: Sequence | None = None, *, launch: int = -1
) -> Timeline:
    """Opens the timeline on ``launches`` (default: the last launches ``ti.profiler``
    recorded, with their compile spans), zoomed to ``launches[launch]`` (default the
    last); see the module.

        >>> timeline(launches=())
        <Timeline: no launches recorded: ti.init(kernel_profiler=True), then run kernels>
    """
    return Timeline(launches, spans, launch)
