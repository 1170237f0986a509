"""ti.ui.Window without a live view: lifecycle and frame budget, events, image buffer, widgets."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import ti_notebook as ti
from tests.ui.fake_sink import FakeSink
from ti_notebook.errors import GUIFrameLimit
from ti_notebook.ui import output
from ti_notebook.ui.frames import EXIT, MOTION, MOVE, PRESS, RELEASE, Event


def test_running_ends_after_max_frames_and_one_more_show_raises(monkeypatch):
    monkeypatch.setenv("TI_GUI_MAX_FRAMES", "3")
    window = ti.ui.Window("t", (16, 8))
    canvas = window.get_canvas()
    frames = 0
    while window.running:
        canvas.set_background_color((0.1 * frames, 0, 0))
        window.show()
        frames += 1
    assert frames == 3 and window.frame == 3 and not window.live
    with pytest.raises(GUIFrameLimit) as info:
        window.show()
    assert len(info.value._render_traceback_()) == 1


def test_outputs_left_once_with_the_last_frame(monkeypatch):
    shown = []
    monkeypatch.setattr(output, "display_outputs", lambda rgb, anim: shown.append((rgb, anim)))
    monkeypatch.setenv("TI_GUI_MAX_FRAMES", "2")
    window = ti.ui.Window("t", (16, 8), record=True)
    for color in ((1, 0, 0), (0, 1, 0)):
        window.get_canvas().set_background_color(color)
        window.show()
    window.destroy()
    assert len(shown) == 1
    rgb, anim = shown[0]
    assert rgb.shape == (8, 16, 3) and rgb[0, 0].tolist() == [0, 255, 0]
    assert len(anim.frames) == 2 and anim.frames[0][0, 0].tolist() == [255, 0, 0]
    assert not window.running


def test_running_setter_and_destroy():
    window = ti.ui.Window("t", (8, 8), show_window=False)
    assert window.running and window.max_frames is None  # plain Python: no budget
    window.running = False
    assert not window.running
    window.running = True
    window.destroy()
    assert not window.running
    with pytest.raises(RuntimeError, match="destroyed"):
        window.get_canvas().set_background_color((1, 1, 1))


def test_events_is_pressed_cursor_and_close():
    window = ti.ui.Window("t", (8, 8), show_window=False)
    window._sink = FakeSink(
        [
            Event(PRESS, ti.ui.LMB, (0.25, 0.75)),
            Event(MOTION, MOVE, (0.5, 0.25)),
            Event(PRESS, "a", (0.5, 0.25)),
            Event(RELEASE, ti.ui.LMB, (0.5, 0.25)),
        ]
    )
    assert window.get_cursor_pos() == (0.5, 0.25)
    assert window.is_pressed("a") and not window.is_pressed(ti.ui.LMB)
    assert window.get_event(ti.ui.RELEASE)  # taken from the middle of the queue
    assert window.event.key == ti.ui.LMB and window.event.type == ti.ui.RELEASE
    assert window.get_event(ti.ui.PRESS) and window.event.key == ti.ui.LMB
    rest = window.get_events()
    assert [(e.type, e.key) for e in rest] == [(ti.ui.PRESS, "a")]
    assert window.get_events() == [] and not window.get_event()
    window._sink.pending += [Event(RELEASE, "a", (0.5, 0.25)), Event(PRESS, "b", (0, 0))]
    presses = window.get_events(ti.ui.PRESS)  # the release stays queued
    assert [e.key for e in presses] == ["b"] and not window.is_pressed("a")
    assert [e.key for e in window.get_events(ti.ui.RELEASE)] == ["a"]
    with pytest.raises(ValueError, match="event tag"):
        window.get_events("Pressed")
    assert window.running
    window._sink.pending.append(Event(PRESS, EXIT, (0.5, 0.5)))
    assert not window.running


def test_image_buffer_conventions_and_save(tmp_path):
    window = ti.ui.Window("t", (6, 4), show_window=False)
    img = np.zeros((6, 4, 3), np.float32)
    img[0, 0] = (1, 0, 0)  # bottom-left, indexed [x, y] with y up
    img[5, 3] = (0, 0, 1)  # top-right
    window.get_canvas().set_image(img)
    buf = window.get_image_buffer_as_numpy()
    assert buf.shape == (6, 4, 4) and buf.dtype == np.float32
    assert buf[0, 0].tolist() == [1, 0, 0, 1] and buf[5, 3].tolist() == [0, 0, 1, 1]
    assert buf[2, 2].tolist() == [0, 0, 0, 1]
    window.save_image(str(tmp_path / "f.png"))
    png = np.asarray(Image.open(tmp_path / "f.png"))
    assert png.shape == (4, 6, 3)
    assert png[3, 0].tolist() == [255, 0, 0] and png[0, 5].tolist() == [0, 0, 255]


def test_gui_headless_returns_inputs():
    window = ti.ui.Window("t", (8, 8), show_window=False)
    gui = window.get_gui()
    assert not gui.live
    with gui.sub_window("Settings", 0.05, 0.05, 0.3, 0.2) as w:
        assert w.slider_float("g", 9.5, 0, 20) == 9.5
        assert w.slider_int("n", 3, 0, 10) == 3
        assert w.checkbox("on", True) is True
        assert w.button("reset") is False
        assert w.color_edit_3("c", (0.1, 0.2, 0.3)) == (0.1, 0.2, 0.3)
        w.text("hello")
    assert window.GUI is gui


def test_gui_live_widgets_beside_the_view():
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.ggui.gui_panel import Gui
    from ti_notebook.ui.live_view import LiveView

    view = LiveView("t", 8, 8, show=False)
    gui = Gui(view)
    assert gui.live
    with gui.sub_window("S", 0, 0, 0.3, 0.2) as w:
        assert w.slider_float("g", 2.0, 0, 10) == 2.0
        assert not w.button("go")
    assert gui.box in view.widget.children  # the panel sits in the view's box
    slider, button = list(gui._widgets.values())
    slider.value = 7.0  # what the browser does when the user drags it
    button.click()
    with gui.sub_window("S", 0, 0, 0.3, 0.2) as w:
        assert w.slider_float("g", 2.0, 0, 10) == 7.0
        assert w.button("go") and not w.button("go")
    with gui.sub_window("S", 0, 0, 0.3, 0.2) as w:
        assert w.slider_float("g", 3.0, 0, 10) == 3.0  # the program set it
    assert slider.value == 3.0


def test_gui_panel_follows_a_new_live_view():
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.ggui.gui_panel import Gui
    from ti_notebook.ui.live_view import LiveView

    views = [LiveView("t", 8, 8, show=False)]
    gui = Gui(lambda: views[-1])
    assert gui.checkbox("on", False) is False
    views.append(LiveView("t", 8, 8, show=False))  # the window drew in a later cell
    widget = next(iter(gui._widgets.values()))
    widget.value = True
    assert gui.checkbox("on", False) is True
    assert gui.box in views[-1].widget.children


def test_frames_go_to_a_live_sink():
    window = ti.ui.Window("t", (6, 4), show_window=False)
    sink = FakeSink([Event(PRESS, "w", (0.5, 0.5))])
    window._presenter.live, window._presenter.sink = True, sink  # as a live view would
    window._presenter.fps_limit = None
    window.get_canvas().set_background_color((0, 1, 0))
    window.show()
    assert len(sink.pushed) == 1 and sink.pushed[0].shape == (4, 6, 3)
    assert sink.pushed[0][0, 0].tolist() == [0, 255, 0]
    assert window.is_pressed("w")  # the view's input reached the window
