"""The live view's stop button and Esc end any loop: ``while gui.running:`` ends itself,
and a loop that never reads ``running`` gets a one-line GUIStopped at its next show()
(ti.GUI and ti.ui.Window alike). Views are LiveViews built without a browser."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import GUIStopped

pytestmark = pytest.mark.unit


def make_live(gui):
    """Give a headless GUI or Window a live view, as a notebook with widgets would."""
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.live_view import LiveView

    view = LiveView("t", 8, 8, show=False)
    gui._presenter.live, gui._presenter.sink = True, view
    gui._presenter.fps_limit = None
    return view


def esc(view) -> None:
    view._receive({"type": "key_down", "key": "Escape", "modifiers": []})


def new_gui():
    gui = ti.GUI("spin", res=8, show_gui=False)
    return gui, make_live(gui)


def new_window():
    window = ti.ui.Window("spin", (8, 8), show_window=False)
    return window, make_live(window)


@pytest.mark.parametrize("make", [new_gui, new_window], ids=["GUI", "Window"])
@pytest.mark.parametrize("stop", ["button", "esc"])
def test_a_loop_that_never_reads_running_ends_with_one_line(make, stop):
    gui, view = make()
    with pytest.raises(GUIStopped) as info:
        for frame in range(20000):
            if frame == 5:
                view.stop_button.click() if stop == "button" else esc(view)
            gui.show()
    # the stop arrived during frame 5's show(); frame 6's show() ended the loop
    assert frame == 6 and gui.frame == 6
    lines = info.value._render_traceback_()
    var = "gui" if isinstance(gui, ti.GUI) else "window"
    assert len(lines) == 1 and "\n" not in lines[0]
    assert lines[0].startswith("GUIStopped: ") and "'spin' was stopped" in lines[0]
    assert f"`while {var}.running:`" in lines[0]
    assert view.closed  # the view closed, its last frame stays in the cell


@pytest.mark.parametrize("make", [new_gui, new_window], ids=["GUI", "Window"])
def test_while_running_ends_itself_even_when_stopped_just_before_show(make):
    gui, view = make()
    frames = 0
    while gui.running:
        if frames == 3:
            view.stop_button.click()  # after the loop's test, before its show()
        gui.show()
        frames += 1
    assert frames == 4 and not view.closed
    gui.show()  # one more frame after the loop is no error either


@pytest.mark.parametrize("make", [new_gui, new_window], ids=["GUI", "Window"])
def test_a_loop_that_read_running_once_is_never_stopped_by_an_error(make):
    gui, view = make()
    assert gui.running
    for frame in range(10):
        if frame == 2:
            esc(view)
        gui.show()
    assert gui.frame == 10 and not gui.running


@pytest.mark.parametrize("make", [new_gui, new_window], ids=["GUI", "Window"])
def test_the_program_may_restart_or_stop_itself(make):
    gui, view = make()
    gui.show()
    view.stop_button.click()
    gui.show()  # the stop is read here
    gui.running = True  # the program chose to go on: no stop pending any more
    for _ in range(3):
        gui.show()
    other, _ = make()
    other.running = False  # the program's own stop is not the user's
    for _ in range(3):
        other.show()
    assert other.frame == 3


def test_a_headless_gui_is_never_stopped():
    gui = ti.GUI("t", res=8, show_gui=False)
    for _ in range(5):
        gui.circles(np.array([[0.5, 0.5]]), radius=2)
        gui.show()
    assert gui.frame == 5
