"""Notebook widgets for ti_notebook, installed as ``ti_notebook.widgets``.

The layout view, block-local-storage view, loop_config tuner, timeline and occupancy
view: each reads the compiler's read-only data and draws it (DESIGN.md sections 2, 4
and 6).

- :func:`layout` / :func:`layout_figure`: where every element of a field lives, and the
  order a loop visits them;
- :func:`bls` / :func:`bls_figure`: how ``ti.block_local`` maps a block's indices to its
  buffer, and which iterations read a buffer cell;
- :func:`tune` / :func:`tune_figure`: time a kernel against its loop options, live;
- :func:`timeline` / :func:`timeline_figure`: the kernel profiler's launches per thread;
- :func:`occupancy` / :func:`occupancy_figure`: a CUDA kernel's theoretical occupancy
  against block_dim, and what limits it;
- :func:`roofline` / :func:`roofline_figure`: each task's FLOPs per byte and GFLOP/s
  against this machine's measured ceilings (or a GPU's published ones).

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets import layout, layout_figure
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(4, 4))
    >>> layout(x, loop="struct-for").count.value
    '16 iterations touched 1 cache line'
"""

from ti_notebook.widgets.bls_view import BlsView, bls, bls_figure
from ti_notebook.widgets.layout_view import LayoutView, layout, layout_figure
from ti_notebook.widgets.occupancy_view import OccupancyView, occupancy, occupancy_figure
from ti_notebook.widgets.roofline_view import RooflineView, roofline, roofline_figure
from ti_notebook.widgets.timeline_plot import timeline_figure
from ti_notebook.widgets.timeline_view import Timeline, timeline
from ti_notebook.widgets.tuner import Tuner, tune
from ti_notebook.widgets.tuner_plot import tune_figure
from ti_notebook.widgets.tuning import Measurement

__all__ = [
    "BlsView",
    "LayoutView",
    "Measurement",
    "OccupancyView",
    "RooflineView",
    "Timeline",
    "Tuner",
    "bls",
    "bls_figure",
    "layout",
    "layout_figure",
    "occupancy",
    "occupancy_figure",
    "roofline",
    "roofline_figure",
    "timeline",
    "timeline_figure",
    "tune",
    "tune_figure",
]
