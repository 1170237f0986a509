"""A GUI's widgets as ipywidgets under its live view, shared by ``ti.GUI`` and GGUI.

A :class:`WidgetPanel` keeps one ipywidget per key (made once, by the caller's
``make``), grouped in sections (GGUI's sub-windows; ``ti.GUI``'s widgets go in one
section without a title), in a box that it places in the live view's own box
(``LiveView.widget``). The panel asks its window for the current sink each time: a
GUI that draws in a later cell gets a new live view there, and the same widgets (with
the values the user gave them) move into it. Headless (a sink without a ``widget``
box) the panel is not live and its owner makes no widgets.

>>> from ti_notebook.ui.frames import HeadlessSink
>>> WidgetPanel(HeadlessSink).live
False
"""

from __future__ import annotations

import html
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["WidgetPanel", "format_value"]


def format_value(value: Any) -> str:
    """How a label shows a value: numbers with at most 6 significant digits.

    >>> format_value(0.1 + 0.2), format_value(3), format_value("fast")
    ('0.3', '3', 'fast')
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.6g}"
    return str(value)


class WidgetPanel:
    """The ipywidgets of one window, placed in its current live view (see the module).

    ``sink_of`` returns the window's current frame sink.

    >>> import ipywidgets
    >>> class View:  # what a live view offers the panel: its ipywidgets box
    ...     widget = ipywidgets.VBox([])
    >>> view = View()
    >>> panel = WidgetPanel(lambda: view)
    >>> box = panel.widget("go", lambda: ipywidgets.Button(description="go"), "Settings")
    >>> panel.box in view.widget.children, panel.widget("go", None, "Settings") is box
    (True, True)
    """

    def __init__(self, sink_of: Callable[[], Any]) -> None:
        self._sink_of = sink_of
        self.widgets: dict[Hashable, Any] = {}
        self._sections: dict[str | None, Any] = {}
        self.box: Any = None  # an HBox of sections, made with the first widget

    @property
    def view_box(self) -> Any:
        """The current live view's ipywidgets box, or None (headless)."""
        return getattr(self._sink_of(), "widget", None)

    @property
    def live(self) -> bool:
        """Whether widgets are shown (a live view), or the window runs headless."""
        return self.view_box is not None

    def attach(self) -> None:
        """Put the panel in the current view's box (a new view in a later cell too)."""
        view = self.view_box
        if view is not None and self.box is not None and self.box not in view.children:
            view.children += (self.box,)

    def widget(self, key: Hashable, make: Callable[[], Any], section: str | None = None) -> Any:
        """The widget of ``key``, made by ``make()`` into ``section`` the first time."""
        found = self.widgets.get(key)
        if found is None:
            found = self.widgets[key] = make()
            box = self._section(section)
            box.children += (found,)
        self.attach()
        return found

    def _section(self, name: str | None) -> Any:
        import ipywidgets

        box = self._sections.get(name)
        if box is None:
            title = [] if name is None else [ipywidgets.HTML(f"<b>{html.escape(name)}</b>")]
            box = self._sections[name] = ipywidgets.VBox(title)
            if self.box is None:
                self.box = ipywidgets.HBox([])
            self.box.children += (box,)
        return box
