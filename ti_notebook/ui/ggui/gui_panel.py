"""``window.get_gui()``: GGUI's immediate-mode widgets, in the notebook.

Taichi's loop declares its widgets every frame and keeps what they return::

    with gui.sub_window("Settings", 0.05, 0.05, 0.3, 0.2) as w:
        gravity = w.slider_float("gravity", gravity, -10, 10)
        paused = w.checkbox("paused", paused)
        if w.button("reset"):
            reset()

Headless (no live view) every call returns the value passed in (``button``: False),
so a loop runs as if nobody touched the widgets. With a live view each widget is an
ipywidget, made on its first declaration and shown under the view (in the view's
``widget`` box); a call returns the widget's current value, which the notebook updates
while the loop runs (the view lets widget messages in at every frame). When the
program itself changes a value (it passes back something other than what it was
given last), the widget moves to it. A button returns True once per click.

>>> gui = Gui(None)
>>> with gui.sub_window("s", 0, 0, 0.3, 0.2) as w:
...     w.slider_float("g", 9.8, 0, 20), w.button("go"), w.checkbox("on", True)
(9.8, False, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ti_notebook.ui.widget_panel import WidgetPanel

__all__ = ["Gui"]

_TEXT = "\0text"  # the key of a text's label: (group, _TEXT, its place in the group)


class Gui:
    """The widget panel of one window (see the module); ``sink`` is its frame sink or a
    function that returns the window's current one."""

    def __init__(self, sink: Any) -> None:
        # the sink, or a function giving the window's current sink (a window that draws
        # in a later cell gets a new live view there; the panel moves with it)
        self._panel = WidgetPanel(sink if callable(sink) else (lambda: sink))
        self._current = "Default"
        self._returned: dict[tuple[str, str], Any] = {}
        self._clicks: dict[tuple[str, str], int] = {}
        # texts are immediate: the k-th text of a group this frame is its k-th label
        self._texts: dict[str, int] = {}

    @property
    def _widgets(self) -> dict:
        return self._panel.widgets

    @property
    def box(self) -> Any:
        """The ipywidgets box of the panel's sections (None before the first widget)."""
        return self._panel.box

    @property
    def live(self) -> bool:
        """Whether the widgets are shown (a live view), or only return their inputs."""
        return self._panel.live

    @contextmanager
    def sub_window(
        self, name: str, x: float, y: float, width: float, height: float
    ) -> Iterator[Gui]:
        """A titled group of widgets (position and size are fractions of the window)."""
        self.begin(name, x, y, width, height)
        try:
            yield self
        finally:
            self.end()

    def begin(self, name: str, x: float, y: float, width: float, height: float) -> None:
        """Start the group ``name`` (see :meth:`sub_window`)."""
        self._current = name

    def end(self) -> None:
        """End the current group."""
        self._current = "Default"

    def end_frame(self) -> None:
        """Called by the window after each frame: labels of texts this frame did not
        declare are hidden (other widgets persist, keeping the user's values)."""
        for key, widget in self._widgets.items():
            if key[1] == _TEXT:
                shown = key[2] < self._texts.get(key[0], 0)
                widget.layout.display = None if shown else "none"
        self._texts.clear()

    # widgets -----------------------------------------------------------------------

    def _live_value(self, label: str, value: Any, make) -> Any:
        key = (self._current, label)
        known = key in self._widgets
        widget = self._panel.widget(key, make, self._current)
        if known and key in self._returned and value != self._returned[key]:
            widget.value = value  # the program changed it
        result = widget.value
        self._returned[key] = result
        return result

    def text(self, text: str, color: Any = None) -> None:
        """A line of text, shown for this frame (its colour is ignored)."""
        if not self.live:
            return
        import ipywidgets

        k = self._texts.get(self._current, 0)
        self._texts[self._current] = k + 1
        label = self._panel.widget(
            (self._current, _TEXT, k), lambda: ipywidgets.Label(value=text), self._current
        )
        if label.value != text:
            label.value = text

    def checkbox(self, text: str, old_value: bool) -> bool:
        """A checkbox: its state."""
        if not self.live:
            return bool(old_value)
        import ipywidgets

        return bool(
            self._live_value(
                text,
                bool(old_value),
                lambda: ipywidgets.Checkbox(bool(old_value), description=text),
            )
        )

    def slider_int(self, text: str, old_value: int, minimum: int, maximum: int) -> int:
        """An integer slider from ``minimum`` to ``maximum``: its value."""
        if not self.live:
            return int(old_value)
        import ipywidgets

        def make():
            return ipywidgets.IntSlider(int(old_value), min=minimum, max=maximum, description=text)

        return int(self._live_value(text, int(old_value), make))

    def slider_float(self, text: str, old_value: float, minimum: float, maximum: float) -> float:
        """A float slider from ``minimum`` to ``maximum``: its value."""
        if not self.live:
            return float(old_value)
        import ipywidgets

        def make():
            step = (maximum - minimum) / 1000 or 0.001
            return ipywidgets.FloatSlider(
                float(old_value), min=minimum, max=maximum, step=step, description=text
            )

        return float(self._live_value(text, float(old_value), make))

    def color_edit_3(self, text: str, old_value: Any) -> tuple[float, float, float]:
        """A colour picker: ``(r, g, b)`` floats in ``[0, 1]``."""
        rgb = tuple(float(v) for v in old_value)[:3]
        if not self.live:
            return rgb
        import ipywidgets

        def to_hex(c):
            return "#" + "".join(f"{round(max(0.0, min(1.0, v)) * 255):02x}" for v in c)

        def from_hex(h):
            return tuple(int(h[i : i + 2], 16) / 255 for i in (1, 3, 5))

        picked = self._live_value(
            text, to_hex(rgb), lambda: ipywidgets.ColorPicker(value=to_hex(rgb), description=text)
        )
        return from_hex(picked) if picked.startswith("#") and len(picked) == 7 else rgb

    def button(self, text: str) -> bool:
        """A button: True once after each click."""
        if not self.live:
            return False
        import ipywidgets

        key = (self._current, text)

        def make() -> Any:
            button = ipywidgets.Button(description=text)
            self._clicks[key] = 0
            button.on_click(lambda _b: self._clicks.__setitem__(key, self._clicks[key] + 1))
            return button

        self._panel.widget(key, make, self._current)
        if self._clicks[key]:
            self._clicks[key] -= 1
            return True
        return False
