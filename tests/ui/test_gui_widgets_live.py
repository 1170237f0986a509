"""ti.GUI's slider, label and button: values kept headless, ipywidgets under a live view
(a LiveView built without a browser) whose changes reach the loop."""

from __future__ import annotations

import pytest

import ti_notebook as ti
from ti_notebook.ui.frames import HeadlessSink

pytestmark = pytest.mark.unit


def live_gui(name: str = "t"):
    """A headless GUI given a live view, as a notebook whose frontend shows widgets would."""
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.live_view import LiveView

    gui = ti.GUI(name, res=8, show_gui=False)
    view = LiveView(name, 8, 8, show=False)
    gui._presenter.live, gui._presenter.sink = True, view
    gui._presenter.fps_limit = None
    return gui, view


def panel_widgets(view) -> list:
    """The ipywidgets in the view's box after the picture (the panel's sections)."""
    import ipywidgets

    found = []
    for child in view.widget.children[3:]:  # title row, picture, output come first
        for section in child.children:
            found += [w for w in section.children if not isinstance(w, ipywidgets.HTML)]
    return found


def test_headless_values_follow_taichi():
    gui = ti.GUI("t", res=8, show_gui=False)
    gravity = gui.slider("gravity", 0, 10, step=0.5)
    fps = gui.label("fps")
    assert gravity.value == 0.0 and isinstance(gravity.value, float)  # Taichi keeps floats
    gravity.value = 4
    assert gravity.value == 4.0
    assert fps.value == 0
    fps.value = 59.5
    assert fps.value == 59.5
    assert gui.button("reset") == "WidgetButton_reset"
    assert gui.button("go", "launch") == "launch"
    assert gui._widgets.panel.box is None  # no view: no ipywidgets made
    gui.show()
    assert not gui.has_key_event()  # nobody can click a headless button


def test_live_widgets_sit_under_the_view_in_declaration_order():
    import ipywidgets

    gui, view = live_gui()
    gui.slider("gravity", 0, 10)
    gui.label("fps")
    gui.button("reset")
    assert gui._widgets.panel.box in view.widget.children
    slider, label, button = panel_widgets(view)
    assert isinstance(slider, ipywidgets.FloatSlider)
    assert (slider.min, slider.max, slider.step, slider.value) == (0, 10, 1, 0)
    assert slider.description == "gravity"
    assert label.value == "fps: 0"
    assert isinstance(button, ipywidgets.Button) and button.description == "reset"


def test_a_slider_moved_in_the_page_reaches_the_loop_and_the_loop_moves_it():
    gui, view = live_gui()
    gravity = gui.slider("gravity", 0, 10, step=0.1)
    (slider,) = panel_widgets(view)
    slider.value = 9.8  # what the browser's message does while the loop polls
    assert gravity.value == pytest.approx(9.8)
    gravity.value = 2.5  # the program sets it: the page shows it
    assert slider.value == 2.5 and gravity.value == 2.5
    gravity.value = 50  # ipywidgets keeps a slider in its range, and so does the handle
    assert slider.value == 10 and gravity.value == 10


def test_a_label_shows_the_value_the_loop_sets():
    gui, view = live_gui()
    fps = gui.label("fps")
    (label,) = panel_widgets(view)
    for value, shown in ((59.94, "fps: 59.94"), (0.1 + 0.2, "fps: 0.3"), ("slow", "fps: slow")):
        fps.value = value
        assert label.value == shown and fps.value == value


def test_a_button_click_is_a_press_event_with_its_name():
    gui, view = live_gui()
    reset = gui.button("reset")
    launch = gui.button("go", "launch")
    reset_button, go_button = panel_widgets(view)
    reset_button.click()
    go_button.click()
    gui.show()
    keys = [(e.type, e.key) for e in gui.get_events()]
    assert keys == [(ti.GUI.PRESS, reset), (ti.GUI.PRESS, launch)]
    go_button.click()
    assert gui.get_event(ti.GUI.PRESS) and gui.event.key == "launch"
    assert not gui.get_event()
    assert gui.running  # a button is not a stop


def test_widgets_move_to_a_view_opened_later():
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.live_view import LiveView

    gui = ti.GUI("t", res=8, show_gui=False)
    gravity = gui.slider("gravity", 0, 10)
    gravity.value = 3
    gui.show()  # headless: nothing made yet
    assert gui._widgets.panel.box is None
    first = LiveView("t", 8, 8, show=False)
    gui._presenter.live, gui._presenter.sink = True, first  # a view opened in a later cell
    gui._presenter.fps_limit = None
    gui.show()
    (slider,) = panel_widgets(first)
    assert slider.value == 3  # made with the value the loop gave it
    slider.value = 7
    second = LiveView("t", 8, 8, show=False)
    gui._presenter.sink = second  # and one more cell later
    gui.show()
    assert panel_widgets(second) == [slider] and gravity.value == 7
    gui._presenter.live, gui._presenter.sink = False, HeadlessSink()
    assert gravity.value == 7  # the widget keeps the user's value


def test_ggui_texts_show_what_this_frame_declared():
    """``w.text(f"frame {i}")`` every frame is one label that changes, not one more
    label a frame; a text the frame no longer declares is hidden."""
    pytest.importorskip("jupyter_rfb")
    from ti_notebook.ui.ggui.gui_panel import Gui
    from ti_notebook.ui.live_view import LiveView

    view = LiveView("t", 8, 8, show=False)
    gui = Gui(view)
    for frame in range(5):
        with gui.sub_window("S", 0, 0, 0.3, 0.2) as w:
            w.text(f"frame {frame}")
            if frame < 2:
                w.text("starting")
            assert w.slider_float("g", 1.0, 0, 2) == 1.0
        gui.end_frame()
    texts = [x for x in panel_widgets(view) if not hasattr(x, "min")]
    assert [(t.value, t.layout.display) for t in texts] == [
        ("frame 4", None),
        ("starting", "none"),
    ]
