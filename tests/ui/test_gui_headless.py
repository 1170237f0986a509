"""ti.GUI without a live view: frame budget, the one-line stop, stored images, events."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import ti_notebook as ti
from tests.ui.fake_sink import FakeSink
from ti_notebook.errors import GUIFrameLimit
from ti_notebook.ui import output
from ti_notebook.ui.frames import Event


def draw(gui, i):
    gui.circles(np.array([[0.2 + 0.1 * i, 0.5]]), radius=3, color=0xED553B)
    gui.show()


def test_running_turns_false_after_max_frames(monkeypatch):
    monkeypatch.setenv("TI_GUI_MAX_FRAMES", "3")
    gui = ti.GUI("t", res=16)
    frames = 0
    while gui.running:
        draw(gui, frames)
        frames += 1
    assert frames == 3 and gui.frame == 3 and not gui.live


def test_loop_without_running_stops_with_one_line(monkeypatch):
    monkeypatch.setenv("TI_GUI_MAX_FRAMES", "2")
    gui = ti.GUI("t", res=16)
    with pytest.raises(GUIFrameLimit) as info:
        for frame in range(20000):
            draw(gui, frame)
    assert gui.frame == 2
    lines = info.value._render_traceback_()
    assert len(lines) == 1 and "TI_GUI_MAX_FRAMES" in lines[0] and "\n" not in str(info.value)


def test_plain_python_has_no_budget(monkeypatch):
    monkeypatch.delenv("TI_GUI_MAX_FRAMES", raising=False)
    gui = ti.GUI("t", res=8, show_gui=False)
    for _ in range(100):
        gui.show()
    assert gui.running and gui.max_frames is None


def run_frames(n=4, record=False):
    gui = ti.GUI("t", res=(24, 16), background_color=0x112F41, show_gui=False, record=record)
    for i in range(n):
        draw(gui, i)
    return gui


def test_png_bytes_deterministic_and_show_file(tmp_path):
    for name in ("a.png", "b.png"):
        gui = run_frames(3)
        gui.circle((0.5, 0.5), radius=5)
        gui.show(file=str(tmp_path / name))
    data = (tmp_path / "a.png").read_bytes()
    assert data == (tmp_path / "b.png").read_bytes()
    assert b"tIME" not in data and b"tEXt" not in data
    gui = ti.GUI("t", res=(24, 16), show_gui=False)
    gui.circle((0.5, 0.5), color=0xFF0000, radius=4)
    gui.show(file=str(tmp_path / "f.png"))
    img = np.asarray(Image.open(tmp_path / "f.png"))
    assert img.shape == (16, 24, 3) and img[8, 12].tolist() == [255, 0, 0]


def test_record_animation_deterministic():
    a, b = run_frames(5, record=True), run_frames(5, record=True)
    gif = a.animation().gif()
    assert gif == b.animation().gif() and gif.startswith(b"GIF89a")
    assert Image.open(io.BytesIO(gif)).n_frames == 5
    assert a.animation()._repr_html_().startswith("<img")


def test_outputs_shown_once_when_budget_ends(monkeypatch):
    shown = []
    monkeypatch.setattr(output, "display_outputs", lambda rgb, anim: shown.append((rgb, anim)))
    monkeypatch.setenv("TI_GUI_MAX_FRAMES", "3")
    gui = ti.GUI("t", res=16, record=True)
    while gui.running:
        draw(gui, gui.frame)
    gui.close()
    assert len(shown) == 1
    rgb, anim = shown[0]
    assert rgb.shape == (16, 16, 3) and len(anim.frames) == 3


def test_events_pressed_cursor_and_escape():
    gui = ti.GUI("t", res=16, show_gui=False)
    gui._sink = FakeSink(
        [
            Event(ti.GUI.PRESS, ti.GUI.LMB, (0.25, 0.75)),
            Event(ti.GUI.MOTION, ti.GUI.MOVE, (0.5, 0.5)),
            Event(ti.GUI.PRESS, "a", (0.5, 0.5)),
        ]
    )
    assert gui.get_cursor_pos() == (0.5, 0.5)
    assert gui.get_event(ti.GUI.PRESS) and gui.event.key == ti.GUI.LMB
    assert gui.is_pressed(ti.GUI.LMB)
    keys = [e.key for e in gui.get_events()]
    assert keys == [ti.GUI.MOVE, "a"] and gui.is_pressed("a")
    assert gui.running
    gui._sink.pending.append(Event(ti.GUI.PRESS, ti.GUI.ESCAPE, (0.5, 0.5)))
    assert not gui.running


def test_widgets_defaults():
    gui = ti.GUI("t", res=16, show_gui=False)
    s = gui.slider("g", 2, 10)
    assert s.value == 2
    s.value = 5
    assert s.value == 5 and gui.label("l").value == 0
    assert gui.button("Go") == "WidgetButton_Go"
