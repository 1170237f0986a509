"""The headless ``ti.GUI`` of Taichi's run: the frame budget of :mod:`.budget`, no input.

Taichi's own GUI has no headless mode that ends a loop (``show_gui=False`` never turns
``running`` False), so Taichi's run gets this stand-in. It behaves as ti_notebook's
headless ``ti.GUI`` with ``TI_GUI_MAX_FRAMES`` set, which ti_notebook's run uses, so both
runs take the same steps. It follows Taichi 1.7's ``taichi/ui/gui.py`` signatures:

- ``running`` turns False after ``frames`` calls of ``show()`` (per window);
  ``gui.frame`` counts them; one more ``show()`` raises :class:`.ExampleStopped`;
- no event ever arrives, no key is pressed, the cursor sits at (0, 0) (ti_notebook's
  headless cursor);
- ``slider``/``label``/``button`` give Taichi's defaults (the slider's minimum, 0, the
  event name);
- the drawing methods read what they are given (a field's ``to_numpy()``), as a real
  GUI would, and draw nothing: Taichi's picture is not what the runs compare;
- a window the backend opens itself (Taichi's ``ti.tools.imshow``) runs its frames but is
  not timed: it is not what the example draws.

>>> from tests.conformance import budget
>>> session = budget.reset(frames=2)
>>> gui = StubGUI("demo", res=(4, 4))
>>> while gui.running:
...     gui.circles([[0.5, 0.5]], radius=3)
...     gui.show()
>>> gui.frame, session.frames_shown
(2, 2)
"""

from __future__ import annotations

import numbers
import sys
from typing import Any

from tests.conformance import budget
from tests.conformance.budget import ExampleStopped

__all__ = ["ExampleStopped", "StubGUI", "StubGap"]

BACKEND_PACKAGES = ("taichi", "ti_notebook")
EXAMPLES_PACKAGE = "taichi.examples"
CURSOR = (0.0, 0.0)  # where ti_notebook's headless GUI reports the pointer


class StubGap(AttributeError):
    """The example used a part of ``ti.GUI`` the stub lacks: a gap in the harness."""


def read(value: Any) -> None:
    """Reads ``value`` as a real GUI would: a field through ``to_numpy()``.

    Errors of a backend's ``to_numpy`` propagate: the real GUI would read the field too.
    """
    if hasattr(value, "to_numpy") and not isinstance(value, type):
        value.to_numpy()


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
            self.pos, self.modifier, self.delta = CURSOR, [], (0, 0)

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
        self.frame = 0
        self.event = None
        self.key_pressed: set[str] = set()
        self._closed = False
        # a window the backend opens for itself (Taichi's ti.tools.imshow) is not the
        # example's drawing: it runs its frames but is not timed
        self._internal = _opened_by_backend(sys._getframe(1))
        self._fps_limit = None

    def __getattr__(self, name: str) -> Any:
        raise StubGap(
            f"compat GUI stub: GUI.{name} is not stubbed (a gap in the harness, not in the backend)"
        )

    # -- the loop ----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True until ``frames`` shows, ``running = False`` or ``close()``."""
        return not self._closed and self.frame < budget.current().frames

    @running.setter
    def running(self, value: bool) -> None:
        self._closed = not value

    def show(self, file: str | None = None) -> None:
        """Ends a frame; past the budget, stops the run."""
        session = budget.current()
        if not self._internal:
            session.capture_locals()
        if self.frame >= session.frames:
            raise ExampleStopped(f"drew past its {session.frames} frames")
        self.frame += 1
        if not self._internal:
            session.note_show()

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

    # -- input: none ---------------------------------------------------------------------
    def get_events(self, *e_filter: Any):
        """Yields nothing: headless, no input arrives."""
        return iter(())

    def get_event(self, *e_filter: Any) -> bool:
        return False

    def has_key_event(self) -> bool:
        return False

    def is_pressed(self, *keys: Any) -> bool:
        return False

    def get_cursor_pos(self) -> tuple[float, float]:
        return CURSOR

    # -- widgets: Taichi's defaults ------------------------------------------------------
    def slider(self, text: str, minimum: float, maximum: float, step: float = 1) -> WidgetValue:
        return self.WidgetValue(minimum)

    def label(self, text: str) -> WidgetValue:
        return self.WidgetValue(0)

    def button(self, text: str, event_name: str | None = None) -> str:
        return event_name or f"WidgetButton_{text}"

    # -- drawing: read, not drawn --------------------------------------------------------
    def clear(self, color: int | None = None) -> None:
        """Nothing to clear."""

    def set_image(self, img: Any) -> None:
        read(img)

    def cook_image(self, img: Any) -> Any:
        """The image as given (Taichi's ``ti.tools.imshow`` calls this first)."""
        return img

    def circle(self, pos: Any, color: int = 0xFFFFFF, radius: float = 1) -> None:
        read(pos)

    def circles(self, pos, radius=1, color=0xFFFFFF, palette=None, palette_indices=None) -> None:
        for value in (pos, radius, color, palette_indices):
            read(value)

    def triangle(self, a: Any, b: Any, c: Any, color: int = 0xFFFFFF) -> None:
        """Drawn nowhere."""

    def triangles(self, a: Any, b: Any, c: Any, color: Any = 0xFFFFFF) -> None:
        for value in (a, b, c, color):
            read(value)

    def line(self, begin: Any, end: Any, radius: float = 1, color: int = 0xFFFFFF) -> None:
        """Drawn nowhere."""

    def lines(self, begin: Any, end: Any, radius: Any = 1, color: Any = 0xFFFFFF) -> None:
        for value in (begin, end, radius, color):
            read(value)

    def arrow(self, orig: Any, direction: Any, radius=1, color=0xFFFFFF, **kwargs) -> None:
        """Drawn nowhere."""

    def arrows(self, orig: Any, direction: Any, radius=1, color=0xFFFFFF, **kwargs) -> None:
        for value in (orig, direction, radius, color):
            read(value)

    def rect(self, topleft: Any, bottomright: Any, radius=1, color=0xFFFFFF) -> None:
        """Drawn nowhere."""

    def text(self, content: str, pos: Any, font_size: float = 15, color: int = 0xFFFFFF) -> None:
        """Drawn nowhere."""


def _opened_by_backend(frame: Any) -> bool:
    """Whether the code creating a window is the backend's own (not an example's)."""
    module = frame.f_globals.get("__name__", "")
    if module.startswith(EXAMPLES_PACKAGE):
        return False
    return module.split(".")[0] in BACKEND_PACKAGES
