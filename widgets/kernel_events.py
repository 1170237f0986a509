"""Widget messages handled while a cell runs: a Stop button that works mid-sweep.

A Jupyter kernel handles one message at a time, so a click on a widget waits until the
running cell ends. :func:`widget_events` lets a long loop started from a cell handle
the widgets' messages between its steps, through the kernel poller ``ti.GUI``'s live
view uses too (``ti_notebook.ui.kernel_poll``: it holds back any cell queued meanwhile
and runs it afterwards, in order). Outside a Jupyter kernel (a script, a test,
nbconvert without widgets) its ``poll`` does nothing.

    >>> with widget_events() as poll:
    ...     poll()  # outside a kernel: nothing to handle
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from ti_notebook.ui.kernel_poll import KernelPoll

__all__ = ["widget_events"]


@contextlib.contextmanager
def widget_events() -> Iterator[Callable[[], None]]:
    """A ``poll()`` that handles the widget messages waiting, while the block runs."""
    poller = KernelPoll()
    try:
        yield poller.poll
    finally:
        poller.close()
