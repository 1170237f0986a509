"""``ti_notebook.widgets.roofline``: each task against this machine's ceilings.

``roofline(kernel, *args)`` counts the kernel's bytes and FLOPs (the compiler's counts)
and times it by the protocol; ``roofline(ti.profiler.rows())`` places the profiler's
rows instead. On a CPU the roofs are this machine's measured ceilings (one memory roof
per level, the f32 and f64 peaks); for a CUDA session the device's published figures.
The data are ``ti.profiler.roofline_data``'s; ``.data`` gives them to scripts (points
with ``x``, ``y``, ``label``, ``bound``; ``roofs``).

The returned :class:`RooflineView` displays as an image and a text summary; its mime
bundle carries a deterministic SVG for nbval and exported notebooks.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> x = ti.field(ti.f32, shape=4096)
    >>> @ti.kernel
    ... def scale(a: ti.f32):
    ...     for i in x:
    ...         x[i] = a * x[i]
    >>> view = roofline(scale, 2.0, seconds=1e-5)  # a given time: nothing is timed
    >>> p = view.data.points[0]
    >>> p.label, round(p.x, 3), round(p.y, 3)
    ('scale', 0.125, 0.41)
"""

from __future__ import annotations

import ipywidgets as w

import ti_notebook as ti

from .render import png_bytes, static_bundle, svg_text
from .roofline_draw import draw


def roofline_figure(target, *args, **options):
    """The roofline as a matplotlib Figure (for scripts); arguments as for :func:`roofline`.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> fig = roofline_figure([])
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    return draw(ti.profiler.roofline_data(target, *args, **options))


class RooflineView:
    """What :func:`roofline` returns: ``data`` (the roofline data), ``image`` (PNG) and
    ``info`` (one line per point), in ``widget`` (an ipywidgets box)."""

    def __init__(self, data) -> None:
        self.data = data
        self.info = w.HTML(value="<br>".join(data.describe().splitlines()))
        self.image = w.Image(format="png", value=png_bytes(self.figure()))
        self.widget = w.VBox([self.image, self.info])

    def figure(self):
        """The picture as a matplotlib Figure."""
        return draw(self.data)

    def svg(self) -> str:
        """The picture as deterministic SVG text."""
        return svg_text(self.figure())

    def _repr_mimebundle_(self, **kwargs) -> dict:
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), self.data.describe(), self.svg())


def roofline(target, *args, **options) -> RooflineView:
    """A roofline of ``target``: a kernel (then ``args`` are its arguments; ``seconds=``
    skips the timing, ``device=`` picks a GPU's published specs) or profiler rows."""
    return RooflineView(ti.profiler.roofline_data(target, *args, **options))
