"""``ti.GUI``'s widgets: ``gui.slider``, ``gui.label`` and ``gui.button``.

Taichi's semantics: a widget is declared once, before the loop; ``slider`` and
``label`` return a handle whose ``.value`` the loop reads and may set (a slider starts
at its minimum, a label at 0; values are floats, as Taichi keeps them), and a click on
a button arrives as a PRESS event whose key is the button's event name, read through
``gui.get_event``/``gui.get_events``.

With a live view each widget is an ipywidget (a slider, a label reading
``"text: value"``, a button) in a column under the view, placed there by the panel
GGUI's ``window.get_gui()`` uses too (:class:`~ti_notebook.ui.widget_panel.WidgetPanel`);
the slider's value is what the user set in the page, let in at every frame. Headless
the handles only keep their values.

>>> widgets = GuiWidgets(lambda: None, lambda key: None)
>>> g = widgets.add("slider", "gravity", 2, 2, 10, 1)
>>> widgets.value(g), widgets.set_value(g, 5), widgets.value(g)
(2.0, None, 5.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ti_notebook.ui.widget_panel import WidgetPanel, format_value

__all__ = ["GuiWidgets", "WidgetValue"]


class WidgetValue:
    """A slider's or label's value, read and set through ``.value`` (``ti.GUI.WidgetValue``).

    >>> from ti_notebook.ui.gui import GUI
    >>> speed = GUI("demo", res=8, show_gui=False).slider("speed", 1, 4)
    >>> speed.value
    1.0
    """

    def __init__(self, gui: Any, wid: int) -> None:
        self.gui, self.wid = gui, wid

    @property
    def value(self) -> Any:
        """The widget's value: a slider's as the user left it, a label's as last set."""
        return self.gui._widgets.value(self.wid)

    @value.setter
    def value(self, value: Any) -> None:
        self.gui._widgets.set_value(self.wid, value)


class GuiWidgets:
    """The widgets of one ``ti.GUI`` (see the module).

    ``sink_of`` returns the GUI's current frame sink; ``press(key)`` queues a button's
    click as the GUI's PRESS event.
    """

    def __init__(self, sink_of: Callable[[], Any], press: Callable[[str], None]) -> None:
        self.panel = WidgetPanel(sink_of)
        self._press = press
        # per widget id: (kind, text, extra) and its value
        self._specs: list[tuple[str, str, tuple]] = []
        self._values: list[Any] = []

    def add(self, kind: str, text: str, value: Any, *extra: Any) -> int:
        """Declare a ``"slider"`` (extra: min, max, step), ``"label"`` or ``"button"``
        (extra: its event name); its id."""
        if kind == "slider":
            value = float(value)
        self._specs.append((kind, text, extra))
        self._values.append(value)
        self.sync()
        return len(self._specs) - 1

    def value(self, wid: int) -> Any:
        """The value of widget ``wid`` (a live slider's as the user set it)."""
        widget = self.panel.widgets.get(wid)
        if widget is not None and self._specs[wid][0] == "slider":
            self._values[wid] = float(widget.value)
        return self._values[wid]

    def set_value(self, wid: int, value: Any) -> None:
        """Set widget ``wid``'s value; a live widget shows it."""
        kind, text, _ = self._specs[wid]
        if kind == "slider":
            value = float(value)
        self._values[wid] = value
        widget = self.panel.widgets.get(wid)
        if widget is None:
            return
        if kind == "slider":
            widget.value = value
            self._values[wid] = float(widget.value)  # ipywidgets clamps to the range
        elif kind == "label":
            widget.value = f"{text}: {format_value(value)}"

    def sync(self) -> None:
        """With a live view: every widget made and the panel in the view (a later
        cell's new view too). Called at each declaration and frame."""
        if not self._specs or not self.panel.live:
            return
        for wid in range(len(self._specs)):
            if wid not in self.panel.widgets:
                self.panel.widget(wid, lambda wid=wid: self._make(wid))
        self.panel.attach()

    def _make(self, wid: int) -> Any:
        import ipywidgets

        kind, text, extra = self._specs[wid]
        value = self._values[wid]
        if kind == "slider":
            low, high, step = extra
            return ipywidgets.FloatSlider(
                value=value, min=low, max=high, step=step, description=text
            )
        if kind == "label":
            return ipywidgets.Label(value=f"{text}: {format_value(value)}")
        button = ipywidgets.Button(description=text)
        button.on_click(lambda _button: self._press(extra[0]))
        return button
