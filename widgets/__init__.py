"""Notebook widgets for ti_notebook, installed as ``ti_notebook.widgets``.

The layout view, block-local-storage view, loop_config tuner and timeline: each reads
the compiler's read-only data and draws it (DESIGN.md sections 2, 4 and 6).

- :func:`tune` / :func:`tune_figure`: time a kernel against its loop options, live;
- :func:`timeline` / :func:`timeline_figure`: the kernel profiler's launches per thread.
"""

from ti_notebook.widgets.timeline_plot import timeline_figure
from ti_notebook.widgets.timeline_view import Timeline, timeline
from ti_notebook.widgets.tuner import Tuner, tune
from ti_notebook.widgets.tuner_plot import tune_figure
from ti_notebook.widgets.tuning import Measurement

__all__ = [
    "Measurement",
    "Timeline",
    "Tuner",
    "timeline",
    "timeline_figure",
    "tune",
    "tune_figure",
]
