"""ti_notebook's own ``ti.GUI`` in ``make compat``: the budget, the observer, the pictures.

In this process, on a subclass (the observer wraps ``show`` of the class it is given, and
ti_notebook's own class must stay untouched for the other tests).
"""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook
from tests.conformance import budget, observe
from ti_notebook.errors import GUIFrameLimit

pytestmark = pytest.mark.unit


@pytest.fixture
def gui_class(monkeypatch):
    monkeypatch.delenv("TI_GUI_LIVE", raising=False)
    monkeypatch.setenv(observe.BUDGET_ENV, "")  # restored after the test
    observe.set_budget(3)
    budget.reset(frames=3)

    class ObservedGUI(ti_notebook.GUI):
        pass

    return ObservedGUI


def test_the_budget_ends_ti_notebooks_loops_as_the_stand_ins_do(gui_class):
    observer = observe.Observer()
    observer.wrap(gui_class)
    gui, steps = gui_class("g", res=(8, 4)), 0
    with pytest.raises(observe.stop_types(ti_notebook)):
        while True:
            steps += 1
            gui.show()
    assert steps == 4 and gui.frame == 3
    assert budget.current().frames_shown == 3  # the show that stopped is not a frame
    assert not gui.running
    assert GUIFrameLimit in observe.stop_types(ti_notebook)


def test_wrapping_twice_notes_each_show_once(gui_class):
    observer = observe.Observer()
    observer.wrap(gui_class)
    observer.wrap(gui_class)
    gui_class("g", res=(4, 4)).show()
    assert budget.current().frames_shown == 1
    assert gui_class.show is not ti_notebook.GUI.show
    assert "show" not in vars(ti_notebook.GUI) or ti_notebook.GUI.show.__name__ == "show"


def test_each_window_leaves_its_last_frame_as_a_png(gui_class, tmp_path):
    from PIL import Image

    observer = observe.Observer()
    observer.wrap(gui_class)
    first = gui_class("first", res=(6, 4), background_color=0x00FF00)
    second = gui_class("second", res=(4, 4))
    while first.running:
        first.circle((0.5, 0.5), color=0xFF0000, radius=1)
        first.show()
    second.show()
    pictures = observer.save_pictures(tmp_path, "simulation/demo")
    assert [p["window"] for p in pictures] == ["ObservedGUI 'first'", "ObservedGUI 'second'"]
    assert pictures[0]["size"] == [6, 4] and pictures[0]["frames"] == 3
    assert pictures[0]["file"] == str(tmp_path / "simulation__demo.png")
    rgb = np.asarray(Image.open(pictures[0]["file"]))
    np.testing.assert_array_equal(rgb, first.last_frame)
    assert rgb[0, 0].tolist() == [0, 255, 0]  # the background
    assert (rgb == [255, 0, 0]).all(axis=-1).any()  # the circle
    # the second showed 1 of its 3 frames: headless plain Python keeps none before the last
    assert pictures[1]["size"] is None and pictures[1]["missing"] == "kept no last frame"


def test_window_classes_finds_ti_gui_and_ti_ui_window_when_there():
    classes = observe.window_classes(ti_notebook)
    assert classes[0] is ti_notebook.GUI
    assert (len(classes) == 2) == isinstance(getattr(ti_notebook.ui, "Window", None), type)
