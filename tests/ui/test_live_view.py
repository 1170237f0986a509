"""The live GUI view without a browser: the widget in a plain Python process, frames
pushed, acknowledgements simulated, jupyter-rfb's event dicts translated."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jupyter_rfb")

from ti_notebook.ui import frames  # noqa: E402
from ti_notebook.ui.frames import MOTION, PRESS, RELEASE, Event, FrameSink  # noqa: E402
from ti_notebook.ui.live_view import LiveView, LiveViewUnavailable, translate_key  # noqa: E402

pytestmark = pytest.mark.unit


def view(width: int = 200, height: int = 100, **kwargs) -> LiveView:
    return LiveView("test", width, height, show=False, **kwargs)


def ack(v: LiveView, index: int | None = None) -> None:
    """What the browser does once it has shown a frame."""
    index = v.rfb._rfb_frame_index if index is None else index
    v.rfb._frame_feedback = {"index": index, "timestamp": 0.0, "localtime": 0.0}


def frame(value: int = 0, w: int = 200, h: int = 100) -> np.ndarray:
    return np.full((h, w, 3), value, np.uint8)


def test_is_a_frame_sink():
    assert isinstance(view(), FrameSink)


def test_outside_a_kernel_the_constructor_says_why():
    with pytest.raises(LiveViewUnavailable, match="no Jupyter kernel"):
        LiveView("t", 8, 8)


def test_without_jupyter_rfb_the_constructor_says_why(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "jupyter_rfb", None)
    with pytest.raises(LiveViewUnavailable, match="pip install jupyter-rfb"):
        view()


def test_frames_are_sent_until_max_in_flight_then_dropped():
    v = view(max_in_flight=2)
    sent = []
    v.rfb.send = lambda msg, buffers=None: sent.append((msg, buffers))
    for k in range(5):
        v.push(frame(k))
    assert (v.frames_sent, v.frames_dropped) == (2, 3)
    assert [m["index"] for m, _ in sent] == [1, 2]
    assert sent[0][0]["mimetype"] == "image/jpeg"
    assert sent[0][1][0][:2] == b"\xff\xd8"  # a JPEG's start marker, as a binary buffer
    ack(v, 1)  # one acknowledged: one more goes out
    v.push(frame(5))
    v.push(frame(6))
    assert (v.frames_sent, v.frames_dropped) == (3, 4)
    ack(v)  # all acknowledged
    v.push(frame(7))
    assert v.frames_sent == 4 and v.in_flight == 1


def test_sent_frames_decode_to_the_pushed_picture():
    import io

    from PIL import Image

    v = view(64, 32)
    sent = []
    v.rfb.send = lambda msg, buffers=None: sent.append(buffers[0])
    rgb = np.zeros((32, 64, 3), np.uint8)
    rgb[:16] = (255, 0, 0)  # top half red: row 0 is the top
    v.push(rgb)
    back = np.asarray(Image.open(io.BytesIO(sent[0])))
    assert back.shape == (32, 64, 3)
    assert back[4, 10, 0] > 240 and back[4, 10, 2] < 20
    assert back[28, 10].max() < 20


def test_the_newest_dropped_frame_goes_out_losslessly_when_the_cell_ends():
    v = view(max_in_flight=1)
    sent = []
    v.rfb.send = lambda msg, buffers=None: sent.append(msg)
    v.push(frame(1))
    v.push(frame(2))  # dropped
    v._after_cell()
    assert [m["mimetype"] for m in sent] == ["image/jpeg", "image/png"]
    v._after_cell()  # nothing new
    assert len(sent) == 2


def test_pointer_events_in_unit_coordinates_with_y_up():
    v = view(200, 100)
    down = {"type": "pointer_down", "x": 50, "y": 25, "button": 1, "buttons": [1]}
    assert v.translate({**down, "modifiers": ["Shift", "Control", "Meta"]}) == Event(
        PRESS, "LMB", (0.25, 0.75), modifier=("Shift", "Control")
    )
    up = {"type": "pointer_up", "x": 200, "y": 100, "button": 2, "modifiers": []}
    assert v.translate(up) == Event(RELEASE, "RMB", (1.0, 0.0))
    middle = {"type": "pointer_down", "x": 0, "y": 0, "button": 3, "modifiers": []}
    assert v.translate(middle) == Event(PRESS, "MMB", (0.0, 1.0))
    move = {"type": "pointer_move", "x": 300, "y": -5, "modifiers": []}  # outside: clamped
    assert v.translate(move) == Event(MOTION, "Motion", (1.0, 1.0))
    assert v.cursor == (1.0, 1.0)
    assert v.translate({"type": "pointer_down", "x": 1, "y": 1, "button": 4}) is None


def test_resize_sets_the_units_of_positions():
    v = view(200, 100)
    v._receive({"type": "resize", "width": 400, "height": 200, "ratio": 2})
    v._receive({"type": "pointer_down", "x": 100, "y": 50, "button": 1, "modifiers": []})
    assert v.events() == [Event(PRESS, "LMB", (0.25, 0.75))]


def test_wheel_reports_taichis_delta():
    v = view()
    wheel = {"type": "wheel", "x": 100, "y": 50, "dx": 0, "dy": -100, "modifiers": []}
    e = v.translate(wheel)
    assert (e.type, e.key, e.pos, e.delta) == (MOTION, "Wheel", (0.5, 0.5), (0, 120))


@pytest.mark.parametrize(
    ("browser", "taichi"),
    [
        ("Escape", frames.ESCAPE),
        (" ", frames.SPACE),
        ("A", "a"),
        ("w", "w"),
        ("Shift", frames.SHIFT),
        ("Control", frames.CTRL),
        ("Alt", frames.ALT),
        ("Enter", frames.RETURN),
        ("Tab", frames.TAB),
        ("Backspace", frames.BACKSPACE),
        ("CapsLock", frames.CAPSLOCK),
        ("ArrowUp", frames.UP),
        ("ArrowDown", frames.DOWN),
        ("ArrowLeft", frames.LEFT),
        ("ArrowRight", frames.RIGHT),
    ],
)
def test_keys_have_taichis_names(browser, taichi):
    assert translate_key(browser) == taichi


def test_key_events_carry_the_cursor_and_modifiers():
    v = view(200, 100)
    v._receive({"type": "pointer_move", "x": 20, "y": 10, "modifiers": []})
    v._receive({"type": "key_down", "key": "D", "modifiers": ["Shift"]})
    v._receive({"type": "key_up", "key": "D", "modifiers": []})
    assert v.events() == [
        Event(MOTION, "Motion", (0.1, 0.9)),
        Event(PRESS, "d", (0.1, 0.9), modifier=("Shift",)),
        Event(RELEASE, "d", (0.1, 0.9)),
    ]
    assert v.events() == []  # handed out once


def test_other_widget_events_are_not_input():
    v = view()
    for kind in ("show", "hide", "pointer_enter", "pointer_leave", "double_click", "char"):
        v._receive({"type": kind, "x": 1, "y": 1, "modifiers": []})
    assert v.events() == []
    assert not v.stopped


def test_escape_and_the_stop_button_stop():
    v = view()
    v._receive({"type": "key_down", "key": "Escape", "modifiers": []})
    assert v.stopped
    assert v.events()[0] == Event(PRESS, frames.ESCAPE, (0.0, 0.0))

    w = view()
    w.stop_button.click()
    assert w.stopped
    assert w.events() == [Event(PRESS, frames.EXIT, (0.0, 0.0))]


def test_close_ends_pushing_and_events():
    v = view()
    sent = []
    v.rfb.send = lambda msg, buffers=None: sent.append(msg)
    v.push(frame(1))
    v.close()
    v.push(frame(2))
    v._receive({"type": "key_down", "key": "a", "modifiers": []})
    v.close()  # twice is fine
    assert len(sent) == 1 and v.frames_sent == 1
