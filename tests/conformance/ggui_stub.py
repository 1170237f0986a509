"""The headless ``ti.ui`` (GGUI) of Taichi's run: windows that count frames and draw nothing.

Taichi's GGUI needs Vulkan even with ``show_window=False`` (``RuntimeError: Vulkan must
be available for GGUI`` on a machine without it), so Taichi's run of a GGUI example gets
these stand-ins for ``ti.ui.Window``, ``Scene``, ``Camera`` and ``make_camera``. They keep
the frame budget of :mod:`.budget` exactly as :class:`.gui_stub.StubGUI` does (``running``
turns False after ``frames`` shows, one more ``show()`` stops the run), give no input,
and return each widget's old value, so the fields the example computes are what
ti_notebook's run computes. Nothing is drawn: GGUI examples compare fields only.

>>> from tests.conformance import budget
>>> session = budget.reset(frames=2)
>>> window = StubWindow("demo", (8, 8))
>>> canvas, gui = window.get_canvas(), window.get_gui()
>>> while window.running:
...     with gui.sub_window("options", 0.1, 0.1, 0.5, 0.5) as w:
...         speed = w.slider_float("speed", 2.0, 0.0, 10.0)
...     canvas.circles(None, radius=0.1)
...     window.show()
>>> window.frame, speed
(2, 2.0)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tests.conformance import budget
from tests.conformance.budget import ExampleStopped
from tests.conformance.gui_stub import CURSOR, StubGap, read

__all__ = ["StubCamera", "StubScene", "StubWindow", "install"]


class _Strict:
    """A missing attribute is a gap in the harness, named as such."""

    def __getattr__(self, name: str) -> Any:
        raise StubGap(
            f"compat GGUI stub: {type(self).__name__.removeprefix('Stub')}.{name} is not "
            "stubbed (a gap in the harness, not in the backend)"
        )


class StubCanvas(_Strict):
    """``window.get_canvas()``: reads what it is given, draws nothing."""

    def set_background_color(self, color: Any) -> None:
        """Nothing to colour."""

    def set_image(self, img: Any) -> None:
        read(img)

    def circles(self, centers: Any, radius: float, color: Any = None, **kwargs: Any) -> None:
        read(centers)

    def lines(self, vertices: Any, width: float, indices: Any = None, **kwargs: Any) -> None:
        read(vertices)

    def triangles(self, vertices: Any, color: Any = None, indices: Any = None, **kwargs) -> None:
        read(vertices)

    def scene(self, scene: StubScene) -> None:
        """The scene is drawn nowhere."""


class StubScene(_Strict):
    """``window.get_scene()`` / ``ti.ui.Scene()``: reads what it is given, draws nothing."""

    def set_camera(self, camera: Any) -> None:
        self.camera = camera

    def point_light(self, pos: Any, color: Any) -> None:
        """No light to place."""

    def ambient_light(self, color: Any) -> None:
        """No light to set."""

    def particles(self, centers: Any, radius: float, **kwargs: Any) -> None:
        read(centers)

    def mesh(self, vertices: Any, indices: Any = None, **kwargs: Any) -> None:
        read(vertices)

    def mesh_instance(self, vertices: Any, indices: Any = None, **kwargs: Any) -> None:
        read(vertices)

    def lines(self, vertices: Any, width: float, indices: Any = None, **kwargs: Any) -> None:
        read(vertices)


class StubCamera(_Strict):
    """``ti.ui.Camera()``: keeps its settings; with no input, user tracking moves nothing."""

    def __init__(self) -> None:
        self.curr_position, self.curr_lookat, self.curr_up = (0.0, 0.0, 0.0), (0, 0, 1), (0, 1, 0)
        self.settings: dict[str, Any] = {}

    def position(self, x: float, y: float, z: float) -> None:
        self.curr_position = (x, y, z)

    def lookat(self, x: float, y: float, z: float) -> None:
        self.curr_lookat = (x, y, z)

    def up(self, x: float, y: float, z: float) -> None:
        self.curr_up = (x, y, z)

    def _setting(name: str):  # noqa: N805 - builds methods at class creation
        def set_value(self: StubCamera, value: Any) -> None:
            self.settings[name] = value

        return set_value

    fov, projection_mode = _setting("fov"), _setting("projection_mode")
    left, right = _setting("left"), _setting("right")
    top, bottom = _setting("top"), _setting("bottom")
    z_near, z_far = _setting("z_near"), _setting("z_far")

    def track_user_inputs(self, window: Any, movement_speed: float = 1.0, yaw_speed: float = 2.0,
                          pitch_speed: float = 2.0, hold_key: Any = None) -> None:  # fmt: skip
        """No key is held and the cursor stays put: the camera stays where it is."""


class StubImGui(_Strict):
    """``window.get_gui()``: every widget keeps its old value; no button is clicked."""

    @contextlib.contextmanager
    def sub_window(self, name: str, x: float, y: float, width: float, height: float
                   ) -> Iterator[StubImGui]:  # fmt: skip
        yield self

    def begin(self, name: str, x: float, y: float, width: float, height: float) -> None:
        """Opens nothing."""

    def end(self) -> None:
        """Closes nothing."""

    def text(self, text: str, color: Any = None) -> None:
        """Shows nothing."""

    # converted as Taichi's (and ti_notebook's headless) widgets return them
    def checkbox(self, text: str, old_value: bool) -> bool:
        return bool(old_value)

    def slider_int(self, text: str, old_value: int, minimum: int, maximum: int) -> int:
        return int(old_value)

    def slider_float(self, text: str, old_value: float, minimum: float, maximum: float) -> float:
        return float(old_value)

    def color_edit_3(self, text: str, old_value: Any) -> tuple[float, ...]:
        return tuple(float(v) for v in old_value)[:3]

    def button(self, text: str) -> bool:
        return False


class StubWindow(_Strict):
    """Taichi's ``ti.ui.Window`` without Vulkan; see the module docstring."""

    def __init__(self, name: str, res: Any, vsync: bool = False, show_window: bool = True,
                 fps_limit: int = 1000, pos: Any = (100, 100)) -> None:  # fmt: skip
        self.name, self.res = name, tuple(res)
        self.frame = 0
        self.event = None
        self.fps_limit = fps_limit
        self._closed = False
        self._canvas, self._scene, self._gui = StubCanvas(), StubScene(), StubImGui()

    @property
    def running(self) -> bool:
        """True until ``frames`` shows or ``running = False``."""
        return not self._closed and self.frame < budget.current().frames

    @running.setter
    def running(self, value: bool) -> None:
        self._closed = not value

    def show(self) -> None:
        """Ends a frame; past the budget, stops the run."""
        session = budget.current()
        session.capture_locals()
        if self.frame >= session.frames:
            raise ExampleStopped(f"drew past its {session.frames} frames")
        self.frame += 1
        session.note_show()

    def destroy(self) -> None:
        self._closed = True

    def get_canvas(self) -> StubCanvas:
        return self._canvas

    def get_scene(self) -> StubScene:
        return self._scene

    def get_gui(self) -> StubImGui:
        return self._gui

    @property
    def GUI(self) -> StubImGui:  # noqa: N802 - Taichi's name
        return self._gui

    def get_events(self, tag: Any = None) -> list[Any]:
        return []

    def get_event(self, tag: Any = None) -> bool:
        return False

    def is_pressed(self, *keys: Any) -> bool:
        return False

    def get_cursor_pos(self) -> tuple[float, float]:
        return CURSOR

    def get_window_shape(self) -> tuple[int, int]:
        return self.res

    def save_image(self, filename: str) -> None:
        """Writes nothing: Taichi's picture is not what the runs compare."""


def install(ti: Any) -> None:
    """``ti.ui.Window``/``Scene``/``Camera``/``make_camera`` become the stand-ins."""
    ui = ti.ui
    ui.Window, ui.Scene, ui.Camera = StubWindow, StubScene, StubCamera
    ui.make_camera = StubCamera
