"""``timeline()``: the profiler's trace in a notebook, zoomable, with task details.

The drawing is :func:`~ti_notebook.widgets.timeline_plot.timeline_figure` shown as a
PNG. A FloatRangeSlider picks the visible time window; a Dropdown lists every task of
every launch drawn, and choosing one outlines its bars and shows its details (kernel,
specialisation, task index, kind, loop_config, duration, iterations, bytes, GB/s): a
hover substitute made of standard widgets only, so it works wherever ipywidgets do.
The trace is read once, when the widget is made; ``refresh()`` reads it again.

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
    >>> view.tasks.options[0][0]
    'ramp #0 task 0 (struct_for)'
    >>> "struct_for" in view.details.value
    True
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure

import ti_notebook as ti
from ti_notebook.widgets.render import html_table, png_bytes, svg_text
from ti_notebook.widgets.timeline_plot import EMPTY, MAX_LAUNCHES, timeline_figure, total_ms

__all__ = ["Timeline", "task_details", "timeline"]


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
        ("loop_config", config),
        ("duration", f"{task.duration_ns / 1e3:.1f} µs"),
        ("iterations", "-" if task.iterations is None else str(task.iterations)),
        ("bytes", "-" if task.bytes is None else str(task.bytes)),
        ("GB/s", "-" if gbps is None else f"{gbps:.2f}"),
        ("threads", str(len(task.threads))),
    ]


class Timeline:
    """The timeline's data and widgets; ``timeline(...)`` makes one (see the module).

    ``launches`` and ``spans`` are what it draws, ``window`` the zoom slider, ``tasks``
    the task Dropdown, ``details`` the chosen task's table, ``widget`` the whole view.
    """

    def __init__(self, launches: Sequence | None = None, spans: Sequence | None = None):
        self._given = (launches, spans)
        self.window = widgets.FloatRangeSlider(
            description="ms", continuous_update=False, readout_format=".3f"
        )
        self.tasks = widgets.Dropdown(description="task")
        self.details = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.message = widgets.HTML()
        self.widget = widgets.VBox(
            [self.message, self.window, self.image, widgets.HBox([self.tasks, self.details])]
        )
        self.refresh()
        self.window.observe(lambda _change: self._redraw(), names="value")
        self.tasks.observe(lambda _change: self._select(), names="value")

    def refresh(self) -> None:
        """Reads the trace again (``ti.profiler`` when no launches were given)."""
        launches, spans = self._given
        if launches is None:
            launches = ti.profiler.launches()
            spans = ti.profiler.spans() if spans is None else spans
        self.launches = tuple(launches)[-MAX_LAUNCHES:]
        self.spans = tuple(spans or ())
        total = total_ms(self.launches, self.spans)
        # the range slider needs max > min even for an empty trace
        self.window.max = max(total, 1e-3)
        self.window.min = 0.0
        self.window.step = self.window.max / 1000
        self.window.value = (0.0, self.window.max)
        self.tasks.options = [
            (f"{launch.specialisation} #{launch.launch} task {task.index} ({task.kind})", (n, k))
            for n, launch in enumerate(self.launches)
            for k, task in enumerate(launch.tasks)
        ]
        # ipywidgets leaves a Dropdown unselected when its options arrive after it was made
        self.tasks.index = 0 if self.tasks.options else None
        shown = len(self.launches)
        if not shown and not self.spans:
            self.message.value = f"<i>{EMPTY}</i>"
        else:
            profiler = "" if ti.profiler.is_enabled() else " (the profiler is off now)"
            self.message.value = f"{shown} launch(es), {len(self.spans)} span(s){profiler}"
        self._select()

    def _selected(self) -> tuple[int, int] | None:
        return self.tasks.value

    def _select(self) -> None:
        chosen = self._selected()
        if chosen is None:
            self.details.value = ""
        else:
            launch = self.launches[chosen[0]]
            pairs = task_details(launch, launch.tasks[chosen[1]])
            self.details.value = html_table(["", ""], [list(p) for p in pairs])
        self._redraw()

    def figure(self) -> Figure:
        """The drawing as a matplotlib Figure, with the window and selected task."""
        chosen = self._selected()
        highlight = None
        if chosen is not None:
            highlight = (chosen[0], self.launches[chosen[0]].tasks[chosen[1]].index)
        return timeline_figure(
            self.launches, self.spans, window=tuple(self.window.value), highlight=highlight
        )

    def _redraw(self) -> None:
        self.image.value = png_bytes(self.figure())

    def __repr__(self) -> str:
        if not self.launches and not self.spans:
            return f"<Timeline: {EMPTY}>"
        return f"<Timeline {len(self.launches)} launch(es), {len(self.spans)} span(s)>"

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget, with a static SVG and text for exported notebooks."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["image/svg+xml"] = svg_text(self.figure())
        bundle["text/plain"] = repr(self)
        return bundle


def timeline(launches: Sequence | None = None, spans: Sequence | None = None) -> Timeline:
    """Opens the timeline on ``launches`` (default: every launch ``ti.profiler``
    recorded, with its compile spans); see the module.

        >>> timeline(launches=())
        <Timeline: no launches recorded: ti.init(kernel_profiler=True), then run kernels>
    """
    return Timeline(launches, spans)
