"""``ti.GUI``: Taichi 1.7's 2-D GUI, drawn by :mod:`ti_notebook.ui.raster` into the notebook.

The loop Taichi's examples write runs unchanged::

    gui = ti.GUI("mpm88", res=512, background_color=0x112F41)
    while gui.running:
        gui.circles(x.to_numpy(), radius=1.5, color=0x068587)
        gui.show()

In a notebook whose frontend shows widgets (JupyterLab 4, Notebook 7) the frames go
to a live view in the cell (:mod:`ti_notebook.ui.live_view`) that updates while the loop
runs; its mouse and keys come back through ``get_event``/``is_pressed``/
``get_cursor_pos``, and its stop button or Esc ends ``gui.running`` (a loop that never
reads ``running`` gets a one-line :class:`~ti_notebook.errors.GUIStopped` at its next
``show()``); ``gui.slider``/``label``/``button`` are ipywidgets under the view
(:mod:`ti_notebook.ui.gui_widgets`). Otherwise
(``show_gui=False``, ``TI_GUI_LIVE=0``, nbval, ``jupyter nbconvert --execute``, plain
Python, or ``TI_GUI_MAX_FRAMES`` set) the GUI is headless: the frame budget of
:func:`ti_notebook.ui.output.frame_budget` ends ``gui.running``, one more ``show()``
raises :class:`~ti_notebook.errors.GUIFrameLimit`, and in a notebook the cell's output
keeps the last frame as a PNG, plus an animated GIF with ``record=True``.

>>> gui = GUI("demo", res=(8, 8), show_gui=False)
>>> gui.circle((0.5, 0.5), color=0xFF0000, radius=3)
>>> gui.get_image()[4, 4].tolist()
[1.0, 0.0, 0.0, 1.0]
>>> gui.show()
>>> gui.frame
1
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np

from ti_notebook.ui import frames as _keys
from ti_notebook.ui import output
from ti_notebook.ui.events import EventFilter, EventQueue
from ti_notebook.ui.frames import Event
from ti_notebook.ui.gui_fields import FieldDrawing
from ti_notebook.ui.gui_widgets import GuiWidgets, WidgetValue
from ti_notebook.ui.images import as_array, image_planes
from ti_notebook.ui.presenter import PresentedFrames, Presenter
from ti_notebook.ui.raster import Canvas
from ti_notebook.ui.text import text_mask


def _vector(values: Any, n: int, dtype: type, name: str) -> np.ndarray:
    """A per-primitive array of ``n`` values from one number or an array of ``n``."""
    arr = np.asarray(as_array(values), dtype=dtype)
    if arr.ndim == 0:
        return np.full(n, arr, dtype)
    if arr.shape != (n,):
        raise ValueError(f"GUI: {name} must be one value or {n} values, got shape {arr.shape}")
    return arr


def _points(values: Any, name: str) -> np.ndarray:
    pts = np.asarray(as_array(values), dtype=np.float64)
    if pts.ndim == 3 and pts.shape[2] == 1:
        pts = pts[:, :, 0]
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"GUI: {name} must be n positions of shape (n, 2), got {pts.shape}")
    return pts


# FieldDrawing: point_field, arrow_field, vector_field, contour, cook_image
class GUI(PresentedFrames, FieldDrawing):
    """Taichi's ``ti.GUI`` (see the module): ``GUI(name, res, background_color, show_gui, ...)``.

    ``record=True`` (or :meth:`record`) keeps the frames for :meth:`animation`.

    >>> GUI.ESCAPE, GUI.LMB, GUI.PRESS is GUI.PRESS
    ('Escape', 'LMB', True)
    """

    Event, EventFilter = Event, EventFilter
    SHIFT, ALT, CTRL, ESCAPE = _keys.SHIFT, _keys.ALT, _keys.CTRL, _keys.ESCAPE
    RETURN, TAB, BACKSPACE, SPACE = _keys.RETURN, _keys.TAB, _keys.BACKSPACE, _keys.SPACE
    UP, DOWN, LEFT, RIGHT = _keys.UP, _keys.DOWN, _keys.LEFT, _keys.RIGHT
    CAPSLOCK, LMB, MMB, RMB = _keys.CAPSLOCK, _keys.LMB, _keys.MMB, _keys.RMB
    EXIT, WHEEL, MOVE = _keys.EXIT, _keys.WHEEL, _keys.MOVE
    MOTION, PRESS, RELEASE = _keys.MOTION, _keys.PRESS, _keys.RELEASE

    def __init__(
        self,
        name: str = "Taichi",
        res: int | tuple[int, int] = 512,
        background_color: int = 0x0,
        show_gui: bool = True,
        fullscreen: bool = False,
        fast_gui: bool = False,
        record: bool = False,
    ) -> None:
        self.name = name
        if isinstance(res, numbers.Number):
            res = (res, res)
        self.res = (int(res[0]), int(res[1]))
        self.fast_gui = fast_gui
        self.background_color = background_color
        self.canvas = Canvas(self.res[0], self.res[1], background_color)
        self.event: Event | None = None
        self._input = EventQueue()
        self._running = True
        self._events_read = False
        self._widgets = GuiWidgets(lambda: self._presenter.sink, self._press)
        # sink, frame budget, recorder and cell outputs, shared with ti.ui.Window
        self._presenter = Presenter(name, self.res, show_gui, record, owner="ti.GUI")

    # lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> GUI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop: the view closes and, in a notebook, the last frame stays in the output."""
        self._running = False
        self._presenter.close()

    @property
    def running(self) -> bool:
        """False once closed, stopped (Esc, the view's stop control) or out of frames."""
        self._presenter.running_read = True
        self._poll()
        if self._input.stop_requested:
            self._running = False
        if self._presenter.out_of_frames():
            self._running = False
        return self._running

    @running.setter
    def running(self, value: bool) -> None:
        self._running = bool(value)
        if value:
            self._input.stop_requested = False

    @property
    def fps_limit(self) -> float | None:
        """Most frames per second a live view shows (headless runs never wait)."""
        return self._presenter.fps_limit

    @fps_limit.setter
    def fps_limit(self, value: float | None) -> None:
        self._presenter.fps_limit = None if not value else float(value)

    def show(self, file: str | os.PathLike | None = None) -> None:
        """End the frame: send it to the view (or save it to ``file``), then clear."""
        presenter = self._presenter
        presenter.check_budget()
        presenter.check_stopped(self._input.stop_requested and not self._stop_waiting())
        self._widgets.sync()  # a view opened in a later cell gets the widgets too
        rgb = self.canvas.to_rgb8() if presenter.needs_rgb(file) else None
        presenter.present(rgb, file)
        self._poll()
        self.clear()

    def record(self, limit: int = 200) -> None:
        """Keep the frames shown from now on (at most ``limit``, evenly spaced)."""
        self._presenter.record(limit)

    def animation(self, fps: float = 24.0) -> output.Animation:
        """The recorded frames as an inline animation (a GIF); empty without ``record``."""
        return self._presenter.animation(fps)

    # images ------------------------------------------------------------------------

    def clear(self, color: int | None = None) -> None:
        """Fill the frame with ``color`` (default: the background colour)."""
        self.canvas.clear(self.background_color if color is None else color)

    def set_image(self, img: Any) -> None:
        """Show an image indexed ``[x, y]`` (y up): field, vector field, ndarray or NumPy."""
        self.canvas.planes[...] = image_planes(img, self.res)

    def get_image(self) -> np.ndarray:
        """The frame as Taichi returns it: float32 ``(width, height, 4)``, ``[x, y]``, y up."""
        w, h = self.res
        img = np.ones((w, h, 4), np.float32)
        img[:, :, :3] = np.transpose(self.canvas.planes, (2, 1, 0))
        return img

    # input -------------------------------------------------------------------------

    def _poll(self) -> None:
        self._input.feed(self._sink.events())

    def has_key_event(self) -> bool:
        """Whether an event is waiting."""
        self._poll()
        return bool(self._input.queue)

    def _stop_waiting(self) -> bool:
        # a loop that reads events may end on the stop's own event (Esc, WMClose): while
        # that event waits for it, the stop is not yet the loop's to miss
        return self._events_read and any(
            e.type is _keys.PRESS and e.key in (_keys.ESCAPE, _keys.EXIT) for e in self._input.queue
        )

    def get_events(self, *e_filter: object):
        """Yield the waiting events that match ``e_filter`` (types, keys, pairs)."""
        self._events_read = True
        self._poll()
        return self._input.take(*e_filter)

    def get_event(self, *e_filter: object) -> bool:
        """Whether a matching event came; it is left in ``gui.event``."""
        for e in self.get_events(*e_filter):
            self.event = e
            return True
        return False

    def is_pressed(self, *keys: str) -> bool:
        """Whether any of ``keys`` is held down (as far as the events read so far say)."""
        self._poll()
        return self._input.is_pressed(*keys)

    def get_cursor_pos(self) -> tuple[float, float]:
        """The pointer's last position in ``[0, 1]²``, y up."""
        self._poll()
        return self._input.cursor

    # widgets: handles whose ``value`` the loop reads -------------------------------

    WidgetValue = WidgetValue

    def _press(self, key: str) -> None:
        self._input.feed([Event(_keys.PRESS, key, self._input.cursor)])

    def slider(self, text: str, minimum: float, maximum: float, step: float = 1) -> WidgetValue:
        """A slider from ``minimum`` to ``maximum``; starts at ``minimum``, as Taichi's."""
        return WidgetValue(self, self._widgets.add("slider", text, minimum, minimum, maximum, step))

    def label(self, text: str) -> WidgetValue:
        """A label showing ``.value`` (starts at 0)."""
        return WidgetValue(self, self._widgets.add("label", text, 0))

    def button(self, text: str, event_name: str | None = None) -> str:
        """A button; a click arrives as a PRESS event whose key is the returned name."""
        event_name = event_name or f"WidgetButton_{text}"
        self._widgets.add("button", text, None, event_name)
        return event_name

    # drawing -----------------------------------------------------------------------

    def circle(self, pos: Any, color: int = 0xFFFFFF, radius: float = 1) -> None:
        """One filled circle at ``pos``, ``radius`` in pixels."""
        self.circles(np.asarray([pos[0], pos[1]])[None], radius=radius, color=color)

    def circles(self, pos, radius=1, color=0xFFFFFF, palette=None, palette_indices=None) -> None:
        """Filled circles at ``pos (n, 2)``; colours per circle or from ``palette``."""
        pts = _points(pos, "pos")
        n = len(pts)
        if palette is not None:
            if palette_indices is None:
                raise ValueError("GUI.circles: palette must be used together with palette_indices")
            idx = _vector(palette_indices, n, np.int64, "palette_indices")
            pal = np.asarray(palette, np.int64)
            if n and (idx.min() < 0 or idx.max() >= len(pal)):
                raise ValueError(f"GUI.circles: palette_indices must be in [0, {len(pal)})")
            colors = pal[idx]
        else:
            colors = _vector(color, n, np.int64, "color")
        self.canvas.circles(pts, _vector(radius, n, np.float32, "radius"), colors)

    def lines(self, begin, end, radius=1, color=0xFFFFFF) -> None:
        """Segments from ``begin (n, 2)`` to ``end (n, 2)``, ``radius`` in pixels."""
        a, b = _points(begin, "begin"), _points(end, "end")
        n = len(a)
        self.canvas.lines(
            a, b, _vector(radius, n, np.float64, "radius"), _vector(color, n, np.int64, "color")
        )

    def line(self, begin, end, radius=1, color=0xFFFFFF) -> None:
        """One segment."""
        self.lines(np.asarray([begin[:2]]), np.asarray([end[:2]]), radius, color)

    def triangles(self, a, b, c, color=0xFFFFFF) -> None:
        """Filled triangles with corners ``a``, ``b``, ``c`` (each ``(n, 2)``)."""
        pa, pb, pc = _points(a, "a"), _points(b, "b"), _points(c, "c")
        self.canvas.triangles(pa, pb, pc, _vector(color, len(pa), np.int64, "color"))

    def triangle(self, a, b, c, color=0xFFFFFF) -> None:
        """One filled triangle."""
        self.triangles(*(np.asarray([p[:2]]) for p in (a, b, c)), color=color)

    def rect(self, topleft, bottomright, radius=1, color=0xFFFFFF) -> None:
        """A rectangle's outline, sides ``radius`` pixels thick."""
        (x0, y0), (x1, y1) = topleft[:2], bottomright[:2]
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        self.lines(corners, np.roll(corners, -1, axis=0), radius, color)

    @staticmethod
    def _arrow_to_lines(orig, major, tip_scale=0.2, angle=45):
        angle = math.radians(180 - angle)
        c, s = math.cos(angle), math.sin(angle)
        mx, my = major[:, 0], major[:, 1]
        minor1 = np.stack([mx * c - my * s, mx * s + my * c], 1)
        minor2 = np.stack([mx * c + my * s, -mx * s + my * c], 1)
        end = orig + major
        return [(orig, end), (end, end + minor1 * tip_scale), (end, end + minor2 * tip_scale)]

    def arrows(self, orig, direction, radius=1, color=0xFFFFFF, **kwargs: Any) -> None:
        """Arrows from ``orig (n, 2)`` along ``direction (n, 2)``, with two tip strokes."""
        o, d = _points(orig, "orig"), _points(direction, "direction")
        for begin, end in self._arrow_to_lines(o, d, **kwargs):
            self.lines(begin, end, radius, color)

    def arrow(self, orig, direction, radius=1, color=0xFFFFFF, **kwargs: Any) -> None:
        """One arrow."""
        self.arrows(np.asarray([orig[:2]]), np.asarray([direction[:2]]), radius, color, **kwargs)

    def text(self, content: str, pos, font_size: float = 15, color: int = 0xFFFFFF) -> None:
        """Text whose box's top-left corner is at ``pos``."""
        w, h = self.res
        self.canvas.blend_mask(text_mask(content, pos, font_size, w, h), color)
