"""Widget messages handled while a cell's loop runs (the live GUI view's clicks, keys
and frame acknowledgements).

A Jupyter kernel handles one message at a time, so while a cell runs ``while
gui.running:`` a click on the view waits for the cell to end. :class:`KernelPoll`
lets the loop handle the waiting messages between frames, and holds back any cell
queued meanwhile to run it afterwards, in order: under ipykernel 7 through
:class:`~ti_notebook.ui.shell_pump.ShellPump`, under older kernels through
``jupyter-ui-poll``. Its polling context lives for one cell: it is entered on the first
:meth:`KernelPoll.poll` of a cell and left when that cell ends, however it ends (an
interrupt included). Outside a Jupyter kernel (or in an older one without
``jupyter-ui-poll``) ``poll()`` does nothing.

>>> poller = KernelPoll()
>>> poller.poll()  # outside a kernel: nothing to handle
>>> poller.close()
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

from ti_notebook.ui.shell_pump import ShellPump

__all__ = ["KernelPoll", "in_kernel"]

MESSAGES_PER_POLL = 10  # a click is one or two messages; a drag or a frame ack a few more


def _shell() -> Any:
    """IPython's shell when IPython runs this process (never imported just to ask)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (widgets can reach a frontend).

    >>> in_kernel()
    False
    """
    shell = _shell()
    return shell is not None and getattr(shell, "kernel", None) is not None


class KernelPoll:
    """A ``poll()`` that handles the widget messages waiting, cell after cell.

    ``after_cell`` runs when each cell that polled ends (an interrupted one too).
    """

    # jupyter-ui-poll allows one polling context at a time: every KernelPoll of the
    # process (two GUIs in one cell) shares it; (context, poll) while a cell polls
    _active: tuple[Callable[[], None], Callable[[int], Any]] | None = None  # (leave, poll)

    def __init__(self, after_cell: Callable[[], None] | None = None) -> None:
        self._after_cell = after_cell
        self._shell = _shell() if in_kernel() else None
        self._usable = self._shell is not None
        if self._usable and not ShellPump.usable(self._shell.kernel):
            try:
                import jupyter_ui_poll  # noqa: F401
            except ImportError:  # clicks wait for the cell, as without it
                self._usable = False
        if self._shell is not None:
            self._shell.events.register("post_run_cell", self._cell_ended)

    def poll(self) -> None:
        """Handle the widget messages waiting (a few at most)."""
        if not self._usable:
            return
        if KernelPoll._active is None:
            KernelPoll._active = self._enter()
        KernelPoll._active[1](MESSAGES_PER_POLL)

    def _enter(self) -> tuple[Callable[[], None], Callable[[int], Any]]:
        kernel = self._shell.kernel
        if ShellPump.usable(kernel):  # ipykernel 7: jupyter-ui-poll would handle nothing
            pump = ShellPump(kernel)
            return pump.release, pump.poll
        from jupyter_ui_poll import ui_events

        context = ui_events()
        return (lambda: context.__exit__(None, None, None)), context.__enter__()

    @staticmethod
    def _leave() -> None:
        active, KernelPoll._active = KernelPoll._active, None
        if active is not None:
            active[0]()

    def _cell_ended(self, *_args: Any) -> None:
        # jupyter-ui-poll restores the kernel's handlers itself at the cell's end; its
        # helper thread is ours to stop (the pump hands back the requests it held), and
        # the next cell polls through a new context
        self._leave()
        if self._after_cell is not None:
            self._after_cell()

    def close(self) -> None:
        """Stop polling and forget the cell hook (another view re-enters on its next poll)."""
        self._leave()
        if self._shell is not None:
            with contextlib.suppress(ValueError):
                self._shell.events.unregister("post_run_cell", self._cell_ended)
            self._shell = None
        self._usable = False
