"""A headless ``ti.GUI``: a fixed number of frames, no events, every drawing recorded.

Both runs of an example (Taichi and ti_notebook) get this class as ``ti.GUI``, so the
loop ends the same way and the last frame's drawing can be compared. The stub follows
Taichi 1.7's ``taichi/ui/gui.py`` signatures, so positional and keyword calls record
under the same argument names:

- ``running`` turns False after ``frames`` calls of ``show()`` (per window);
  ``gui.frame`` counts them;
- an example that keeps drawing anyway (``while True:``, ``for frame in range(20000)``)
  is stopped by :class:`ExampleStopped` on its next ``show()``; loops that wait for a
  key (``while not gui.get_event(ti.GUI.ESCAPE)``) get one ESCAPE press (or window
  close) once the frames are drawn;
- ``slider``/``label``/``button`` give Taichi's defaults (the slider's minimum, 0, the
  event name); the cursor sits in the middle, no key is ever pressed;
- ``set_image/circles/circle/lines/line/triangles/rect/text/arrows/point_field/...``
  record their arguments as arrays; :func:`recorded_arrays` returns the last shown
  frame's, named ``gui<window>.<method>[<call>].<argument>``;
- a window the backend opens itself (Taichi's ``ti.tools.imshow``) runs its frames
  but is neither recorded nor timed: it is not what the example draws.

>>> session = reset(frames=2)
>>> gui = StubGUI("demo", res=(4, 4))
>>> while gui.running:
...     gui.circles([[0.5, 0.5]], radius=3)
...     gui.show()
>>> gui.frame
2
>>> sorted(recorded_arrays())  # doctest: +NORMALIZE_WHITESPACE
['gui0.circles.calls', 'gui0.circles[0].color', 'gui0.circles[0].pos',
 'gui0.circles[0].radius']
"""

from __future__ import annotations

import numbers
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# The stub's own clock: bound here, so an example's time shims never touch it.
_perf_counter = time.perf_counter
MAX_CALLS_RECORDED = 2000  # per method and frame; the count itself is always kept
BACKEND_PACKAGES = ("taichi", "ti_notebook")
EXAMPLES_PACKAGE = "taichi.examples"


class ExampleStopped(BaseException):  # noqa: N818 - a stop signal, like SystemExit
    """Raised by ``show()`` when an example draws past its frames; ends the run cleanly.

    A ``BaseException``, so an example's ``except Exception`` does not swallow it.
    """


class StubGap(AttributeError):
    """The example used a part of ``ti.GUI`` the stub lacks: a gap in the harness."""


@dataclass
class Session:
    """What all windows of this process share: frame budget, show times, records."""

    frames: int = 5
    windows: int = 0
    show_times: list[float] = field(default_factory=list)
    started: float = field(default_factory=_perf_counter)
    last_frames: dict[int, dict[str, np.ndarray]] = field(default_factory=dict)
    # the example's file, and the locals of its functions on the stack at the last show:
    # fields made inside ``main()`` are reachable only from there
    example_file: str = ""
    local_frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


SESSION = Session()


def reset(frames: int = 5, example_file: str = "") -> Session:
    """Starts a new session: ``frames`` shows per window, nothing recorded yet."""
    global SESSION
    SESSION = Session(frames=frames, example_file=example_file)
    return SESSION


def _capture_locals() -> None:
    """Keeps the locals of the example's functions now on the stack (innermost first)."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_filename == SESSION.example_file and code.co_name != "<module>":
            frames.append((code.co_name, dict(frame.f_locals)))
        frame = frame.f_back
    SESSION.local_frames = frames


def recorded_arrays() -> dict[str, np.ndarray]:
    """Every window's last shown frame: name -> array."""
    merged: dict[str, np.ndarray] = {}
    for window in sorted(SESSION.last_frames):
        merged.update(SESSION.last_frames[window])
    return merged


def _as_array(value: Any) -> np.ndarray | None:
    """``value`` as a NumPy array (fields through ``to_numpy``), or None when it is not one.

    Errors of a backend's ``to_numpy`` propagate: the real GUI would read the field too.
    """
    if value is None or (callable(value) and not hasattr(value, "to_numpy")):
        return None
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
        if isinstance(value, dict):  # a struct field: one array per member is not an image
            return None
    if isinstance(value, str):
        return np.array(value)
    try:
        array = np.array(value)
    except (ValueError, TypeError):
        return None
    if array.dtype == object:
        try:
            array = np.array([_as_array(item) for item in value])
        except (ValueError, TypeError):
            return None
        if array.dtype == object:
            return None
    return array


class StubGUI:
    """Taichi's ``ti.GUI`` without a window; see the module docstring."""

    SHIFT, ALT, CTRL = "Shift", "Alt", "Control"
    ESCAPE, RETURN, TAB, BACKSPACE, SPACE = "Escape", "Return", "Tab", "BackSpace", " "
    UP, DOWN, LEFT, RIGHT, CAPSLOCK = "Up", "Down", "Left", "Right", "Caps_Lock"
    LMB, MMB, RMB, EXIT, WHEEL, MOVE = "LMB", "MMB", "RMB", "WMClose", "Wheel", "Motion"
    MOTION, PRESS, RELEASE = "MotionEvent", "PressEvent", "ReleaseEvent"

    class Event:
        """One input event (type, key, pos, modifier, delta), as Taichi's."""

        def __init__(self, type=None, key=None):  # noqa: A002 - Taichi's attribute name
            self.type, self.key = type, key
            self.pos, self.modifier, self.delta = (0.5, 0.5), [], (0, 0)

    class WidgetValue:
        """A slider's or label's value, settable like Taichi's."""

        def __init__(self, value: Any):
            self.value = value

    def __init__(
        self,
        name: str = "Taichi",
        res: Any = 512,
        background_color: int = 0x0,
        show_gui: bool = True,
        fullscreen: bool = False,
        fast_gui: bool = False,
    ):
        self.name = name
        self.res = (res, res) if isinstance(res, numbers.Number) else tuple(res)
        self.background_color = background_color
        self.fast_gui = fast_gui
        self.img = np.zeros((*self.res, 4), np.float32)
        self.frame = 0
        self.event = None
        self.key_pressed: set[str] = set()
        self._closed = False
        self._exit_delivered = False
        # a window the backend opens for itself (Taichi's ti.tools.imshow) is not the
        # example's drawing: it runs its frames but records and times nothing
        self._internal = _opened_by_backend(sys._getframe(1))
        self._index = SESSION.windows
        SESSION.windows += 0 if self._internal else 1
        self._current: dict[str, np.ndarray] = {}
        self._calls: dict[str, int] = {}
        self._fps_limit = None

    def __getattr__(self, name: str) -> Any:
        raise StubGap(
            f"compat GUI stub: GUI.{name} is not stubbed (a gap in the harness, not in the backend)"
        )

    # -- the loop ----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True until ``frames`` shows, ``running = False`` or ``close()``."""
        return not self._closed and self.frame < SESSION.frames

    @running.setter
    def running(self, value: bool) -> None:
        self._closed = not value

    def show(self, file: str | None = None) -> None:
        """Ends a frame: its records become the last frame's; stops a run past its frames."""
        if SESSION.example_file:
            _capture_locals()
        if self.frame >= SESSION.frames:
            raise ExampleStopped(f"drew past its {SESSION.frames} frames")
        if not self._internal:
            SESSION.show_times.append(_perf_counter())
        for method, count in self._calls.items():
            self._current[f"gui{self._index}.{method}.calls"] = np.array(count)
        if not self._internal:
            SESSION.last_frames[self._index] = self._current
        self._current, self._calls = {}, {}
        self.frame += 1
        self._exit_delivered = False

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> StubGUI:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def fps_limit(self) -> float | None:
        return self._fps_limit

    @fps_limit.setter
    def fps_limit(self, value: float | None) -> None:
        self._fps_limit = value

    # -- events: none until the frames are drawn, then one ESCAPE (or window close) -----
    def get_events(self, *e_filter: Any):
        """Yields nothing; after the last frame, one exit event that ``e_filter`` accepts."""
        if self.frame < SESSION.frames or self._exit_delivered:
            return
        for candidate in (self.Event(self.PRESS, self.ESCAPE), self.Event(self.PRESS, self.EXIT)):
            if _accepts(e_filter, candidate):
                self._exit_delivered = True
                self.event = candidate
                yield candidate
                return

    def get_event(self, *e_filter: Any) -> bool:
        for event in self.get_events(*e_filter):
            self.event = event
            return True
        return False

    def has_key_event(self) -> bool:
        return self.frame >= SESSION.frames and not self._exit_delivered

    def get_key_event(self) -> Event:
        return next(self.get_events(), self.Event())

    def is_pressed(self, *keys: Any) -> bool:
        return False

    def get_cursor_pos(self) -> tuple[float, float]:
        return (0.5, 0.5)

    # -- widgets: Taichi's defaults ------------------------------------------------------
    def slider(self, text: str, minimum: float, maximum: float, step: float = 1) -> WidgetValue:
        return self.WidgetValue(minimum)

    def label(self, text: str) -> WidgetValue:
        return self.WidgetValue(0)

    def button(self, text: str, event_name: str | None = None) -> str:
        return event_name or f"WidgetButton_{text}"

    # -- drawing: recorded ---------------------------------------------------------------
    def _record(self, method: str, **arguments: Any) -> None:
        call = self._calls.get(method, 0)
        self._calls[method] = call + 1
        if call >= MAX_CALLS_RECORDED:
            return
        for name, value in arguments.items():
            array = _as_array(value)
            if array is not None:
                self._current[f"gui{self._index}.{method}[{call}].{name}"] = array

    def clear(self, color: int | None = None) -> None:
        """Drops nothing: a cleared canvas still shows what the frame draws next."""

    def set_image(self, img: Any) -> None:
        self._record("set_image", img=img)

    def cook_image(self, img: Any) -> np.ndarray:
        return np.asarray(img, dtype=np.float32)

    def get_image(self) -> np.ndarray:
        return self.img

    def circle(self, pos: Any, color: int = 0xFFFFFF, radius: float = 1) -> None:
        self._record("circle", pos=pos, color=color, radius=radius)

    def circles(self, pos, radius=1, color=0xFFFFFF, palette=None, palette_indices=None) -> None:
        self._record(
            "circles", pos=pos, radius=radius, color=color, palette=palette, indices=palette_indices
        )

    def triangle(self, a: Any, b: Any, c: Any, color: int = 0xFFFFFF) -> None:
        self._record("triangle", a=a, b=b, c=c, color=color)

    def triangles(self, a: Any, b: Any, c: Any, color: Any = 0xFFFFFF) -> None:
        self._record("triangles", a=a, b=b, c=c, color=color)

    def line(self, begin: Any, end: Any, radius: float = 1, color: int = 0xFFFFFF) -> None:
        self._record("line", begin=begin, end=end, radius=radius, color=color)

    def lines(self, begin: Any, end: Any, radius: Any = 1, color: Any = 0xFFFFFF) -> None:
        self._record("lines", begin=begin, end=end, radius=radius, color=color)

    def arrow(self, orig: Any, direction: Any, radius=1, color=0xFFFFFF, **kwargs) -> None:
        self._record("arrow", orig=orig, direction=direction, radius=radius, color=color)

    def arrows(self, orig: Any, direction: Any, radius=1, color=0xFFFFFF, **kwargs) -> None:
        self._record("arrows", orig=orig, direction=direction, radius=radius, color=color)

    def rect(self, topleft: Any, bottomright: Any, radius=1, color=0xFFFFFF) -> None:
        self._record("rect", topleft=topleft, bottomright=bottomright, radius=radius, color=color)

    def text(self, content: str, pos: Any, font_size: float = 15, color: int = 0xFFFFFF) -> None:
        self._record("text", content=content, pos=pos, font_size=font_size, color=color)

    def point_field(self, radius: Any, color: int = 0xFFFFFF, bound: float = 0.5) -> None:
        self._record("point_field", radius=radius, color=color, bound=bound)

    def arrow_field(self, direction, radius=1, color=0xFFFFFF, bound=0.5, **kwargs) -> None:
        self._record("arrow_field", direction=direction, radius=radius, color=color, bound=bound)

    def vector_field(self, vector_field: Any, arrow_spacing=5, color=0xFFFFFF) -> None:
        self._record("vector_field", vector_field=vector_field, color=color)

    def contour(self, scalar_field: Any, normalize: bool = False) -> None:
        self._record("contour", scalar_field=scalar_field)


def _opened_by_backend(frame: Any) -> bool:
    """Whether the code creating a window is the backend's own (not an example's)."""
    module = frame.f_globals.get("__name__", "")
    if module.startswith(EXAMPLES_PACKAGE):
        return False
    return module.split(".")[0] in BACKEND_PACKAGES


def _accepts(e_filter: tuple, event: StubGUI.Event) -> bool:
    """Taichi's ``GUI.EventFilter.match``: by (type, key) pair, type or key."""
    if not e_filter:
        return True
    wanted = {tuple(entry) if isinstance(entry, list) else entry for entry in e_filter}
    return bool({(event.type, event.key), event.type, event.key} & wanted)
