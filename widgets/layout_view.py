"""``ti_notebook.widgets.layout``: where every element of a field lives, as a widget.

The view is made of standard ipywidgets only (no custom JavaScript, DESIGN.md section
6): ToggleButtons choose the field when several are given, an IntSlider steps through
the loop's first N iterations (the visited cells keep their colour, a Label counts the
cache lines they touched), and one IntText per axis picks a cell to read its index,
byte address and cache line. The picture is SVG written cell by cell
(``layout_svg.py``), shown in an HTML widget: hovering a cell shows its index, byte
address, cache line and iteration; :func:`layout_figure` draws the same for scripts.

The returned :class:`LayoutView` displays as the widget in a live kernel; its mime
bundle also carries the SVG picture, a PNG of it and a text line, so nbval and exported
notebooks, which cannot run widgets, still show it. JupyterLab shows the PNG where the
widget's model is gone (a notebook saved without widget state) and in an untrusted
notebook, where it shows neither SVG nor widgets.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(8, 8))
    >>> view = layout(x, loop="ndrange")
    >>> view.slider.value = 24
    >>> view.count.value
    '24 iterations touched 2 cache lines'
"""

from __future__ import annotations

import ipywidgets as w

import ti_notebook as ti
from ti_notebook.errors import TiValueError

from .layout_data import LayoutData, layout_data
from .layout_draw import draw
from .layout_svg import layout_svg
from .render import static_bundle

FIRST_ITERATIONS = 16  # a 64-byte line of f32: whether the loop walks along memory shows


def _first_iterations(data: LayoutData) -> int | None:
    """Where the slider starts (None without a loop)."""
    return None if data.visit is None else min(len(data.visit), FIRST_ITERATIONS)


def layout_figure(
    *fields: ti.Field,
    loop=None,
    selected: int = 0,
    window=None,
    corner=None,
    iterations: int | None = None,
):
    """The layout picture of ``fields[selected]`` as a matplotlib Figure (for scripts).

    ``loop`` is ``"struct-for"``, ``"ndrange"`` or a kernel: a kernel means the field's
    struct-for order when one of its struct-fors loops over the field, else row-major
    ndrange order. ``iterations`` highlights the loop's first N cells (default: 16).
    The other fields name their bytes in the strip when they share the tree (AoS).
    ``window`` and ``corner`` choose the part of a large field drawn (default 32x32
    from the origin); the title states the full shape.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
        >>> _ = ti.root.dense(ti.i, 16).place(a, b)  # AoS
        >>> fig = layout_figure(a, b, loop="struct-for", iterations=4)
        >>> fig.texts[0].get_text()
        'a: f32[16]; colour: memory order\\nstruct-for: 4 iterations touched 1 cache line'
    """
    if not fields:
        raise TiValueError("layout_figure needs a field", hint="layout_figure(x)")
    field = fields[selected]
    data = layout_data(field, loop, together=fields, window=window, corner=corner)
    if iterations is None:
        iterations = _first_iterations(data)
    return draw(data, iterations)


class LayoutView:
    """The widget :func:`layout` returns; ``.widget`` is its ipywidgets box.

    Attributes a test or a notebook may drive: ``fields`` (ToggleButtons, or None for one
    field), ``slider`` and ``count`` (None without a loop), ``cell`` (IntText boxes) and
    ``info`` (the picked cell), ``picture`` (an HTML widget holding the SVG), ``data``
    (the current field's :class:`LayoutData`).
    """

    def __init__(self, fields, loop=None, window=None, corner=None) -> None:
        self._fields = list(fields)
        self._data = [
            layout_data(f, loop, together=self._fields, window=window, corner=corner)
            for f in self._fields
        ]
        self.selected = 0
        data = self.data
        self.fields = None
        if len(self._fields) > 1:
            names = [f"{d.name} ({n})" for n, d in enumerate(self._data)]
            self.fields = w.ToggleButtons(options=[(name, n) for n, name in enumerate(names)])
            self.fields.observe(self._choose, names="value")
        self.slider = self.count = None
        if data.visit is not None:
            self.slider = w.IntSlider(
                value=_first_iterations(data),
                min=0,
                max=len(data.visit),
                description="iterations",
                continuous_update=False,
            )
            self.count = w.Label()
            self.slider.observe(self._redraw, names="value")
        self.cell = [
            w.BoundedIntText(
                value=c,
                min=o,
                max=o + n - 1,
                description="ijk"[a],
                style={"description_width": "1.2em"},
                layout={"width": "8em"},
            )
            for a, (c, n, o) in enumerate(zip(data.corner, data.shape, _origin(data), strict=True))
        ]
        for box in self.cell:
            box.observe(self._pick, names="value")
        self.info = w.Label()
        self.picture = w.HTML()
        controls = [c for c in (self.fields, self.slider, self.count) if c is not None]
        self.widget = w.VBox([*controls, self.picture, w.HBox([*self.cell, self.info])])
        self._redraw()
        self._pick()

    @property
    def data(self) -> LayoutData:
        return self._data[self.selected]

    @property
    def iterations(self) -> int | None:
        return None if self.slider is None else self.slider.value

    def figure(self):
        """The current picture as a matplotlib Figure."""
        return draw(self.data, self.iterations)

    def highlighted(self) -> int:
        """How many drawn cells the slider marks as visited (0 without a loop)."""
        if self.data.visit_rank is None:
            return 0
        rank = self.data.visit_rank
        return int(((rank >= 0) & (rank < self.iterations)).sum())

    def _choose(self, change) -> None:
        self.selected = change["new"]
        data = self.data
        if self.slider is not None:
            self.slider.max = len(data.visit)
        for box, c, n, o in zip(self.cell, data.corner, data.shape, _origin(data), strict=False):
            box.min, box.max = min(box.min, o), max(box.max, o + n - 1)  # never min > max
            box.min, box.max, box.value = o, o + n - 1, c
        self._redraw()
        self._pick()

    def _redraw(self, _change=None) -> None:
        if self.count is not None:
            n = self.slider.value
            lines = self.data.lines_touched(n)
            self.count.value = f"{n} iterations touched {lines} cache line{'s' * (lines != 1)}"
        self.picture.value = self.svg()

    def _pick(self, _change=None) -> None:
        found = self.data.cell([box.value for box in self.cell])
        text = (
            f"{self.data.name}{list(found['index'])}: byte {found['address']}, "
            f"cache line {found['cache_line']}"
        )
        if found.get("visited_at") is not None:
            text += f", iteration {found['visited_at']}"
        self.info.value = text

    def svg(self) -> str:
        """The current picture as deterministic SVG text, a ``<rect>`` per cell."""
        return layout_svg(self.data, self.iterations)

    def _repr_mimebundle_(self, **kwargs) -> dict:
        # the widget view for live kernels, the SVG for nbval and exported notebooks
        text = f"<ti_notebook.widgets.layout: {self.data.describe()}>"
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), text, self.svg())


def _origin(data) -> tuple[int, ...]:
    """The field's first index per axis (``offset=``): the index boxes' lower ends."""
    return data.origin or (0,) * len(data.shape)


def layout(*fields: ti.Field, loop=None, window=None, corner=None) -> LayoutView:
    """A widget showing where every element of ``fields`` lives (see the module doc).

    ``loop``: ``"struct-for"``, ``"ndrange"`` or a kernel (its struct-for order over a
    field it loops over, else row-major ndrange order). ``window``/``corner``: the part
    of a large field drawn (default 32x32 from the origin).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> big = ti.field(ti.f32, shape=(1000, 1000))
        >>> view = layout(big, corner=(500, 0))
        >>> view.data.describe()
        'big: f32[1000, 1000], showing [500:532, 0:32]'
        >>> view.info.value
        'big[500, 0]: byte 2000000, cache line 31250'
    """
    if not fields:
        raise TiValueError("layout needs a field", hint="layout(x) or layout(a, b)")
    return LayoutView(
        tuple(f for field in fields for f in scalar_fields(field)), loop, window, corner
    )


def scalar_fields(field) -> list:
    """The scalar fields that make up ``field``: a vector or matrix field's components
    (``v[0]``, ``v[1]``, ...), a struct field's members (nested structs included), or the
    field itself. Each is drawn on its own; given together, the byte strip shows how
    they interleave (AoS) or not.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> v = ti.Vector.field(2, ti.f32, shape=4, name="v")
        >>> [f.name for f in scalar_fields(v)]
        ['v[0]', 'v[1]']
    """
    components = getattr(field, "components", None)
    if isinstance(components, list):
        return list(components)
    members = getattr(field, "members", None)
    if callable(members):
        return [leaf for member in members().values() for leaf in scalar_fields(member)]
    return [field]
