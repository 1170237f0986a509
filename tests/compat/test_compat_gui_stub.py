"""The headless ``ti.GUI`` of ``make compat``: frames, events, widgets, recording."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.compat import gui_stub
from benchmarks.compat.gui_stub import ExampleStopped, StubGap, StubGUI

pytestmark = pytest.mark.unit


class FakeField:
    """Stands for a backend's field: the stub reads it with to_numpy()."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def to_numpy(self):
        return self.values.copy()


@pytest.fixture(autouse=True)
def fresh_session():
    gui_stub.reset(frames=3)
    yield
    gui_stub.reset()


def test_running_turns_false_after_the_frames_and_counts_them():
    gui = StubGUI("t", res=(8, 4))
    shows = 0
    while gui.running:
        gui.show()
        shows += 1
    assert shows == 3 and gui.frame == 3
    assert gui.res == (8, 4)
    assert len(gui_stub.SESSION.show_times) == 3


def test_a_loop_ignoring_running_is_stopped_on_the_next_show():
    gui = StubGUI()
    for _ in range(3):
        gui.show()
    with pytest.raises(ExampleStopped, match="3 frames"):
        gui.show()
    assert not issubclass(ExampleStopped, Exception)  # `except Exception` cannot swallow it


def test_running_false_and_close_end_the_loop():
    gui = StubGUI()
    gui.running = False
    assert not gui.running
    other = StubGUI()
    with other:
        assert other.running
    assert not other.running


def test_no_events_until_the_frames_are_drawn_then_one_escape():
    gui = StubGUI()
    assert not gui.get_event(StubGUI.ESCAPE)
    assert list(gui.get_events()) == []
    for _ in range(3):
        gui.show()
    assert gui.get_event(StubGUI.ESCAPE, StubGUI.EXIT)
    assert gui.event.key == StubGUI.ESCAPE and gui.event.type == StubGUI.PRESS
    assert not gui.get_event(StubGUI.ESCAPE)  # delivered once: inner event loops end


def test_the_exit_event_honours_the_filter():
    gui = StubGUI()
    for _ in range(3):
        gui.show()
    assert not gui.get_event(StubGUI.RELEASE)
    assert not gui.get_event(StubGUI.MOTION)
    assert gui.get_event((StubGUI.PRESS, StubGUI.EXIT))
    assert gui.event.key == StubGUI.EXIT


def test_get_events_with_a_type_filter_yields_escape_for_key_checks():
    gui = StubGUI()
    for _ in range(3):
        gui.show()
    keys = [event.key for event in gui.get_events(StubGUI.PRESS)]
    assert keys == [StubGUI.ESCAPE]


def test_widgets_give_taichis_defaults_and_input_is_idle():
    gui = StubGUI()
    slider = gui.slider("speed", 0.25, 4.0, step=0.25)
    assert slider.value == 0.25
    slider.value = 2.0
    assert slider.value == 2.0
    assert gui.label("n").value == 0
    assert gui.button("reset") == "WidgetButton_reset"
    assert gui.button("go", "go_event") == "go_event"
    assert gui.get_cursor_pos() == (0.5, 0.5)
    assert not gui.is_pressed(StubGUI.LMB, "a")


def test_the_last_shown_frame_is_recorded_under_argument_names():
    gui = StubGUI()
    for frame in range(3):
        gui.circles(np.full((2, 2), frame, np.float32), 2, color=0xFF0000)
        gui.circles(pos=np.zeros((1, 2)), radius=1)
        gui.set_image(FakeField(np.full((4, 4), frame)))
        gui.text("frame", (0, 1))
        gui.show()
    arrays = gui_stub.recorded_arrays()
    np.testing.assert_array_equal(arrays["gui0.circles[0].pos"], np.full((2, 2), 2))
    assert arrays["gui0.circles[0].radius"] == 2
    assert arrays["gui0.circles[0].color"] == 0xFF0000
    assert arrays["gui0.circles.calls"] == 2
    assert arrays["gui0.circles[1].pos"].shape == (1, 2)
    np.testing.assert_array_equal(arrays["gui0.set_image[0].img"], np.full((4, 4), 2))
    assert str(arrays["gui0.text[0].content"]) == "frame"


def test_drawing_after_the_last_show_is_not_the_last_frame():
    gui = StubGUI()
    gui.circle((0.1, 0.2))
    gui.show()
    gui.circle((0.9, 0.9))  # never shown
    np.testing.assert_allclose(gui_stub.recorded_arrays()["gui0.circle[0].pos"], [0.1, 0.2])


def test_a_snapshot_is_taken_at_the_call_so_later_changes_do_not_leak():
    gui = StubGUI()
    positions = np.zeros((2, 2))
    gui.circles(positions)
    positions += 5
    gui.show()
    np.testing.assert_array_equal(gui_stub.recorded_arrays()["gui0.circles[0].pos"], 0)


def test_every_window_records_under_its_own_index():
    first, second = StubGUI(), StubGUI()
    first.line((0, 0), (1, 1))
    second.rect((0, 1), (1, 0), radius=3)
    first.show()
    second.show()
    assert {"gui0.line[0].begin", "gui1.rect[0].topleft"} <= set(gui_stub.recorded_arrays())


def test_arguments_that_are_not_arrays_are_left_out():
    gui = StubGUI()
    gui.circles([[0.0, 0.0], [1.0]], palette=None)  # ragged: not an array
    gui.show()
    assert set(gui_stub.recorded_arrays()) == {
        "gui0.circles.calls",
        "gui0.circles[0].radius",
        "gui0.circles[0].color",
    }


def test_a_backend_error_in_to_numpy_reaches_the_example():
    class Broken:
        def to_numpy(self):
            raise RuntimeError("the backend cannot read this field")

    with pytest.raises(RuntimeError, match="cannot read"):
        StubGUI().set_image(Broken())


def test_an_unstubbed_attribute_names_the_harness():
    with pytest.raises(StubGap, match=r"GUI\.get_canvas is not stubbed .*harness"):
        StubGUI().get_canvas()
    assert issubclass(StubGap, AttributeError)


def test_locals_of_the_example_are_kept_at_each_show(tmp_path):
    example = tmp_path / "example.py"
    gui_stub.reset(frames=2, example_file=str(example))
    source = "def main(gui, marker):\n    gui.show()\n"
    namespace = {}
    exec(compile(source, str(example), "exec"), namespace)
    namespace["main"](StubGUI(), "kept")
    assert gui_stub.SESSION.local_frames[0][0] == "main"
    assert gui_stub.SESSION.local_frames[0][1]["marker"] == "kept"


def test_a_window_the_backend_opens_itself_is_neither_recorded_nor_timed():
    backend_code = (
        "def imshow(gui_class, img):\n"
        "    gui = gui_class()\n    gui.set_image(img)\n    gui.show()\n"
    )
    namespace = {"__name__": "taichi.tools.image"}
    exec(compile(backend_code, "image.py", "exec"), namespace)
    namespace["imshow"](StubGUI, np.zeros((2, 2)))
    assert gui_stub.recorded_arrays() == {} and gui_stub.SESSION.show_times == []
    example = StubGUI()  # the example's own window is still the first one
    example.circle((0.5, 0.5))
    example.show()
    assert "gui0.circle[0].pos" in gui_stub.recorded_arrays()
    assert len(gui_stub.SESSION.show_times) == 1
