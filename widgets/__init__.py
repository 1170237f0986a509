"""Notebook widgets for ti_notebook, installed as ``ti_notebook.widgets``.

The layout view, block-local-storage view, loop_config tuner and timeline: each reads
the compiler's read-only data and draws it (DESIGN.md sections 2, 4 and 6).

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets import layout, layout_figure
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(4, 4))
    >>> layout(x, loop="struct-for").count.value
    '16 iterations touched 1 cache line'
"""

from .layout_view import LayoutView, layout, layout_figure

__all__ = ["LayoutView", "layout", "layout_figure"]
