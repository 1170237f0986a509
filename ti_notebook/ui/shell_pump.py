"""Widget messages handled during a running cell under ipykernel 7.

ipykernel 7 receives shell messages on a thread of its own and hands the main shell's
to the main thread through an in-process socket, read by the main thread's event loop;
while a cell's loop runs that event loop waits, and ``Kernel.do_one_iteration`` (what
``jupyter-ui-poll`` calls) no longer exists. :class:`ShellPump` reads that socket
itself: widget (comm) messages are handled at once, as the kernel handles them beside a
running cell; every other request (a cell queued meanwhile) is held and handed back to
the kernel, in order, when the cell ends.

>>> ShellPump.usable(None)
False
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["ShellPump"]

_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


class ShellPump:
    """Reads the main shell's waiting messages from inside a running cell."""

    def __init__(self, kernel: Any) -> None:
        from ipykernel.eventloops import get_shell_stream

        self._kernel = kernel
        self._stream = get_shell_stream(kernel)
        self._held: list[list[Any]] = []

    @staticmethod
    def usable(kernel: Any) -> bool:
        """Whether ``kernel`` is an ipykernel 7 (or later) kernel this pump can serve.

        >>> ShellPump.usable(object())
        False
        """
        return (
            kernel is not None
            and not hasattr(kernel, "do_one_iteration")
            and hasattr(kernel, "dispatch_shell")
            and hasattr(kernel, "shell_main")
        )

    def poll(self, limit: int) -> None:
        """Handle up to ``limit`` waiting messages (the widget ones; others are held)."""
        import zmq

        socket = self._stream.socket
        for _ in range(limit):
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            if self._msg_type(frames) in _COMM_TYPES:
                self._dispatch(frames)
            else:
                self._held.append(frames)

    def _msg_type(self, frames: list[Any]) -> str:
        session = self._kernel.session
        try:
            _idents, rest = session.feed_identities(frames, copy=False)
            return session.deserialize(rest, content=False, copy=False)["header"]["msg_type"]
        except Exception:  # not a message we can read: the kernel logs it later
            return ""

    def _dispatch(self, frames: list[Any]) -> None:
        kernel = self._kernel
        # handling a message makes it the kernel's current request; the cell's output
        # must keep going to the cell (as ipykernel does for comms beside an async cell)
        parent = kernel.get_parent("shell")
        ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
        step = kernel.dispatch_shell(frames, subshell_id=None, concurrent=True)
        try:
            step.send(None)  # comm handlers are synchronous: it finishes in one step
        except StopIteration:
            pass
        else:  # it awaits the event loop, which waits for this cell: give it up
            step.close()
        finally:
            # The frontend's widget model sends one state update at a time and buffers
            # the next until the kernel reports "idle" for the one in flight (its
            # throttle); a concurrent dispatch reports nothing, so without this idle a
            # view's second update (a frame acknowledgement, a slider's value) would
            # wait for the cell to end. The cell is still running: report it busy again.
            kernel._publish_status("idle", "shell")  # parent: the message just handled
            kernel.set_parent(ident, parent, channel="shell")
            kernel._publish_status("busy", "shell")

    def release(self) -> None:
        """Hand the held requests back to the kernel, in order, and let it read on.

        The main thread's event loop runs them once the cell is done; with no running
        loop (outside a cell) they go back the same way on its next turn.
        """
        held, self._held = self._held, []
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            try:
                loop = self._kernel.io_loop.asyncio_loop
            except AttributeError:
                return
        for frames in held:
            # each waits for the running cell's lock, first come first served
            loop.call_soon(asyncio.ensure_future, self._kernel.shell_main(None, frames))
        # reading the socket here consumed its edge-triggered wake-up: whatever arrived
        # since must be read without one
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        if not self._stream.closed():
            self._stream.flush()
