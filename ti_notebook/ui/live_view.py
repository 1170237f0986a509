"""The live view of a ``ti.GUI`` in a notebook: frames to the browser, input back.

Transport: ``jupyter-rfb``'s remote frame buffer widget. It is an ``anywidget``, so its
JavaScript travels with the Python package and standard JupyterLab 4 and Notebook 7
show it with no extension to build (``ipyevents`` and ``ipycanvas`` need their own
frontend extensions installed); it sends compressed frames as binary buffers (JPEG
while animating, a lossless PNG once the picture rests), reports pointer, wheel and key
events, and the browser acknowledges each frame it has put on screen. A view sends a
frame only while fewer than ``max_in_flight`` are unacknowledged and drops the others,
so a browser that lags sees fewer frames, never an ever longer queue.

While the cell's ``while gui.running:`` loop runs the kernel is busy, and widget
messages (clicks, keys, frame acknowledgements) wait unless the loop lets the kernel
handle them: every :meth:`LiveView.push` and :meth:`LiveView.events` does so through
``jupyter-ui-poll``, which also holds back any cell queued meanwhile.

A stop button beside the view and the Esc key end the loop: the button reports
``Event(PRESS, "WMClose")`` (Taichi's window-close key), Esc a press of ``"Escape"``,
and both set :attr:`LiveView.stopped`. Kernel → Interrupt raises ``KeyboardInterrupt``
in the loop; the view keeps its last frame. :meth:`LiveView.close` replaces the live
view by a static PNG of the last frame, which also stays in the saved notebook.

Outside a Jupyter kernel, without ``jupyter-rfb``, or when no frontend shows the view
in time (``jupyter nbconvert --execute``, nbval), the constructor raises
:class:`LiveViewUnavailable`, and the GUI shows its frames another way. The wait is 5 s
for the first view of a kernel (a browser loads the widget's code then, slowly on a
busy machine), 10 s once a frontend has shown a view, and none once a view went unseen
in a kernel that never showed one (so a notebook run headless waits once, not per GUI);
``TI_GUI_FRONTEND_TIMEOUT`` sets it.

>>> view = LiveView("demo", 64, 32, show=False)  # a widget, not displayed
>>> view.push(np.zeros((32, 64, 3), np.uint8))
>>> view.translate({"type": "pointer_down", "x": 16, "y": 8, "button": 1, "modifiers": []})
Event(type=<EventType.PRESS: 'Press'>, key='LMB', pos=(0.25, 0.75), delta=(0, 0), modifier=())
"""

from __future__ import annotations

import io
import os
import time
from typing import Any

import numpy as np

from ti_notebook.ui.frames import (
    ESCAPE,
    EXIT,
    LMB,
    MMB,
    MODIFIERS,
    MOTION,
    MOVE,
    PRESS,
    RELEASE,
    RMB,
    WHEEL,
    Event,
)
from ti_notebook.ui.kernel_poll import KernelPoll, in_kernel

__all__ = ["LiveView", "LiveViewUnavailable", "translate_key"]

FIRST_FRONTEND_TIMEOUT_S = 5.0  # the first view: the browser loads jupyter-rfb's code
FRONTEND_TIMEOUT_S = 10.0  # a frontend that showed a view before is there, maybe busy
# whether a frontend has shown a view in this kernel (True), none ever did and one
# timed out (False), or no view has asked yet (None)
_frontend_seen: bool | None = None
# jupyter-rfb's own default: a noisy 512x512 frame is 137 kB instead of 215 kB at 90
JPEG_QUALITY = 80
# browser button numbers (jupyter-rfb: 1 left, 2 right, 3 middle) -> Taichi's names
_BUTTONS = {1: LMB, 2: RMB, 3: MMB}
# browser KeyboardEvent.key -> Taichi's (X11 keysym) names; letters are lowercased
_KEYS = {
    "Enter": "Return",
    "Backspace": "BackSpace",
    "CapsLock": "Caps_Lock",
    "ArrowUp": "Up",
    "ArrowDown": "Down",
    "ArrowLeft": "Left",
    "ArrowRight": "Right",
    "PageUp": "Prior",
    "PageDown": "Next",
    "Esc": ESCAPE,
}
# a wheel notch is 100 CSS pixels in Chromium and Firefox; Taichi reports 120 a notch
# (the X11/Win32 convention), positive when the wheel turns away from the user
_WHEEL_SCALE = -1.2


class LiveViewUnavailable(RuntimeError):
    """No live view can be shown here; the message says why.

    >>> str(LiveViewUnavailable("no Jupyter kernel"))
    'no Jupyter kernel'
    """


def translate_key(key: str) -> str:
    """A browser key name as Taichi's GUI names it.

    >>> translate_key("ArrowUp"), translate_key("A"), translate_key(" "), translate_key("Shift")
    ('Up', 'a', ' ', 'Shift')
    """
    if len(key) == 1:
        return key.lower()
    return _KEYS.get(key, key)


def _rfb_class() -> type:
    """jupyter-rfb's widget with our callbacks (imported here: it is optional)."""
    try:
        from jupyter_rfb import RemoteFrameBuffer
    except ImportError as e:
        raise LiveViewUnavailable(
            f"the live GUI view needs jupyter-rfb ({e}); pip install jupyter-rfb"
        ) from None

    class _FrameBuffer(RemoteFrameBuffer):
        _event_compatibility = 2  # jupyter-rfb's current event dicts only
        owner: LiveView | None = None

        def handle_event(self, event: dict) -> None:
            if self.owner is not None:
                self.owner._receive(event)

        def get_frame(self) -> None:
            return None  # frames are pushed (LiveView.push), never pulled

    return _FrameBuffer


class LiveView:
    """A frame sink that shows a GUI's frames live in the notebook cell.

    ``show=False`` builds the widget without displaying it and without asking for a
    frontend, so a caller may place :attr:`widget` in its own layout (and tests may
    drive it without a browser).

    >>> view = LiveView("demo", 8, 8, show=False, max_in_flight=1)
    >>> frame = np.zeros((8, 8, 3), np.uint8)
    >>> view.push(frame); view.push(frame)  # the second waits for an acknowledgement
    >>> view.frames_sent, view.frames_dropped
    (1, 1)
    """

    def __init__(
        self,
        name: str,
        width: int,
        height: int,
        *,
        show: bool = True,
        # an acknowledgement takes ~2-3 frames at 30 frames/s to come back (the browser
        # sends one state update at a time, and the loop reads it at its next poll):
        # 2 in flight showed about half the frames drawn, 4 about 3/4, 6 queued frames
        # in the browser (more lag) without showing more
        max_in_flight: int = 4,
        quality: int = JPEG_QUALITY,
        frontend_timeout_s: float | None = None,
    ) -> None:
        if show and not in_kernel():
            raise LiveViewUnavailable("no Jupyter kernel: the live GUI view needs a notebook")
        import ipywidgets

        self.name, self.width, self.height = name, int(width), int(height)
        self.max_in_flight = max(1, int(max_in_flight))
        self.stopped = False
        self.frames_sent = self.frames_dropped = 0
        self.cursor = (0.0, 0.0)
        self._queue: list[Event] = []
        self._last: np.ndarray | None = None  # the latest pushed frame
        self._last_dropped = False  # ... and it never went out
        self._size = (float(width), float(height))  # the view's CSS size, events' units
        self._seen = False  # the frontend rendered the view (a resize or show event)
        self._closed = False
        self._poll = KernelPoll(self._after_cell) if show else None

        rfb = self._make_rfb(quality)
        stop = ipywidgets.Button(
            description="stop", icon="stop", tooltip="end gui.running (Esc does too)"
        )
        stop.layout.width = "auto"
        stop.on_click(lambda _button: self._stop(EXIT))
        title = ipywidgets.Label(name)
        self.stop_button = stop
        self.widget = ipywidgets.VBox([ipywidgets.HBox([title, stop]), rfb, rfb._output_context])
        self.widget.add_class("ti-gui-live")
        self._handle = None
        if show:
            self._show(frontend_timeout_s)

    def _make_rfb(self, quality: int) -> Any:
        cls = _rfb_class()  # first: it says what is missing
        import jupyter_rfb.widget as rfb_module

        # jupyter-rfb displays its error-output widget on construction; it goes in our
        # box instead, so the whole view is one display that close() can replace
        shown = getattr(rfb_module, "display", None)
        rfb_module.display = lambda *args, **kwargs: None
        try:
            rfb = cls(
                css_width=f"{self.width}px",
                css_height=f"{self.height}px",
                resizable=False,
                quality=min(int(quality), 99),  # 100 would mean PNG for every frame
                max_buffered_frames=self.max_in_flight,
            )
        finally:
            if shown is not None:
                rfb_module.display = shown
        rfb.owner = self
        self.rfb = rfb
        return rfb

    def _show(self, timeout_s: float | None) -> None:
        from IPython.display import display

        global _frontend_seen
        if timeout_s is None:
            timeout_s = _default_timeout_s()
        if timeout_s <= 0:
            self._discard()
            raise LiveViewUnavailable(
                "no frontend has shown a live view in this kernel (nbconvert/nbval?)"
            )
        self._handle = display(self.widget, display_id=True)
        deadline = time.monotonic() + timeout_s
        while not self._seen and time.monotonic() < deadline:
            self._poll.poll()
            time.sleep(0.01)
        if self._seen:
            _frontend_seen = True
        else:
            _frontend_seen = bool(_frontend_seen)
            self._handle.update({"text/plain": ""}, raw=True)  # no dead widget left
            self._discard()
            raise LiveViewUnavailable(
                f"no frontend showed the live view in {timeout_s:g} s "
                "(nbconvert/nbval, or widgets not supported here); "
                "TI_GUI_FRONTEND_TIMEOUT sets the wait"
            )

    def _discard(self) -> None:
        self._poll.close()
        self.rfb.close()
        self.widget.close()

    # ---- FrameSink

    def push(self, rgb: np.ndarray) -> None:
        """Show a ``(height, width, 3)`` uint8 frame, row 0 at the top; dropped while
        ``max_in_flight`` frames wait for the browser's acknowledgement."""
        if self._closed:
            return
        if self._poll is not None:
            self._poll.poll()
        self._last = rgb
        self._last_dropped = self.in_flight >= self.max_in_flight
        if self._last_dropped:
            self.frames_dropped += 1
            return
        self.rfb.send_frame(np.ascontiguousarray(rgb))
        self.frames_sent += 1

    def events(self) -> list[Event]:
        """The input events that arrived since the last call, oldest first."""
        if self._poll is not None and not self._closed:
            self._poll.poll()
        queued, self._queue = self._queue, []
        return queued

    def close(self) -> None:
        """End the live view; the last frame stays as a static PNG in the cell."""
        if self._closed:
            return
        self._closed = True
        if self._poll is not None:
            self._poll.close()
        if self._handle is not None and self._last is not None:
            from IPython.display import Image

            self._handle.update(Image(data=_png(self._last)))
        self.rfb.owner = None
        self.rfb.close()
        self.widget.close()

    # ---- state

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ended the view (it then ignores frames)."""
        return self._closed

    @property
    def in_flight(self) -> int:
        """Frames sent that the browser has not acknowledged yet."""
        acked = self.rfb._frame_feedback.get("index", 0)
        return self.rfb._rfb_frame_index - acked

    def translate(self, event: dict) -> Event | None:
        """A jupyter-rfb event dict as an :class:`Event` (``None``: not an input event).

        Positions become ``[0, 1]`` fractions of the view with y up, as Taichi's.

        >>> v = LiveView("t", 100, 50, show=False)
        >>> v.translate({"type": "key_down", "key": "ArrowLeft", "modifiers": ["Shift"]})
        Event(type=<EventType.PRESS: 'Press'>, key='Left', pos=(0.0, 0.0), delta=(0, 0), modifier=('Shift',))
        """  # noqa: E501
        kind = event.get("type") or event.get("event_type")
        modifier = tuple(m for m in event.get("modifiers", ()) if m in MODIFIERS)
        if "x" in event and "y" in event:
            w, h = self._size
            x = min(max(event["x"] / w, 0.0), 1.0)
            y = min(max(1.0 - event["y"] / h, 0.0), 1.0)
            self.cursor = (x, y)
        if kind in ("pointer_down", "pointer_up"):
            key = _BUTTONS.get(event.get("button", 0))
            if key is None:
                return None
            etype = PRESS if kind == "pointer_down" else RELEASE
            return Event(etype, key, self.cursor, modifier=modifier)
        if kind == "pointer_move":
            return Event(MOTION, MOVE, self.cursor, modifier=modifier)
        if kind == "wheel":
            delta = (
                round(event.get("dx", 0) * _WHEEL_SCALE),
                round(event.get("dy", 0) * _WHEEL_SCALE),
            )
            return Event(MOTION, WHEEL, self.cursor, delta=delta, modifier=modifier)
        if kind in ("key_down", "key_up"):
            etype = PRESS if kind == "key_down" else RELEASE
            return Event(etype, translate_key(event.get("key", "")), self.cursor, modifier=modifier)
        return None

    # ---- from the browser

    def _receive(self, event: dict) -> None:
        kind = event.get("type") or event.get("event_type")
        if kind in ("resize", "show"):
            self._seen = True
            if kind == "resize" and event.get("width", 0) > 0 and event.get("height", 0) > 0:
                self._size = (float(event["width"]), float(event["height"]))
            return
        translated = self.translate(event)
        if translated is None:
            return
        if translated.type is PRESS and translated.key == ESCAPE:
            self.stopped = True
        self._queue.append(translated)

    def _stop(self, key: str) -> None:
        self.stopped = True
        self._queue.append(Event(PRESS, key, self.cursor))

    def _after_cell(self) -> None:
        """The cell ended (or was interrupted): the newest frame goes out losslessly,
        so the view rests on it even where the last frames were dropped."""
        if self._closed or self._last is None or not self._last_dropped:
            return
        self._last_dropped = False
        self.rfb._rfb_send_frame(np.ascontiguousarray(self._last), True)


def _default_timeout_s() -> float:
    """How long a new view waits for a frontend to show it (see the module)."""
    if "TI_GUI_FRONTEND_TIMEOUT" in os.environ:
        return float(os.environ["TI_GUI_FRONTEND_TIMEOUT"])
    if _frontend_seen is None:
        return FIRST_FRONTEND_TIMEOUT_S
    return FRONTEND_TIMEOUT_S if _frontend_seen else 0.0


def _png(rgb: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()
