"""``ti.GUI``'s whole Taichi 1.7 surface: every public name, and the array drawings
(point, arrow and vector fields, contours, ``cook_image``) against Taichi's own pixels."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.ui.gui_fields import field_base

# Taichi 1.7.4's public ti.GUI names (checked against Taichi below when it is installed)
TAICHI_GUI_NAMES = {
    "ALT", "BACKSPACE", "CAPSLOCK", "CTRL", "DOWN", "ESCAPE", "EXIT", "Event",
    "EventFilter", "LEFT", "LMB", "MMB", "MOTION", "MOVE", "PRESS", "RELEASE", "RETURN",
    "RIGHT", "RMB", "SHIFT", "SPACE", "TAB", "UP", "WHEEL", "WidgetValue", "arrow",
    "arrow_field", "arrows", "button", "circle", "circles", "clear", "close", "contour",
    "cook_image", "fps_limit", "get_cursor_pos", "get_event", "get_events", "get_image",
    "get_key_event", "has_key_event", "is_pressed", "label", "line", "lines",
    "point_field", "rect", "running", "set_image", "show", "slider", "text", "triangle",
    "triangles", "vector_field",
}  # fmt: skip
# waits for a key: headless, none ever comes, so ti_notebook leaves it out rather than hang
NOT_PROVIDED = {"get_key_event"}
needs_taichi = pytest.mark.skipif(importlib.util.find_spec("taichi") is None, reason="no taichi")


def headless(res=(40, 32)):
    return ti.GUI("o", res=res, background_color=0x112F41, show_gui=False)


@pytest.mark.unit
def test_every_public_name_of_taichis_gui_is_there():
    missing = sorted(n for n in TAICHI_GUI_NAMES - NOT_PROVIDED if not hasattr(ti.GUI, n))
    assert missing == []


@pytest.mark.taichi
@needs_taichi
def test_the_name_list_is_taichis():
    script = (
        "import json, sys\nfrom taichi.ui.gui import GUI\n"
        "json.dump(sorted(n for n in vars(GUI) if not n.startswith('_') "
        "and n != 'get_bool_environ'), sys.stdout)"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert set(json.loads(run.stdout.splitlines()[-1])) == TAICHI_GUI_NAMES


@pytest.mark.unit
def test_event_filter_matches_pairs_types_and_keys_as_taichis():
    press_a = ti.GUI.Event(ti.GUI.PRESS, "a", (0.0, 0.0))
    assert ti.GUI.EventFilter((ti.GUI.PRESS, "a")).match(press_a)
    assert ti.GUI.EventFilter(ti.GUI.PRESS).match(press_a)
    assert ti.GUI.EventFilter("a").match(press_a)
    assert not ti.GUI.EventFilter((ti.GUI.RELEASE, "a"), "b").match(press_a)


@pytest.mark.unit
def test_point_field_puts_a_circle_at_each_grid_centre():
    gui = headless((8, 8))
    radius = np.zeros((2, 2))
    radius[1, 0] = 1.0  # only the right-bottom cell's point has a size
    gui.point_field(radius, color=0xFF0000)
    red = np.argwhere((gui.get_image()[:, :, :3] == [1, 0, 0]).all(axis=2))
    assert red.tolist() == [[6, 2]]  # at (0.75, 0.25) * 8; radius 0 draws nothing
    np.testing.assert_allclose(
        field_base(2, 2, 0.5), [[0.25, 0.25], [0.25, 0.75], [0.75, 0.25], [0.75, 0.75]]
    )


@pytest.mark.unit
def test_bad_shapes_are_value_errors_that_say_what_is_expected():
    gui = headless()
    with pytest.raises(ValueError, match=r"direction must have shape \(w, h, 2\)"):
        gui.arrow_field(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2-D field of 2-vectors"):
        gui.vector_field(np.zeros((4, 4, 3)))
    with pytest.raises(ValueError, match="res is 40x32"):
        gui.cook_image(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="int32 not supported"):
        gui.cook_image(np.zeros((40, 32), np.int32))


@pytest.mark.unit
def test_cook_image_gives_taichis_float_rgba():
    gui = headless((2, 1))
    cooked = gui.cook_image(np.array([[[255, 0, 0]], [[0, 51, 0]]], np.uint8))
    assert cooked.dtype == np.float32 and cooked.shape == (2, 1, 4)
    np.testing.assert_allclose(cooked[:, 0], [[1, 0, 0, 0], [0, 0.2, 0, 0]])
    grey = gui.cook_image(np.array([[0.5], [1.0]], np.float64))
    np.testing.assert_allclose(grey[1, 0], [1, 1, 1, 1])


CALLS = """
gui.point_field(np.array([[1.0, 2.0], [3.0, 1.5]]), color=0xED553B)
yy, xx = np.meshgrid(np.linspace(-1, 1, 32), np.linspace(-1, 1, 40))
v = np.stack([-yy, xx], axis=-1)
gui.vector_field(V(v), arrow_spacing=8, color=0x00FF00)
gui.arrow_field(np.full((3, 2, 2), 0.1), radius=1, color=0xFFFF00)
a = gui.get_image()[:, :, :3]
gui.contour(V(np.add.outer(np.arange(20.0), np.arange(16.0))), normalize=True)
b = gui.get_image()[:, :, :3]
c = gui.cook_image(np.arange(40 * 32 * 3, dtype=np.uint16).reshape(40, 32, 3))
"""
SCRIPT = f"""
import json, sys, numpy as np, taichi as ti
ti.init(arch=ti.cpu, log_level=ti.ERROR)
class V:  # a field stand-in: Taichi's vector_field and contour call to_numpy()
    def __init__(self, a): self.a = a
    def to_numpy(self): return self.a
gui = ti.GUI("o", res=(40, 32), background_color=0x112F41, show_gui=False)
{CALLS}
json.dump([a.tolist(), b.tolist(), c.tolist()], sys.stdout)
"""


@pytest.mark.taichi
@needs_taichi
def test_array_drawings_give_taichis_pixels():
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    want_fields, want_contour, want_cooked = (
        np.array(x) for x in json.loads(run.stdout.splitlines()[-1])
    )

    class V:
        def __init__(self, a):
            self.a = a

        def to_numpy(self):
            return self.a

    names = {"gui": headless(), "np": np, "V": V}
    exec(CALLS, names)
    diff = np.abs(names["a"] - want_fields).max(axis=2)
    # an antialiased stroke's edge pixel may land a step apart from Taichi's
    assert np.count_nonzero(diff > 0.1) <= 0.01 * diff.size, np.argwhere(diff > 0.1)
    assert np.abs(names["b"] - want_contour).max() < 1e-6
    np.testing.assert_allclose(names["c"], want_cooked)


@pytest.mark.unit
def test_rgb_to_hex_truncates_and_clips_like_taichi_and_takes_arrays():
    assert ti.rgb_to_hex([1.0, 0.5, 0.0]) == 0xFF7F00  # 0.5 * 255 = 127.5 truncates to 127
    assert ti.rgb_to_hex([2.0, -1.0, 0.999]) == 0xFF00FE
    k = np.array([0.0, 0.25, 1.0])
    np.testing.assert_array_equal(ti.rgb_to_hex([k, k * 0, k * 0]), [0x000000, 0x3F0000, 0xFF0000])
    assert ti.hex_to_rgb(0x3366FF) == (0.2, 0.4, 1.0)


@pytest.mark.taichi
@needs_taichi
def test_colour_helpers_agree_with_taichis():
    script = (
        "import json, sys, numpy as np\nfrom taichi.ui.gui import rgb_to_hex, hex_to_rgb\n"
        "k = np.linspace(-0.2, 1.2, 15)\n"
        "json.dump([rgb_to_hex([k, k[::-1], k * 0.5]).tolist(), hex_to_rgb(0x12AB7F)], sys.stdout)"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    want_hex, want_rgb = json.loads(run.stdout.splitlines()[-1])
    k = np.linspace(-0.2, 1.2, 15)
    assert ti.rgb_to_hex([k, k[::-1], k * 0.5]).tolist() == want_hex
    assert list(ti.hex_to_rgb(0x12AB7F)) == want_rgb
