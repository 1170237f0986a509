"""Where a GUI's finished frames go: shared by ``ti.GUI`` and ``ti.ui.Window``.

A :class:`Presenter` owns everything between "the frame is drawn" and "the user sees
it": the choice of sink (the live view in a notebook whose frontend shows widgets, else
headless; ``TI_GUI_LIVE=0`` asks for headless), the frame budget of
:func:`ti_notebook.ui.output.frame_budget` and the one-line
:class:`~ti_notebook.errors.GUIFrameLimit` past it, the one-line
:class:`~ti_notebook.errors.GUIStopped` that ends a loop which never reads ``running``
once the view's stop button or Esc stopped it, the fps limit of a live view, the
recorder behind ``record=True``, and the PNG (plus GIF) left in the cell's output when
the budget ends, the GUI closes, or the cell ends (IPython's ``post_run_cell``).

A GUI asks :meth:`Presenter.needs_rgb` before converting its frame (plain Python
headless shows nothing, so it skips the conversion), then calls
:meth:`Presenter.present`.

>>> p = Presenter("demo", (4, 2), show=False)
>>> p.check_budget(); p.present(np.zeros((2, 4, 3), np.uint8)); p.frame
1
>>> p.live, p.max_frames is None
(False, True)
"""

from __future__ import annotations

import os
import time
import warnings
import weakref

import numpy as np

from ti_notebook.errors import GUIFrameLimit, GUIStopped
from ti_notebook.ui import output
from ti_notebook.ui.frames import FrameSink, HeadlessSink

__all__ = ["PresentedFrames", "Presenter", "bool_environ", "open_live_view"]

_live_failed_warned = False
_pending: weakref.WeakSet[Presenter] = weakref.WeakSet()


def bool_environ(key: str, default: bool) -> bool:
    """An environment flag given as 0/1, or ``default`` when unset.

    >>> bool_environ("TI_NO_SUCH_FLAG", True)
    True
    """
    return bool(int(os.environ[key])) if key in os.environ else default


def open_live_view(name: str, res: tuple[int, int], owner: str = "ti.GUI") -> FrameSink | None:
    """The live view, or None (with one warning per process) when it cannot open.

    >>> open_live_view("demo", (8, 8)) is None  # plain Python: no notebook to show it in
    True
    """
    global _live_failed_warned
    try:
        from ti_notebook.ui.live_view import LiveView

        return LiveView(name, res[0], res[1])
    except Exception as exc:  # a missing widget package or no frontend: draw headless
        # no frontend (nbconvert, nbval) is the expected headless case: no warning there
        expected = str(exc).startswith(("no frontend", "no Jupyter kernel"))
        if not expected and not _live_failed_warned:
            _live_failed_warned = True
            warnings.warn(
                f"{owner}: the live view is not available ({exc}); drawing headless",
                stacklevel=3,
            )
        return None


def _flush_pending(*_args: object) -> None:
    """After a cell: show the frames of GUIs that drew in it and did not show them yet."""
    for presenter in list(_pending):
        presenter.emit_outputs()


def _hook_cell_end() -> None:
    if not output.in_kernel():
        return
    from IPython import get_ipython

    events = get_ipython().events
    # post_run_cell, not post_execute: ipykernel also fires post_execute after every
    # widget message it handles, and the live view's own messages arrive mid-loop
    if _flush_pending not in events.callbacks["post_run_cell"]:
        events.register("post_run_cell", _flush_pending)


class Presenter:
    """A GUI's sink, frame budget, recorder and cell outputs (see the module).

    ``show`` is the GUI's ``show_gui``/``show_window`` (``TI_GUI_SHOW`` overrides it);
    ``owner`` names the GUI in warnings.

    >>> p = Presenter("demo", (2, 2), show=False, record=True)
    >>> for _ in range(3):
    ...     p.present(np.zeros((2, 2, 3), np.uint8))
    >>> len(p.animation().frames)
    3
    """

    def __init__(
        self,
        name: str,
        res: tuple[int, int],
        show: bool = True,
        record: bool = False,
        owner: str = "ti.GUI",
    ) -> None:
        show = bool_environ("TI_GUI_SHOW", show)
        self.frame = 0
        self.recorder = output.Recorder() if record else None
        self.last_rgb: np.ndarray | None = None
        self.fps_limit: float | None = 60.0
        self._last_show = 0.0
        self._emitted = False
        # whether the program ever read `running`: a loop that does ends itself on a stop
        self.running_read = False
        sink = None
        # TI_GUI_LIVE=0 skips the live view (and its wait for a frontend, 2 s where
        # none renders it: nbconvert, nbval) and draws headless
        live = bool_environ("TI_GUI_LIVE", True)
        if live and show and output.env_max_frames() is None and output.in_kernel():
            sink = open_live_view(name, res, owner)
        self._view_args = (name, res, owner)
        self.owner = owner
        self.live = sink is not None
        self.sink: FrameSink = sink if sink is not None else HeadlessSink()
        self.max_frames = output.frame_budget(self.live)
        _hook_cell_end()

    def out_of_frames(self) -> bool:
        """Whether the frame budget is spent (``running`` turns False)."""
        return self.max_frames is not None and self.frame >= self.max_frames

    def check_budget(self) -> None:
        """Before a frame is shown: past the budget, leave the outputs and stop the loop."""
        if self.out_of_frames():
            self.emit_outputs()
            raise GUIFrameLimit(self.max_frames)

    def check_stopped(self, stopped: bool) -> None:
        """Before a frame is shown: a GUI the user ``stopped`` whose loop never read
        ``running`` would run on unseen, so its outputs stay and the loop ends here.

        >>> p = Presenter("demo", (2, 2), show=False)
        >>> p.check_stopped(True)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ti_notebook.errors.GUIStopped: ti.GUI 'demo' was stopped ...
        >>> p.running_read = True; p.check_stopped(True)  # the loop ends itself
        """
        if stopped and not self.running_read:
            self.emit_outputs()
            raise GUIStopped(self.owner, self._view_args[0], self.frame)

    def needs_rgb(self, file: object = None) -> bool:
        """Whether the next frame will be seen (view, recording, file, or kept as the last)."""
        recording = self.recorder is not None and self.recorder.wants()
        return bool(self.live or recording or file or self._keeps_last())

    def present(self, rgb: np.ndarray | None, file: str | os.PathLike | None = None) -> None:
        """Count one frame and send ``rgb`` (``(h, w, 3)`` uint8, row 0 on top) where it goes.

        ``rgb`` may be None when :meth:`needs_rgb` said nobody sees this frame.
        """
        if file:
            output.save_image(rgb, file)
        if self.live:
            if getattr(self.sink, "closed", False):
                self._reopen_view()
            self._wait_for_fps()
            self.sink.push(rgb)
        if self.recorder is not None:
            self.recorder.offer(rgb)  # None only when the recorder does not want it
        if rgb is not None:
            self.last_rgb = rgb
        self.frame += 1
        _pending.add(self)
        if self._frame_is_last(shown=True):
            self.emit_outputs()

    def _keeps_last(self) -> bool:
        # in a notebook the output shows the frame the loop ends on, and a loop may end
        # before the budget (a for loop, break, close()): keep each frame in turn. Plain
        # Python shows none: only the budget's last frame is kept there, for last_frame
        return (not self.live and output.in_kernel()) or self._frame_is_last()

    def _frame_is_last(self, shown: bool = False) -> bool:
        if self.max_frames is None:
            return False
        return self.frame + (0 if shown else 1) >= self.max_frames

    def _wait_for_fps(self) -> None:
        if self.fps_limit:
            delay = self._last_show + 1.0 / self.fps_limit - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        self._last_show = time.perf_counter()

    def emit_outputs(self) -> None:
        """Leave the last frame (and the animation) in the cell's output, once.

        A live view is closed here, at the end of the cell that drew in it: its last
        frame stays in its place as a PNG (also in the saved notebook).
        """
        if self._emitted or self.frame == 0:
            return
        self._emitted = True
        _pending.discard(self)
        animation = self.animation() if self.recorder is not None else None
        if self.live:
            self.sink.close()
            if animation is not None:
                output.display_outputs(None, animation)
            return
        output.display_outputs(self.last_rgb, animation)

    def _reopen_view(self) -> None:
        """A GUI drawing in a later cell gets a new live view there (or goes headless)."""
        sink = open_live_view(*self._view_args)
        self.live = sink is not None
        self.sink = sink if sink is not None else HeadlessSink()
        self.max_frames = output.frame_budget(self.live)
        self._emitted = False

    def close(self) -> None:
        """Close the view; in a notebook the last frame stays in the output."""
        self.sink.close()
        self.emit_outputs()

    def record(self, limit: int = 200) -> None:
        """Keep the frames shown from now on (at most ``limit``, evenly spaced)."""
        self.recorder = output.Recorder(limit)

    def animation(self, fps: float = 24.0) -> output.Animation:
        """The recorded frames as an inline animation (a GIF); empty without ``record``."""
        frames = self.recorder.frames if self.recorder is not None else []
        return output.Animation(frames, fps)


class PresentedFrames:
    """What ``ti.GUI`` and ``ti.ui.Window`` say about their frames, read from the
    :class:`Presenter` they keep as ``_presenter``.

    >>> class Demo(PresentedFrames):
    ...     def __init__(self):
    ...         self._presenter = Presenter("demo", (4, 2), show=False, record=True)
    >>> d = Demo(); d._presenter.present(np.full((2, 4, 3), 7, np.uint8))
    >>> d.frame, d.live, d.last_frame.shape, int(d.last_frame[0, 0, 0])
    (1, False, (2, 4, 3), 7)
    """

    _presenter: Presenter

    @property
    def frame(self) -> int:
        """How many frames were shown."""
        return self._presenter.frame

    @property
    def live(self) -> bool:
        """Whether the frames go to a live view in the notebook."""
        return self._presenter.live

    @property
    def max_frames(self) -> int | None:
        """The frame budget (None: no limit)."""
        return self._presenter.max_frames

    @property
    def _sink(self) -> FrameSink:
        return self._presenter.sink

    @_sink.setter
    def _sink(self, sink: FrameSink) -> None:
        self._presenter.sink = sink

    @property
    def last_frame(self) -> np.ndarray | None:
        """The last frame kept (the picture a notebook's output shows), ``uint8 (h, w, 3)``
        with row 0 at the top; None before one is kept. Headless without a budget in plain
        Python keeps none (nothing would show it)."""
        return self._presenter.last_rgb
