"""ti_notebook's run: its own ``ti.GUI`` and ``ti.ui.Window``, observed, and their pictures.

ti_notebook's run uses no stand-in. Its GUI is headless outside a notebook, and
``TI_GUI_MAX_FRAMES`` (:func:`set_budget`) gives it the frame budget Taichi's stand-ins
keep, so ``running`` turns False after the same number of frames and a loop that never
reads it ends with ``ti_notebook.errors.GUIFrameLimit`` where Taichi's run ends with
:class:`.budget.ExampleStopped` (both a normal end).

:class:`Observer` wraps the classes' ``show`` to note, at each call, the example's locals
and, once it returns, the time (for the table and the frame clock of :mod:`.shims`);
what ``show`` does is untouched. After the run, :meth:`Observer.save_pictures` writes
the last frame each window kept (``last_frame``, the picture a notebook's output shows)
as a PNG.

>>> class Window:
...     def __init__(self): self.last_frame = None
...     def show(self): self.last_frame = np.zeros((2, 3, 3), np.uint8)
>>> from tests.conformance import budget
>>> session = budget.reset(frames=1)
>>> observer = Observer(); observer.wrap(Window)
>>> Window().show(); session.frames_shown
1
>>> [p["size"] for p in observer.save_pictures(None, "demo")]
[[3, 2]]
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np

from tests.conformance import budget

BUDGET_ENV = "TI_GUI_MAX_FRAMES"
LIVE_ENV = "TI_GUI_LIVE"
_OBSERVED = "__compat_observed__"


def set_budget(frames: int) -> None:
    """ti_notebook's GUIs stop after ``frames`` frames and never open a live view."""
    os.environ[BUDGET_ENV] = str(frames)
    os.environ.pop(LIVE_ENV, None)


def stop_types(ti: Any) -> tuple[type[BaseException], ...]:
    """The exceptions that end a run normally: the budget's stop signals."""
    errors = getattr(ti, "errors", None)
    limit = getattr(errors, "GUIFrameLimit", None)
    return (budget.ExampleStopped,) + ((limit,) if isinstance(limit, type) else ())


def window_classes(ti: Any) -> list[type]:
    """``ti.GUI`` and, when the backend has it, ``ti.ui.Window``."""
    found = [ti.GUI] if isinstance(getattr(ti, "GUI", None), type) else []
    window = getattr(getattr(ti, "ui", None), "Window", None)
    if isinstance(window, type) and window not in found:
        found.append(window)
    return found


def picture_name(example: str, index: int) -> str:
    """``simulation/mpm88`` -> ``simulation__mpm88.png`` (``-1``, ``-2`` for more windows).

    >>> picture_name("simulation/mpm88", 0), picture_name("a/b", 2)
    ('simulation__mpm88.png', 'a__b-2.png')
    """
    stem = example.replace("/", "__")
    return f"{stem}.png" if index == 0 else f"{stem}-{index}.png"


class Observer:
    """Notes each ``show`` of the wrapped classes; keeps the windows that showed."""

    def __init__(self) -> None:
        self.windows: list[Any] = []  # in the order of their first show

    def wrap(self, cls: type) -> None:
        """Wraps ``cls.show`` (once per class)."""
        original = cls.show
        if getattr(original, _OBSERVED, False):
            return

        @functools.wraps(original)
        def show(window: Any, *args: Any, **kwargs: Any) -> Any:
            session = budget.current()
            session.capture_locals()
            if not any(window is seen for seen in self.windows):
                self.windows.append(window)
            result = original(window, *args, **kwargs)
            session.note_show()
            return result

        setattr(show, _OBSERVED, True)
        cls.show = show

    def save_pictures(self, folder: Path | None, example: str) -> list[dict[str, Any]]:
        """Each window's last frame as ``folder/<example>.png`` (not written when
        ``folder`` is None); one entry per window: its class, name, frames and picture."""
        from PIL import Image

        pictures = []
        for index, window in enumerate(self.windows):
            rgb = getattr(window, "last_frame", None)
            entry: dict[str, Any] = {
                "window": f"{type(window).__name__} {getattr(window, 'name', '')!r}",
                "frames": getattr(window, "frame", None),
                "file": None,
                "size": None,
            }
            if rgb is None:
                has = hasattr(type(window), "last_frame")
                entry["missing"] = "kept no last frame" if has else "has no last_frame"
            else:
                rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
                entry["size"] = [int(rgb.shape[1]), int(rgb.shape[0])]
                if folder is not None:
                    folder.mkdir(parents=True, exist_ok=True)
                    path = folder / picture_name(example, index)
                    Image.fromarray(rgb[:, :, :3], "RGB").save(path)
                    entry["file"] = str(path)
            pictures.append(entry)
        return pictures
