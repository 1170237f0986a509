"""``ti.ui.Window``: Taichi's GGUI window in the notebook, drawn by ti_notebook kernels.

The loop Taichi's GGUI examples write runs unchanged::

    window = ti.ui.Window("mpm", (512, 512))
    canvas, scene = window.get_canvas(), window.get_scene()
    while window.running:
        scene.particles(x, radius=0.01, color=(0.2, 0.6, 1.0))
        canvas.scene(scene)
        window.show()

Windows of one size draw into the same fields (one compile for all of them), so draw
and show one window's frame before starting another's. Frames are presented as
``ti.GUI``'s (:class:`ti_notebook.ui.presenter.Presenter`): in a notebook whose
frontend shows widgets a live view shows them and sends the mouse and keys back;
headless (nbval, nbconvert, ``TI_GUI_LIVE=0``, ``show_window=False``) the frame budget
(``TI_GUI_MAX_FRAMES``, 60 in a notebook) ends ``window.running`` and one more
``show()`` raises :class:`~ti_notebook.errors.GUIFrameLimit`; either way the last frame
stays in the cell as a PNG (plus a GIF with ``record=True``).

>>> w = Window("demo", (8, 4), show_window=False)
>>> w.get_canvas().set_background_color((1, 0, 0))
>>> w.get_image_buffer_as_numpy().shape
(8, 4, 4)
>>> w.show(); w.frame
1
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from ti_notebook.ui import frames, output
from ti_notebook.ui.frames import Event
from ti_notebook.ui.ggui.buffers import FrameBuffer
from ti_notebook.ui.ggui.canvas import Canvas
from ti_notebook.ui.ggui.gui_panel import Gui
from ti_notebook.ui.ggui.scene import Scene
from ti_notebook.ui.presenter import PresentedFrames, Presenter

__all__ = ["PRESS", "RELEASE", "Window", "WindowEvent"]

PRESS = "Press"
RELEASE = "Release"
_TYPES = {frames.PRESS: PRESS, frames.RELEASE: RELEASE}


def _check_tag(tag: object) -> None:
    if tag is not None and tag not in (PRESS, RELEASE):
        raise ValueError(f"ti.ui: an event tag is ti.ui.PRESS, ti.ui.RELEASE or None, got {tag!r}")


@dataclasses.dataclass(frozen=True)
class WindowEvent:
    """A key or mouse button event as GGUI reports it: ``type`` is ``ti.ui.PRESS`` or
    ``ti.ui.RELEASE``, ``key`` a key name (``"a"``, ``ti.ui.LMB``, ``ti.ui.ESCAPE``...).

    >>> WindowEvent(PRESS, "a").type == PRESS
    True
    """

    type: str
    key: str
    modifier: tuple[str, ...] = ()


class Window(PresentedFrames):
    """Taichi's ``ti.ui.Window(name, res, vsync, show_window, fps_limit, pos)``; see the
    module. ``record=True`` keeps the frames for :meth:`animation`."""

    def __init__(
        self,
        name: str,
        res: tuple[int, int],
        vsync: bool = False,
        show_window: bool = True,
        fps_limit: int = 1000,
        pos: tuple[int, int] = (100, 100),
        record: bool = False,
    ) -> None:
        self.name = name
        self.res = (int(res[0]), int(res[1]))
        self._presenter = Presenter(name, self.res, show_window, record, owner="ti.ui.Window")
        self._presenter.fps_limit = float(fps_limit) if fps_limit else None
        self._fb = FrameBuffer.get(*self.res)
        self._background = (0.0, 0.0, 0.0)
        self._painted = False  # the frame was cleared to the background this frame
        self._running = True
        self._stopped = False  # by the view's stop button or Esc
        self._events_read = False
        self._destroyed = False
        self._queue: list[WindowEvent] = []
        self._pressed: set[str] = set()
        self._cursor = (0.0, 0.0)
        self.event: WindowEvent | None = None
        self._canvas = Canvas(self)
        self._scene = Scene()
        self._gui: Gui | None = None

    # frame -------------------------------------------------------------------------

    def _begin(self) -> FrameBuffer:
        """The frame buffer, cleared to the background on the frame's first use."""
        if self._destroyed:
            raise RuntimeError(f"ti.ui.Window {self.name!r} was destroyed")
        if not self._painted:
            self._painted = True
            # looked up each frame: after a new ti.init the old session's fields are gone
            self._fb = FrameBuffer.get(*self.res)
            self._fb.fill(self._background)
        return self._fb

    @property
    def running(self) -> bool:
        """False once destroyed, stopped (the view's stop control or Esc) or out of frames."""
        self._presenter.running_read = True
        self._poll()
        if self._presenter.out_of_frames() or self._destroyed:
            self._running = False
        return self._running

    @running.setter
    def running(self, value: bool) -> None:
        self._running = bool(value)
        if value:
            self._stopped = False

    def show(self) -> None:
        """End the frame: present it (see the module), then start the next one."""
        presenter = self._presenter
        presenter.check_budget()
        # a loop that reads events may end on the Esc press still waiting for it
        waiting = self._events_read and any(
            e.type == PRESS and e.key == frames.ESCAPE for e in self._queue
        )
        presenter.check_stopped(self._stopped and not waiting)
        rgb = self._begin().to_rgb8() if presenter.needs_rgb() else None
        presenter.present(rgb)
        self._poll()
        self._painted = False
        self._fb.staging.reset()
        if self._gui is not None:
            self._gui.end_frame()

    def get_canvas(self) -> Canvas:
        """The 2-D drawing surface (see :class:`~ti_notebook.ui.ggui.canvas.Canvas`)."""
        return self._canvas

    def get_scene(self) -> Scene:
        """The window's 3-D scene (see :class:`~ti_notebook.ui.ggui.scene.Scene`)."""
        return self._scene

    def get_gui(self) -> Gui:
        """Widgets: sliders, checkboxes, buttons, colour pickers, text."""
        if self._gui is None:
            self._gui = Gui(lambda: self._presenter.sink)
        return self._gui

    @property
    def GUI(self) -> Gui:  # noqa: N802 - Taichi's deprecated spelling
        """Same as :meth:`get_gui`."""
        return self.get_gui()

    def get_window_shape(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return self.res

    def get_image_buffer_as_numpy(self) -> np.ndarray:
        """The frame as Taichi returns it: float32 ``(width, height, 4)``, ``[x, y]``
        with y up, 8-bit values scaled to ``[0, 1]``, alpha 1."""
        rgb = self._begin().to_rgb8()
        w, h = self.res
        img = np.ones((w, h, 4), np.float32)
        img[:, :, :3] = np.transpose(rgb[::-1], (1, 0, 2)).astype(np.float32) / 255.0
        return img

    def save_image(self, filename: str | os.PathLike) -> None:
        """Write the current frame to ``filename`` (PNG, JPEG... by its suffix)."""
        output.save_image(self._begin().to_rgb8(), filename)

    def destroy(self) -> None:
        """Close the window: ``running`` turns False and, in a notebook, the last frame
        stays in the output."""
        if not self._destroyed:
            self._destroyed = True
            self._running = False
            self._presenter.close()

    def record(self, limit: int = 200) -> None:
        """Keep the frames shown from now on (at most ``limit``, evenly spaced)."""
        self._presenter.record(limit)

    def animation(self, fps: float = 24.0) -> output.Animation:
        """The recorded frames as an inline animation (a GIF)."""
        return self._presenter.animation(fps)

    # input -------------------------------------------------------------------------

    def _poll(self) -> None:
        for e in self._sink.events():
            self._feed(e)

    def _feed(self, e: Event) -> None:
        self._cursor = (float(e.pos[0]), float(e.pos[1]))
        if e.type is frames.MOTION:
            return
        if e.type is frames.PRESS and e.key in (frames.EXIT, frames.ESCAPE):
            self._stopped, self._running = True, False
        if e.key == frames.EXIT:
            return
        if e.type is frames.PRESS:
            self._pressed.add(e.key)
        else:
            self._pressed.discard(e.key)
        self._queue.append(WindowEvent(_TYPES[e.type], e.key, tuple(e.modifier)))

    def get_events(self, tag: str | None = None) -> list[WindowEvent]:
        """Take the waiting events of type ``tag`` (``ti.ui.PRESS``/``RELEASE``; all if
        None); the others stay queued, as in Taichi."""
        _check_tag(tag)
        self._events_read = True
        self._poll()
        taken = [e for e in self._queue if tag is None or e.type == tag]
        self._queue = [e for e in self._queue if not (tag is None or e.type == tag)]
        return taken

    def get_event(self, tag: str | None = None) -> bool:
        """Whether an event of type ``tag`` waits; the first is taken and left in
        ``window.event`` (the others stay queued)."""
        _check_tag(tag)
        self._events_read = True
        self._poll()
        for k, e in enumerate(self._queue):
            if tag is None or e.type == tag:
                self.event = self._queue.pop(k)
                return True
        return False

    def is_pressed(self, *keys: str) -> bool:
        """Whether any of ``keys`` is held down now."""
        self._poll()
        for key in keys:
            if key in self._pressed or key + "_L" in self._pressed or key + "_R" in self._pressed:
                return True
        return False

    def get_cursor_pos(self) -> tuple[float, float]:
        """The pointer's position in ``[0, 1]²``, y up."""
        self._poll()
        return self._cursor

    def _inject(self, events: list[Any]) -> None:
        """Feed events as a view would (tests, scripted demos)."""
        for e in events:
            self._feed(e)

    def __repr__(self) -> str:
        return f"<ti.ui.Window {self.name!r} {self.res[0]}x{self.res[1]} frame {self.frame}>"
