"""Widget messages handled while a cell runs: a Stop button that works mid-sweep.

A Jupyter kernel handles one message at a time, so a click on a widget waits until the
running cell ends. :func:`widget_events` lets a long loop started from a cell handle
the widgets' messages between its steps, through ``jupyter-ui-poll`` (which holds back
any cell queued meanwhile and runs it afterwards, in order). Outside a Jupyter kernel
(a script, a test, nbconvert without widgets) its ``poll`` does nothing.

    >>> with widget_events() as poll:
    ...     poll()  # outside a kernel: nothing to handle
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

__all__ = ["widget_events"]

MESSAGES_PER_POLL = 10  # a click is one or two messages; a slider drag a few more


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets needs IPython
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


@contextlib.contextmanager
def widget_events() -> Iterator[Callable[[], None]]:
    """A ``poll()`` that handles the widget messages waiting, while the block runs."""
    if not _in_kernel():
        yield lambda: None
        return
    try:
        from jupyter_ui_poll import ui_events
    except ImportError:  # not installed: clicks wait for the cell, as without it
        yield lambda: None
        return
    with ui_events() as poll:
        yield lambda: poll(MESSAGES_PER_POLL)
