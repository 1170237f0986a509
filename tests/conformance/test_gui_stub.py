"""Taichi's headless ``ti.GUI`` and ``ti.ui.Window`` in ``make compat``: the frame budget
they share with ti_notebook's own GUI, no input, widgets' defaults."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conformance import budget, ggui_stub
from tests.conformance.budget import ExampleStopped
from tests.conformance.gui_stub import StubGap, StubGUI

pytestmark = pytest.mark.unit


class FakeField:
    """Stands for a backend's field: the stub reads it with to_numpy()."""

    def __init__(self, values):
        self.values = np.asarray(values)
        self.reads = 0

    def to_numpy(self):
        self.reads += 1
        return self.values.copy()


@pytest.fixture(autouse=True)
def fresh_session():
    budget.reset(frames=3)
    yield
    budget.reset()


def test_running_turns_false_after_the_frames_and_counts_them():
    gui = StubGUI("t", res=(8, 4))
    shows = 0
    while gui.running:
        gui.show()
        shows += 1
    assert shows == 3 and gui.frame == 3
    assert gui.res == (8, 4)
    assert budget.current().frames_shown == 3


def test_a_loop_ignoring_running_is_stopped_on_the_next_show():
    gui = StubGUI()
    for _ in range(3):
        gui.show()
    with pytest.raises(ExampleStopped, match="3 frames"):
        gui.show()
    assert budget.current().frames_shown == 3  # the stopped show is not a frame
    assert not issubclass(ExampleStopped, Exception)  # `except Exception` cannot swallow it


def test_running_false_and_close_end_the_loop():
    gui = StubGUI()
    gui.running = False
    assert not gui.running
    other = StubGUI()
    with other:
        assert other.running
    assert not other.running


@pytest.mark.parametrize("steps_before_show", [0, 1])
def test_an_escape_loop_takes_as_many_steps_as_ti_notebooks_headless_gui(steps_before_show):
    """No event ever comes: `while True: <events>; step(); gui.show()` steps frames + 1
    times and ends at the show, as ti_notebook's GUI with TI_GUI_MAX_FRAMES does."""
    gui, steps = StubGUI(), 0
    with pytest.raises(ExampleStopped):
        while True:
            for e in gui.get_events(StubGUI.PRESS):
                if e.key in (StubGUI.ESCAPE, StubGUI.EXIT):
                    raise AssertionError("no input arrives headless")
            steps += 1
            gui.show()
    assert steps == 4
    assert not gui.get_event(StubGUI.ESCAPE) and not gui.has_key_event()


def test_widgets_give_taichis_defaults_and_input_is_idle():
    gui = StubGUI()
    slider = gui.slider("speed", 0.25, 4.0, step=0.25)
    assert slider.value == 0.25
    slider.value = 2.0
    assert slider.value == 2.0
    assert gui.label("n").value == 0
    assert gui.button("reset") == "WidgetButton_reset"
    assert gui.button("go", "go_event") == "go_event"
    assert gui.get_cursor_pos() == (0.0, 0.0)  # ti_notebook's headless cursor
    assert not gui.is_pressed(StubGUI.LMB, "a")


def test_drawn_fields_are_read_as_a_real_gui_reads_them():
    gui, field = StubGUI(), FakeField(np.zeros((2, 2)))
    gui.circles(field, radius=2, color=0xFF0000)
    gui.set_image(field)
    assert field.reads == 2

    class Broken:
        def to_numpy(self):
            raise RuntimeError("the backend cannot read this field")

    with pytest.raises(RuntimeError, match="cannot read"):
        gui.set_image(Broken())


def test_an_unstubbed_attribute_names_the_harness():
    with pytest.raises(StubGap, match=r"GUI\.get_canvas is not stubbed .*harness"):
        StubGUI().get_canvas()
    assert issubclass(StubGap, AttributeError)


def test_locals_of_the_example_are_kept_at_each_show(tmp_path):
    example = tmp_path / "example.py"
    budget.reset(frames=2, example_file=str(example))
    source = "def main(gui, marker):\n    gui.show()\n"
    namespace = {}
    exec(compile(source, str(example), "exec"), namespace)
    namespace["main"](StubGUI(), "kept")
    assert budget.current().local_frames[0][0] == "main"
    assert budget.current().local_frames[0][1]["marker"] == "kept"


def test_a_window_the_backend_opens_itself_is_not_timed():
    backend_code = (
        "def imshow(gui_class, img):\n"
        "    gui = gui_class()\n    img = gui.cook_image(img)\n"
        "    while gui.running:\n        gui.set_image(img)\n        gui.show()\n"
    )
    namespace = {"__name__": "taichi.tools.image"}
    exec(compile(backend_code, "image.py", "exec"), namespace)
    namespace["imshow"](StubGUI, np.zeros((2, 2)))
    assert budget.current().frames_shown == 0
    example = StubGUI()
    example.show()
    assert budget.current().frames_shown == 1


def test_a_ggui_window_keeps_the_same_budget_and_stops_the_same_way():
    window = ggui_stub.StubWindow("w", (8, 8), vsync=True)
    frames = 0
    while window.running:
        window.show()
        frames += 1
    assert frames == 3 and window.frame == 3
    with pytest.raises(ExampleStopped):
        window.show()
    assert budget.current().frames_shown == 3


def test_ggui_widgets_keep_their_old_values_and_no_input_arrives():
    window = ggui_stub.StubWindow("w", (8, 8))
    gui = window.get_gui()
    with gui.sub_window("options", 0.05, 0.05, 0.2, 0.2) as w:
        assert w.slider_float("x", 1, 0, 1) == 1.0 and isinstance(
            w.slider_float("x", 1, 0, 1), float
        )
        assert w.slider_int("n", 3.0, 0, 10) == 3 and isinstance(w.slider_int("n", 3.0, 0, 9), int)
        assert w.checkbox("on", 1) is True
        assert w.color_edit_3("c", [1, 0, 0]) == (1.0, 0.0, 0.0)
        assert not w.button("reset")
    assert window.get_events("Press") == []
    assert not window.get_event() and window.event is None
    assert not window.is_pressed("a", "LMB") and window.get_cursor_pos() == (0.0, 0.0)


def test_ggui_canvas_and_scene_read_their_fields_and_the_camera_stays_put():
    window = ggui_stub.StubWindow("w", (8, 8))
    field = FakeField(np.zeros((4, 3)))
    canvas, scene = window.get_canvas(), window.get_scene()
    canvas.set_background_color((1, 1, 1))
    canvas.circles(field, radius=0.1, color=(1, 0, 0))
    scene.particles(field, radius=0.01, per_vertex_color=None)
    scene.mesh(field, indices=None, color=(0.5, 0.5, 0.5), two_sided=True)
    canvas.scene(scene)
    assert field.reads == 3
    camera = ggui_stub.StubCamera()
    camera.position(0.5, 1.0, 2.0)
    camera.fov(55)
    camera.track_user_inputs(window, movement_speed=0.03, hold_key="RMB")
    assert camera.curr_position == (0.5, 1.0, 2.0)
    with pytest.raises(StubGap, match=r"Scene\.volume is not stubbed"):
        scene.volume(field)


def test_install_replaces_taichis_ggui_classes():
    import types

    ti = types.SimpleNamespace(ui=types.SimpleNamespace(Window=None, PRESS="Press"))
    ggui_stub.install(ti)
    assert ti.ui.Window is ggui_stub.StubWindow and ti.ui.make_camera is ggui_stub.StubCamera
    assert ti.ui.PRESS == "Press"  # Taichi's constants stay
