"""``ti_notebook.widgets.occupancy``: theoretical occupancy against block_dim, as a widget.

Standard ipywidgets only (DESIGN.md section 6): a Dropdown switches the arch (for PTX,
ptxas runs again for it, cached), a second Dropdown moves the current block_dim, a
Label explains the current point, and an Image shows :func:`occupancy_figure` of the
current state as a PNG. The data are :mod:`~ti_notebook.widgets.occupancy_data`'s.

The returned :class:`OccupancyView` displays as the widget in a live kernel; its mime
bundle also carries the SVG picture and a text line, for nbval and exported notebooks.

    >>> view = occupancy(registers=64, shared_bytes=8192)
    >>> view.info.value.endswith("8 blocks = 32 of 64 warps per SM (50%), limited by registers")
    True
    >>> view.arch.value = "sm_86"  # 48 warps per SM: the same 32 warps are 2/3 of it
    >>> round(view.data.series[0].at(128).occupancy, 3)
    0.667
"""

from __future__ import annotations

import ipywidgets as w

from .occupancy_data import DEFAULT_BLOCK_DIMS, OccupancyData, occupancy_data
from .occupancy_draw import draw
from .render import png_bytes, static_bundle, svg_text


def occupancy_figure(target=None, arch="sm_90", block_dims=DEFAULT_BLOCK_DIMS, **options):
    """The occupancy picture as a matplotlib Figure (for scripts); arguments as for
    :func:`occupancy`.

        >>> fig = occupancy_figure(registers=32, arch="sm_80", block_dim=256)
        >>> fig.axes[0].get_title()
        'theoretical occupancy on sm_80 (A100)'
    """
    return draw(occupancy_data(target, arch, block_dims, **options))


class OccupancyView:
    """The widget :func:`occupancy` returns; ``.widget`` is its ipywidgets box.

    Attributes a test or a notebook may drive: ``arch`` and ``block_dim`` (Dropdowns),
    ``info`` (a Label: the current point of each kernel), ``image`` (the PNG), ``data``
    (the current :class:`~ti_notebook.widgets.occupancy_data.OccupancyData`).
    """

    def __init__(self, target, arch, block_dims, options: dict) -> None:
        self._target, self._options = target, dict(options)
        self.data: OccupancyData = occupancy_data(target, arch, block_dims, **self._options)
        self.arch = w.Dropdown(
            options=list(self.data.archs), value=self.data.arch, description="arch"
        )
        self.block_dim = w.Dropdown(
            options=list(self.data.block_dims), value=self.data.block_dim, description="block_dim"
        )
        self.info = w.Label()
        self.image = w.Image(format="png")
        self.arch.observe(self._update, names="value")
        self.block_dim.observe(self._update, names="value")
        self.widget = w.VBox([w.HBox([self.arch, self.block_dim]), self.info, self.image])
        self._redraw()

    def figure(self):
        """The current picture as a matplotlib Figure."""
        return draw(self.data)

    def _update(self, _change=None) -> None:
        options = {**self._options, "block_dim": self.block_dim.value}
        self.data = occupancy_data(self._target, self.arch.value, self.data.block_dims, **options)
        self._redraw()

    def _redraw(self) -> None:
        self.info.value = "; ".join(point.explain() for point in self.data.current())
        self.image.value = png_bytes(self.figure())

    def svg(self) -> str:
        """The current picture as deterministic SVG text."""
        return svg_text(self.figure())

    def _repr_mimebundle_(self, **kwargs) -> dict:
        # the widget view for live kernels, the SVG for nbval and exported notebooks
        text = f"<ti_notebook.widgets.occupancy: {self.info.value}>"
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), text, self.svg())


def occupancy(target=None, arch="sm_90", block_dims=DEFAULT_BLOCK_DIMS, **options) -> OccupancyView:
    """A widget plotting theoretical occupancy against block_dim, with an arch dropdown.

    ``target``: None with the kernel's resources as keywords (``registers=``,
    ``shared_bytes=``, ``dynamic_shared_bytes=``, ``barriers=``), PTX text (ptxas reports
    the resources of each entry function), or a kernel (its PTX; needs the CUDA
    backend). ``block_dim`` marks the current value (default 128); ``args`` select a
    kernel's specialisation. Each point's marker names the resource that limits it.

        >>> view = occupancy(registers=16, barriers=5, block_dims=(64, 128, 256))
        >>> [p.limiting for p in view.data.series[0].points]
        ['barriers', 'barriers', 'warps']
    """
    return OccupancyView(target, arch, block_dims, options)
