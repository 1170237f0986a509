"""``ti_notebook.widgets.bls``: how block-local storage maps a block's indices, as a widget.

Standard ipywidgets only (DESIGN.md section 6): a Dropdown chooses the cached field when
the kernel caches several, one BoundedIntText per axis picks a buffer cell, a Label says
which global cell it holds and which iterations of the block read it, and an HTML widget
shows :func:`bls_figure` of the current state as inline SVG (sharp at any zoom). The data
are the kernel's typed report (:mod:`~ti_notebook.widgets.bls_data`, which also states
the rule for the readers and the reuse figures).

The returned :class:`BlsView` displays as the widget in a live kernel; its mime bundle
also carries the SVG picture and a text line, for nbval and exported notebooks.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    >>> _ = ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a, b)
    >>> @ti.kernel
    ... def foo():
    ...     ti.block_local(a)
    ...     for i, j in b:
    ...         b[i, j] = a[i - 1, j] + a[i, j + 2]
    >>> view = bls(foo)
    >>> view.cell[0].value, view.cell[1].value = 1, 2
    >>> view.info.value
    'buffer[1, 2] = a[0, 2]; read by 2 iterations: [0, 0], [1, 2]'
"""

from __future__ import annotations

import ipywidgets as w

import ti_notebook as ti

from .bls_data import BlsData, bls_data
from .bls_draw import draw
from .render import inline_svg, static_bundle, svg_text


def bls_figure(kernel: ti.Kernel, *args, block=0, buffer: int = 0, cell=None, fields=None):
    """The BLS picture of ``kernel``'s ``buffer``-th cached field as a matplotlib Figure.

    ``block``: a flat index into the loop's block grid (or one index per axis);
    ``cell``: a buffer cell to highlight with the iterations that read it.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
        >>> _ = ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a, b)
        >>> @ti.kernel
        ... def foo():
        ...     ti.block_local(a)
        ...     for i, j in b:
        ...         b[i, j] = a[i - 1, j] + a[i, j + 2]
        >>> bls_figure(foo, cell=(0, 0)).axes[1].get_title()
        'buffer of a: 5 x 6 (120 bytes)'
    """
    data = bls_data(kernel, *args, block=block, fields=fields)[buffer]
    return draw(data, cell)


class BlsView:
    """The widget :func:`bls` returns; ``.widget`` is its ipywidgets box.

    Attributes a test or a notebook may drive: ``buffers`` (a Dropdown, or None for one
    cached field), ``cell`` (BoundedIntText per buffer axis), ``info`` (a Label),
    ``picture`` (an HTML widget holding the SVG), ``data`` (the current :class:`BlsData`).
    """

    def __init__(self, data: list[BlsData]) -> None:
        self._data = data
        self.selected = 0
        self.buffers = None
        if len(data) > 1:
            options = [(f"{d.field} ({d.entry.mode})", n) for n, d in enumerate(data)]
            self.buffers = w.Dropdown(options=options, description="buffer")
            self.buffers.observe(self._choose, names="value")
        # "initial": the description takes the room it needs, so "u0" is not cut short
        self.cell = [
            w.BoundedIntText(
                value=0,
                min=0,
                description=f"u{a}",
                style={"description_width": "initial"},
                layout={"width": "8em"},
            )
            for a in range(4)
        ]
        for box in self.cell:
            box.observe(self._redraw, names="value")
        self.info = w.Label()
        self.picture = w.HTML()
        self._boxes = w.HBox()
        controls = [self.buffers] if self.buffers is not None else []
        self.widget = w.VBox([*controls, self._boxes, self.info, self.picture])
        self._shape_boxes()
        self._redraw()

    @property
    def data(self) -> BlsData:
        return self._data[self.selected]

    @property
    def selected_cell(self) -> tuple[int, ...]:
        return tuple(box.value for box in self.cell[: len(self.data.buffer_shape)])

    def figure(self):
        """The current picture as a matplotlib Figure."""
        return draw(self.data, self.selected_cell)

    def _shape_boxes(self) -> None:
        shape = self.data.buffer_shape
        self._busy = True  # one redraw for the whole change, not one per box
        for a, box in enumerate(self.cell[: len(shape)]):
            box.value = min(box.value, shape[a] - 1)
            box.max = shape[a] - 1
        self._busy = False
        self._boxes.children = tuple(self.cell[: len(shape)])

    def _choose(self, change) -> None:
        self.selected = change["new"]
        self._shape_boxes()
        self._redraw()

    def _redraw(self, _change=None) -> None:
        if getattr(self, "_busy", False):
            return
        self.info.value = self.data.cell_text(self.selected_cell)
        self.picture.value = inline_svg(self.svg())

    def svg(self) -> str:
        """The current picture as deterministic SVG text."""
        return svg_text(self.figure())

    def _repr_mimebundle_(self, **kwargs) -> dict:
        # the widget view for live kernels, the SVG for nbval and exported notebooks
        text = f"<ti_notebook.widgets.bls: {self.data.describe()}>"
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), text, self.svg())


def bls(kernel: ti.Kernel, *args, block=0, fields=None) -> BlsView:
    """A widget showing how ``kernel``'s ``ti.block_local`` buffers map indices.

    ``args`` compile a kernel with template or ndarray parameters; ``block`` picks the
    block of the loop drawn (flat index into the block grid, or one index per axis);
    ``fields`` lists the cached fields when the kernel's globals do not name them. A
    kernel without ``ti.block_local`` raises :class:`~ti_notebook.errors.TiValueError`.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
        >>> _ = ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a, b)
        >>> @ti.kernel
        ... def foo():
        ...     ti.block_local(a)
        ...     for i, j in b:
        ...         b[i, j] = a[i - 1, j] + a[i, j + 2]
        >>> view = bls(foo, block=(1, 1))
        >>> view.data.block, view.data.corner, view.data.global_reads, view.data.buffer_loads
        (9, (4, 4), 32, 30)
    """
    return BlsView(bls_data(kernel, *args, block=block, fields=fields))
