"""``ti.ui.Camera``: where a scene is seen from, and Taichi's mouse/WASDQE controls.

Defaults as Taichi's: at the origin looking down +z, y up, 45° vertical field of view,
``z_near=0.1``, ``z_far=1000``, perspective; orthogonal projection shows ``[left,
right] x [top, bottom]`` (default ``[-1, 1]²``) of the view plane whatever the
distance.

>>> cam = Camera()
>>> cam.position(0, 0, 3); cam.lookat(0, 0, 0)
>>> [round(float(v), 3) for v in cam.get_view_matrix() @ [0, 0, 0, 1]]
[0.0, 0.0, -3.0, 1.0]
"""

from __future__ import annotations

import enum
import math
import time
from typing import Any

import numpy as np

from ti_notebook.ui.ggui import raster3d

__all__ = ["Camera", "ProjectionMode", "make_camera"]


class ProjectionMode(enum.IntEnum):
    """``ti.ui.ProjectionMode.Perspective`` or ``.Orthogonal``.

    >>> ProjectionMode.Orthogonal.value
    1
    """

    Perspective = 0
    Orthogonal = 1


def _vec(x: Any, y: Any = None, z: Any = None) -> np.ndarray:
    if y is None:
        x, y, z = x
    return np.array([float(x), float(y), float(z)], np.float64)


def _normalized(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def _euler_to_vec(yaw: float, pitch: float) -> np.ndarray:
    return np.array(
        [math.sin(yaw) * math.cos(pitch), math.sin(pitch), math.cos(yaw) * math.cos(pitch)]
    )


def _vec_to_euler(v: np.ndarray, eps: float = 1e-6) -> tuple[float, float]:
    v = _normalized(v)
    pitch = math.asin(max(-1.0, min(1.0, float(v[1]))))
    cos_pitch = max(math.sqrt(max(0.0, 1.0 - v[1] * v[1])), eps)
    return math.atan2(v[0] / cos_pitch, v[2] / cos_pitch), pitch


class Camera:
    """Taichi's ``ti.ui.Camera`` (see the module): setters named after the parameters.

    ``curr_position``, ``curr_lookat`` and ``curr_up`` hold the current values.

    >>> cam = Camera()
    >>> cam.fov(60); cam.projection_mode(ProjectionMode.Orthogonal)
    >>> cam.mode, cam.fov_degrees
    (<ProjectionMode.Orthogonal: 1>, 60.0)
    """

    def __init__(self) -> None:
        self.curr_position = _vec(0, 0, 0)
        self.curr_lookat = _vec(0, 0, 1)
        self.curr_up = _vec(0, 1, 0)
        self.mode = ProjectionMode.Perspective
        self.fov_degrees = 45.0
        self.bounds = [-1.0, 1.0, -1.0, 1.0]  # left, right, top, bottom (Taichi's order)
        self.near, self.far = 0.1, 1000.0
        self.last_mouse_x: float | None = None
        self.last_mouse_y: float | None = None
        self.last_time: int | None = None

    def position(self, x: float, y: float, z: float) -> None:
        """Put the camera at ``(x, y, z)``."""
        self.curr_position = _vec(x, y, z)

    def lookat(self, x: float, y: float, z: float) -> None:
        """Aim the camera at ``(x, y, z)``."""
        self.curr_lookat = _vec(x, y, z)

    def up(self, x: float, y: float, z: float) -> None:
        """The direction that shows as up."""
        self.curr_up = _vec(x, y, z)

    def projection_mode(self, mode: ProjectionMode | int) -> None:
        """Perspective (default) or orthogonal projection."""
        self.mode = ProjectionMode(int(mode))

    def fov(self, fov: float) -> None:
        """The vertical field of view in degrees (0 to 180)."""
        self.fov_degrees = float(fov)

    def left(self, left: float) -> None:
        """The orthogonal view's left edge."""
        self.bounds[0] = float(left)

    def right(self, right: float) -> None:
        """The orthogonal view's right edge."""
        self.bounds[1] = float(right)

    def top(self, top: float) -> None:
        """The orthogonal view's top edge (Taichi's default -1, with ``bottom`` 1)."""
        self.bounds[2] = float(top)

    def bottom(self, bottom: float) -> None:
        """The orthogonal view's bottom edge."""
        self.bounds[3] = float(bottom)

    def z_near(self, z_near: float) -> None:
        """Nothing nearer than this is drawn."""
        self.near = float(z_near)

    def z_far(self, z_far: float) -> None:
        """Nothing farther than this is drawn."""
        self.far = float(z_far)

    def get_view_matrix(self) -> np.ndarray:
        """World -> view space, 4x4, acting on column vectors (``glm::lookAt``)."""
        eye = self.curr_position
        f = _normalized(self.curr_lookat - eye)
        s = _normalized(np.cross(f, self.curr_up))
        u = np.cross(s, f)
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = s, u, -f
        m[0, 3], m[1, 3], m[2, 3] = -s @ eye, -u @ eye, f @ eye
        return m

    def get_projection_matrix(self, aspect: float) -> np.ndarray:
        """View -> clip space, 4x4 (OpenGL's convention, y up, depth in [-1, 1])."""
        n, fa = self.near, self.far
        m = np.zeros((4, 4))
        if self.mode == ProjectionMode.Perspective:
            t = math.tan(math.radians(self.fov_degrees) / 2)
            m[0, 0], m[1, 1] = 1 / (aspect * t), 1 / t
            m[2, 2], m[2, 3], m[3, 2] = -(fa + n) / (fa - n), -2 * fa * n / (fa - n), -1
        else:
            left, right, top, bottom = self.bounds
            m[0, 0], m[0, 3] = 2 / (right - left), -(right + left) / (right - left)
            m[1, 1], m[1, 3] = 2 / abs(bottom - top), -(bottom + top) / abs(bottom - top)
            m[2, 2], m[2, 3], m[3, 3] = -2 / (fa - n), -(fa + n) / (fa - n), 1
        return m

    def uniforms(self, width: int, height: int, ambient: Any, lights: int) -> np.ndarray:
        """The rasteriser's uniform block (:data:`raster3d.U`) for a ``width x height`` view."""
        u, U = np.zeros(raster3d.UNIFORMS, np.float32), raster3d.U
        u[U["view"] : U["view"] + 16] = self.get_view_matrix().reshape(-1)
        t = math.tan(math.radians(self.fov_degrees) / 2)
        if self.mode == ProjectionMode.Perspective:
            u[U["sx"]], u[U["sy"]] = 1 / (t * width / height), 1 / t
        else:
            left, right, top, bottom = self.bounds
            u[U["ortho"]] = 1
            u[U["sx"]], u[U["sy"]] = 2 / (right - left), 2 / abs(bottom - top)
            u[U["cx"]], u[U["cy"]] = (right + left) / 2, (bottom + top) / 2
        u[U["near"]], u[U["far"]], u[U["tan_half_fov"]] = self.near, self.far, t
        u[U["ambient"] : U["ambient"] + 3] = ambient
        u[U["lights"]], u[U["width"]], u[U["height"]] = lights, width, height
        u[U["camera"] : U["camera"] + 3] = self.curr_position
        return u

    def track_user_inputs(
        self,
        window: Any,
        movement_speed: float = 1.0,
        yaw_speed: float = 2.0,
        pitch_speed: float = 2.0,
        hold_key: str | None = None,
    ) -> None:
        """Taichi's controls: ``w/s`` forward/back, ``a/d`` left/right, ``e/q`` up/down;
        moving the mouse (while ``hold_key`` is held, if given) turns the camera. Speeds
        are per 1/60 s of wall time between calls, as Taichi's."""
        front = _normalized(self.curr_lookat - self.curr_position)
        left = np.cross(self.curr_up, front)
        up = self.curr_up
        now = time.perf_counter_ns()
        if self.last_time is None:
            self.last_time = now
        elapsed = (now - self.last_time) * 1e-9
        self.last_time = now
        step = movement_speed * elapsed * 60.0
        change = np.zeros(3)
        for key, direction in (("w", front), ("s", -front), ("a", left)):
            if window.is_pressed(key):
                change += direction * step
        for key, direction in (("d", -left), ("e", up), ("q", -up)):
            if window.is_pressed(key):
                change += direction * step
        self.curr_position = self.curr_position + change
        mouse_x, mouse_y = window.get_cursor_pos()
        if hold_key is None or window.is_pressed(hold_key):
            if self.last_mouse_x is None or self.last_mouse_y is None:
                self.last_mouse_x, self.last_mouse_y = mouse_x, mouse_y
            dx, dy = mouse_x - self.last_mouse_x, mouse_y - self.last_mouse_y
            yaw, pitch = _vec_to_euler(front)
            yaw -= dx * yaw_speed * elapsed * 60.0
            pitch += dy * pitch_speed * elapsed * 60.0
            limit = math.pi / 2 * 0.99
            front = _euler_to_vec(yaw, max(-limit, min(limit, pitch)))
        self.curr_lookat = self.curr_position + front
        self.last_mouse_x, self.last_mouse_y = mouse_x, mouse_y


def make_camera() -> Camera:
    """A new :class:`Camera` (Taichi's older spelling).

    >>> make_camera().fov_degrees
    45.0
    """
    return Camera()
