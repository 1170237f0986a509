"""Input for ``ti.GUI``: the event queue, pressed keys, cursor and event filters.

Taichi's semantics (``taichi/ui/gui.py``): ``get_events(*filters)`` yields the queued
events that match (a type, a key, or a ``(type, key)`` pair) and drops the rest;
``get_event`` keeps the first match in ``gui.event``; ``is_pressed("Shift")`` also
counts ``"Shift_L"``/``"Shift_R"``. An Escape press or the view's stop control
(``EXIT``) ends ``gui.running``.

>>> q = EventQueue()
>>> q.feed([Event(PRESS, "a", (0.5, 0.5)), Event(RELEASE, "a", (0.5, 0.5))])
>>> [e.type.name for e in q.take(PRESS)]
['PRESS']
>>> q.pressed
set()
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from ti_notebook.ui.frames import ESCAPE, EXIT, MODIFIERS, PRESS, RELEASE, Event

__all__ = ["RELEASE", "EventFilter", "EventQueue"]


class EventFilter:
    """Matches an event by type, by key or by a ``(type, key)`` pair, as Taichi's."""

    def __init__(self, *e_filter: object) -> None:
        self.filter = {tuple(f) if isinstance(f, list) else f for f in e_filter}

    def match(self, e: Event) -> bool:
        """Whether ``e`` passes the filter."""
        return (e.type, e.key) in self.filter or e.type in self.filter or e.key in self.filter


class EventQueue:
    """Events not yet read, the keys held down, the cursor, and whether Esc/stop came."""

    def __init__(self) -> None:
        self.queue: deque[Event] = deque()
        self.pressed: set[str] = set()
        self.cursor: tuple[float, float] = (0.0, 0.0)  # Taichi's start, before any motion
        self.stop_requested = False

    def feed(self, events: list[Event]) -> None:
        """Queue events from a sink; the cursor follows every event's position."""
        for e in events:
            self.queue.append(e)
            self.cursor = (float(e.pos[0]), float(e.pos[1]))
            if e.type is PRESS and e.key in (ESCAPE, EXIT):
                self.stop_requested = True

    def _pop(self) -> Event:
        e = self.queue.popleft()
        held = tuple(m for m in MODIFIERS if self.is_pressed(m))
        if held and not e.modifier:
            e = Event(e.type, e.key, e.pos, e.delta, held)
        if e.type is PRESS:
            self.pressed.add(e.key)
        else:
            self.pressed.discard(e.key)
        return e

    def take(self, *e_filter: object) -> Iterator[Event]:
        """Pop every queued event, yielding those that match ``e_filter`` (all if empty)."""
        flt = EventFilter(*e_filter) if e_filter else None
        while self.queue:
            e = self._pop()
            if flt is None or flt.match(e):
                yield e

    def is_pressed(self, *keys: str) -> bool:
        """Whether any of ``keys`` is held (``"Shift"`` also means ``"Shift_L"``/``"_R"``)."""
        for key in keys:
            if key in MODIFIERS and (key + "_L" in self.pressed or key + "_R" in self.pressed):
                return True
            if key in self.pressed:
                return True
        return False
