"""The picture a headless GUI leaves in a notebook is the frame its loop ended on.

In a notebook kernel without a live view a GUI has a frame budget (60 frames), but a
loop may end before it: a ``for`` loop, a ``break``, ``gui.close()``. The cell's output
must then show the last frame drawn, also when a recording skips frames.
"""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.ui import output, presenter


@pytest.fixture
def notebook_kernel(monkeypatch):
    """A kernel as a notebook runs it headless (nbval): the outputs are collected."""
    monkeypatch.delenv("TI_GUI_MAX_FRAMES", raising=False)
    monkeypatch.setattr(output, "in_kernel", lambda: True)
    monkeypatch.setattr(presenter, "_hook_cell_end", lambda: None)  # no IPython here
    shown = []
    monkeypatch.setattr(output, "display_outputs", lambda rgb, anim: shown.append((rgb, anim)))
    return shown


def draw_dot(gui, i):
    # the dot moves one step right per frame, so each frame's picture differs
    gui.circle((0.1 + 0.1 * i, 0.5), radius=2, color=0xFFFFFF)
    gui.show()


def dot_column(rgb: np.ndarray) -> int:
    """The column of the brightest pixel in the middle row."""
    return int(rgb[rgb.shape[0] // 2, :, 0].argmax())


def test_for_loop_shorter_than_budget_leaves_its_last_frame(notebook_kernel):
    gui = ti.GUI("t", res=(40, 8), show_gui=False)
    assert gui.max_frames == output.DEFAULT_NOTEBOOK_FRAMES
    for i in range(5):
        draw_dot(gui, i)
    gui.close()
    [(rgb, anim)] = notebook_kernel
    assert anim is None
    assert rgb is not None and dot_column(rgb) == dot_column(gui.last_frame)
    assert abs(dot_column(rgb) - 0.5 * 40) <= 1  # frame 4: the dot at x = 0.5


def test_recording_that_skips_frames_still_leaves_the_last_one(notebook_kernel):
    gui = ti.GUI("t", res=(40, 8), show_gui=False)
    gui.record(limit=2)  # from the third frame on, every second frame is skipped
    for i in range(6):
        draw_dot(gui, i)
    gui.close()
    [(rgb, anim)] = notebook_kernel
    assert len(anim.frames) < 6
    assert abs(dot_column(rgb) - 0.6 * 40) <= 1  # frame 5, which the recording skipped


def test_ggui_window_closed_early_leaves_its_last_frame(notebook_kernel):
    window = ti.ui.Window("t", (8, 8), show_window=False)
    for shade in (0.2, 0.6):
        window.get_canvas().set_background_color((shade, shade, shade))
        window.show()
    window.destroy()
    [(rgb, _)] = notebook_kernel
    assert rgb is not None and int(rgb[0, 0, 0]) == round(0.6 * 255)
