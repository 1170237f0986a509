"""A sweep's progress: a progress bar and a Stop button, and the same as text.

The bar and the button are standard ipywidgets. A sweep run by a cell also shows them
in the cell's output as it starts (the tuner itself appears when the cell ends), with a
text line as the output's plain-text form, rewritten in place (an IPython display with
an id), so an executed notebook exported without its widget state still says how far
the sweep went; outside IPython there is no output.

    >>> progress = SweepProgress()
    >>> progress.start(10)
    >>> progress.update(4, 10, "block_dim=16")
    >>> progress.bar.value, progress.bar.max, progress.stop_button.disabled
    (4, 10, False)
    >>> progress.stop_button.click(); progress.should_stop()
    True
    >>> progress.finish("sweep stopped: 4 of 10 samples"); progress.label.value
    'sweep stopped: 4 of 10 samples'
"""

from __future__ import annotations

import threading
import time

import ipywidgets as widgets

from ti_notebook.ui.kernel_poll import in_kernel

__all__ = ["SweepProgress"]


def _bundle(widget, text: str) -> dict:
    """The widget's view, with ``text`` as its plain-text form."""
    return {**(widget._repr_mimebundle_() or {}), "text/plain": text}


def _ipython_display(widget, text: str):
    """A display handle showing ``widget`` (``text`` where it cannot be shown) in an
    IPython kernel's output, else None."""
    if not in_kernel():
        return None
    from IPython.display import display

    return display(_bundle(widget, text), raw=True, display_id=True)


class SweepProgress:
    """The bar, the Stop button and the text line of a sweep (see the module)."""

    def __init__(self) -> None:
        self.bar = widgets.IntProgress(value=0, min=0, max=1, description="sweep")
        self.stop_button = widgets.Button(description="stop", icon="stop", disabled=True)
        self.label = widgets.Label()
        self.widget = widgets.HBox([self.bar, self.stop_button, self.label])
        self._stop = threading.Event()
        self._text = None
        self._shown = -1
        self._started = 0.0
        self.stop_button.on_click(lambda _button: self._stop.set())

    def should_stop(self) -> bool:
        """Whether Stop was pressed since the sweep started."""
        return self._stop.is_set()

    def start(self, total: int, *, text: bool = False) -> None:
        """A new sweep of ``total`` steps; ``text``: also as a line of output."""
        self._stop.clear()
        self._started = time.monotonic()
        self.bar.max, self.bar.value, self.bar.bar_style = max(1, total), 0, ""
        self.stop_button.disabled = False
        self.label.value = f"0/{total}"
        self._shown = -1
        self._text = _ipython_display(self.widget, f"sweep: 0/{total}") if text else None

    def update(self, done: int, total: int, label: str) -> None:
        """``done`` of ``total`` steps, the last one measuring ``label``."""
        self.bar.max, self.bar.value = max(1, total), done
        line = f"{done}/{total} · {label} · {time.monotonic() - self._started:.1f} s"
        self.label.value = line
        tenth = done * 10 // max(1, total)
        if self._text is not None and tenth != self._shown:  # a tenth at a time: few messages
            self._shown = tenth
            self._text.update(_bundle(self.widget, f"sweep: {line}"), raw=True)

    def finish(self, summary: str) -> None:
        """The sweep ended: ``summary`` replaces the running count."""
        self.stop_button.disabled = True
        self.bar.bar_style = "warning" if self._stop.is_set() else "success"
        self.label.value = summary
        if self._text is not None:
            self._text.update(_bundle(self.widget, summary), raw=True)
            self._text = None
