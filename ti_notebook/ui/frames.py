"""What a ``ti.GUI`` hands to a view and gets back: frames out, events in.

A GUI renders each frame into an RGB array and pushes it to a :class:`FrameSink`; the
sink returns the user's input as :class:`Event` values, which ``get_event``,
``is_pressed`` and ``get_cursor_pos`` read. Two sinks exist: the live view in the
notebook (``ti_notebook.ui.live_view``) and :class:`HeadlessSink`, which shows nothing
and never has input (nbval, ``jupyter nbconvert --execute``, plain ``python``).

Conventions shared by every sink:

- a frame is ``(height, width, 3)`` ``uint8``, row 0 at the **top** (display
  orientation, as a PNG stores it);
- an event's ``pos`` is ``(x, y)`` in ``[0, 1]``, origin at the **bottom left**, y up
  (Taichi's convention, the same as drawing positions);
- keys are Taichi's names: ``"LMB"``, ``"RMB"``, ``"MMB"``, ``"Escape"``, ``" "``,
  lowercase letters ``"a"``, ``"Up"``/``"Down"``/``"Left"``/``"Right"``, ``"Shift"``,
  ``"Control"``, ``"Alt"``, ``"Return"``, ``"Tab"``, ``"BackSpace"``;
- a pointer move is ``Event(MOTION, "Motion", pos)``; the wheel is
  ``Event(MOTION, "Wheel", pos, delta=(0, dy))`` (as Taichi reports it); the view's
  stop control sends ``Event(PRESS, "WMClose")`` (Taichi's window-close key).

>>> sink = HeadlessSink()
>>> sink.push(np.zeros((2, 3, 3), np.uint8))
>>> sink.events()
[]
>>> Event(PRESS, "a", (0.25, 0.5)).key
'a'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


class EventType(enum.Enum):
    """The kind of an :class:`Event`: ``ti.GUI.PRESS``, ``RELEASE`` or ``MOTION``.

    >>> EventType.PRESS is PRESS
    True
    """

    PRESS = "Press"
    RELEASE = "Release"
    MOTION = "Move"


PRESS = EventType.PRESS
RELEASE = EventType.RELEASE
MOTION = EventType.MOTION

# Taichi's key names (``taichi/ui/gui.py``): the live view sends exactly these strings.
SHIFT = "Shift"
ALT = "Alt"
CTRL = "Control"
ESCAPE = "Escape"
RETURN = "Return"
TAB = "Tab"
BACKSPACE = "BackSpace"
SPACE = " "
UP = "Up"
DOWN = "Down"
LEFT = "Left"
RIGHT = "Right"
CAPSLOCK = "Caps_Lock"
LMB = "LMB"
MMB = "MMB"
RMB = "RMB"
EXIT = "WMClose"
WHEEL = "Wheel"
MOVE = "Motion"
MODIFIERS = (SHIFT, ALT, CTRL)


@dataclass(frozen=True)
class Event:
    """One input event, as ``ti.GUI.get_event`` leaves it in ``gui.event``.

    ``modifier`` lists the modifier keys held when it happened (``"Shift"``,
    ``"Alt"``, ``"Control"``); ``delta`` is the wheel's ``(dx, dy)``, else ``(0, 0)``.

    >>> e = Event(PRESS, LMB, (0.5, 0.25), modifier=("Shift",))
    >>> e.type is PRESS, e.pos, e.delta
    (True, (0.5, 0.25), (0, 0))
    """

    type: EventType
    key: str
    pos: tuple[float, float] = (0.0, 0.0)
    delta: tuple[float, float] = (0, 0)
    modifier: tuple[str, ...] = ()


@runtime_checkable
class FrameSink(Protocol):
    """Where a GUI's frames go and its events come from (see the module's conventions)."""

    def push(self, rgb: np.ndarray) -> None:
        """Show one frame: ``(height, width, 3)`` ``uint8``, row 0 at the top."""
        ...

    def events(self) -> list[Event]:
        """The events that arrived since the last call, oldest first."""
        ...

    def close(self) -> None:
        """Stop showing; later pushes may be ignored."""
        ...


class HeadlessSink:
    """A sink with no view: frames are dropped here (the GUI keeps what it records).

    >>> isinstance(HeadlessSink(), FrameSink)
    True
    """

    def push(self, rgb: np.ndarray) -> None:
        """Accept a frame and show it nowhere."""

    def events(self) -> list[Event]:
        """No view, so never any input."""
        return []

    def close(self) -> None:
        """Nothing to release."""
