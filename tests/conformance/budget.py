"""The frame budget both runs of an example share, and what the harness notes at each show.

Taichi's run draws into the harness's headless stand-ins (:mod:`.gui_stub`,
:mod:`.ggui_stub`); ti_notebook's run draws into its own ``ti.GUI``/``ti.ui.Window``
with ``TI_GUI_MAX_FRAMES`` set to the same budget (:mod:`.observe`). Both end the same
way, so the two runs take the same number of simulation steps:

- ``running`` turns False after ``frames`` shows: a ``while gui.running:`` loop runs
  ``frames`` times;
- a loop that never reads ``running`` (``for frame in range(20000): ... gui.show()``,
  ``while True:``, ``while not gui.get_event(ESCAPE):``) runs its body once more and is
  stopped by that body's ``show()``: :class:`ExampleStopped` in Taichi's run,
  ``ti_notebook.errors.GUIFrameLimit`` in ti_notebook's; both are a normal end;
- no input arrives (ti_notebook's headless GUI has no user, so neither has the stand-in).

At every ``show()`` the session keeps the locals of the example's functions on the
stack (fields made inside ``main()`` are reachable only from there) and, for a show
that returns, its time.

>>> session = reset(frames=2)
>>> session.note_show(1.0); session.note_show(1.5)
>>> session.frames_shown
2
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

# the harness's own clock: bound here, so an example's time shims never touch it
perf_counter = time.perf_counter


class ExampleStopped(BaseException):  # noqa: N818 - a stop signal, like SystemExit
    """Raised by a stand-in's ``show()`` past the budget; ends the run cleanly.

    A ``BaseException``, so an example's ``except Exception`` does not swallow it.
    """


@dataclass
class Session:
    """What all windows of this process share: frame budget, show times, locals."""

    frames: int = 5
    show_times: list[float] = field(default_factory=list)
    started: float = field(default_factory=perf_counter)
    # the example's file, and the locals of its functions on the stack at the last show
    example_file: str = ""
    local_frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def frames_shown(self) -> int:
        """Shows that returned (the frame clock of :mod:`.shims` counts these)."""
        return len(self.show_times)

    def note_show(self, when: float | None = None) -> None:
        """A show returned (at ``when``, default now)."""
        self.show_times.append(perf_counter() if when is None else when)

    def capture_locals(self) -> None:
        """Keeps the locals of the example's functions now on the stack, innermost first."""
        if not self.example_file:
            return
        frames = []
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code.co_filename == self.example_file and code.co_name != "<module>":
                frames.append((code.co_name, dict(frame.f_locals)))
            frame = frame.f_back
        self.local_frames = frames


SESSION = Session()


def reset(frames: int = 5, example_file: str = "") -> Session:
    """Starts a new session: ``frames`` shows per window, nothing shown yet."""
    global SESSION
    SESSION = Session(frames=frames, example_file=example_file)
    return SESSION


def current() -> Session:
    """The session of this process (the module attribute, read at call time)."""
    return SESSION
