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


def motion(view, n: int) -> None:
    for k in range(n):
        view._receive({"type": "pointer_move", "x": k, "y": 1, "modifiers": []})


def test_a_gui_loop_that_reads_one_event_a_frame_ends_on_esc_itself():
    """``while True:`` with one ``get_event()`` a frame reaches the Esc behind the
    pointer's moves a few frames later: no error meanwhile."""
    gui, view = new_gui()
    ended = None
    for frame in range(50):
        if frame == 2:
            motion(view, 5)
            esc(view)
        if gui.get_event() and gui.event.key == ti.GUI.ESCAPE:
            ended = frame
            break
        gui.show()
    assert ended is not None and ended > 3


def test_a_gui_loop_that_reads_events_but_not_the_stop_ends_with_the_error():
    gui, view = new_gui()
    with pytest.raises(GUIStopped):
        for frame in range(50):
            if frame == 2:
                view.stop_button.click()
            for _ in gui.get_events(ti.GUI.LMB):  # drops the others, the stop's among them
                pass
            gui.show()
    assert gui.frame == 2  # the frame whose get_events took the stop's event


def test_a_window_loop_that_handles_esc_itself_ends_on_it():
    window, view = new_window()
    ended = None
    for frame in range(50):
        if frame == 2:
            view._receive({"type": "key_down", "key": "a", "modifiers": []})
            esc(view)
        if window.get_event(ti.ui.PRESS) and window.event.key == ti.ui.ESCAPE:
            ended = frame
            break
        window.show()
    assert ended is not None and ended > 2
    other, view = new_window()
    with pytest.raises(GUIStopped):
        for frame in range(50):
            if frame == 2:
                view.stop_button.click()  # WMClose: the window's stop, never an event
            other.get_events(ti.ui.PRESS)
            other.show()
