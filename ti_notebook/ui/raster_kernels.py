"""``ti.GUI``'s primitives drawn by ti_notebook kernels: Taichi's own one-by-one blending.

Each kernel walks its primitives in order (one serial loop, as Taichi's canvas draws
them) and blends each covered pixel ``p = p * (1 - a) + colour * a`` by the coverage
rules of :mod:`~ti_notebook.ui.raster` (circles, lines; a triangle's pixels take its
colour): the exact sequential result, colours of overlapping primitives included.
The kernels read the canvas's NumPy planes and the primitives' arrays in place
(ndarray arguments: no copy to a field), compile once per session (from the offline
cache after the first run) and draw only while a CPU session runs: they never start a
session of their own, and on a CUDA session the planes would cross the bus twice per
call, so the NumPy splat draws instead. Their launches stay out of the user's kernel
profile, which is about the user's kernels.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu)
>>> planes = np.zeros((3, 8, 8), np.float32)
>>> available()
True
>>> draw_circles(planes, np.array([[0.5, 0.5]]), np.array([3.0]), np.array([[1.0, 0, 0]]))
>>> planes[:, 4, 4].tolist(), planes[0, 4, 7]
([1.0, 0.0, 0.0], np.float32(0.0))
"""

from __future__ import annotations

import numpy as np

from ti_notebook.lang import ops as tm
from ti_notebook.lang import types as _types
from ti_notebook.lang.ndarray import NdarrayType
from ti_notebook.runtime import profiler
from ti_notebook.session import config as _config
from ti_notebook.session.kernel import kernel

_PLANES = NdarrayType(dtype=_types.f32, ndim=3)
_ROWS = NdarrayType(dtype=_types.f32, ndim=2)
_VALUES = NdarrayType(dtype=_types.f32, ndim=1)
_POINTS = NdarrayType(dtype=_types.f64, ndim=2)  # pixel coordinates of lines and triangles
_LENGTHS = NdarrayType(dtype=_types.f64, ndim=1)


@kernel
def _circles(planes: _PLANES, centre: _ROWS, radius: _VALUES, rgb: _ROWS):
    height = planes.shape[1]
    width = planes.shape[2]
    tm.loop_config(serialize=True)  # in call order: a later circle blends over earlier ones
    for k in range(centre.shape[0]):
        cx = centre[k, 0]
        cy = centre[k, 1]
        r = radius[k]
        # |corner - centre| < r needs corners floor(c) - ceil(r) + 1 .. floor(c) + ceil(r)
        reach = tm.cast(tm.ceil(r), _types.i32)
        x0 = tm.cast(tm.floor(cx), _types.i32)
        y0 = tm.cast(tm.floor(cy), _types.i32)
        for y in range(tm.max(y0 + 1 - reach, 0), tm.min(y0 + reach + 1, height)):
            ey = tm.cast(y, _types.f32) - cy
            for x in range(tm.max(x0 + 1 - reach, 0), tm.min(x0 + reach + 1, width)):
                ex = tm.cast(x, _types.f32) - cx
                a = tm.min(r - tm.sqrt(ex * ex + ey * ey), tm.cast(1.0, _types.f32))
                if a > 0:
                    for ch in tm.static(range(3)):
                        planes[ch, y, x] = planes[ch, y, x] * (1 - a) + rgb[k, ch] * a


@kernel
def _lines(planes: _PLANES, a: _POINTS, b: _POINTS, radius: _LENGTHS, rgb: _ROWS):
    height = planes.shape[1]
    width = planes.shape[2]
    tm.loop_config(serialize=True)
    for k in range(a.shape[0]):
        ax, ay, bx, by, r = a[k, 0], a[k, 1], b[k, 0], b[k, 1], radius[k]
        ex, ey = bx - ax, by - ay
        length2 = tm.max(ex * ex + ey * ey, 1e-12)
        x0 = tm.max(tm.cast(tm.floor(tm.min(ax, bx) - r - 1), _types.i32), 0)
        y0 = tm.max(tm.cast(tm.floor(tm.min(ay, by) - r - 1), _types.i32), 0)
        x1 = tm.min(tm.cast(tm.ceil(tm.max(ax, bx) + r), _types.i32), width - 1)
        y1 = tm.min(tm.cast(tm.ceil(tm.max(ay, by) + r), _types.i32), height - 1)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                qx = x + 0.5 - ax
                qy = y + 0.5 - ay
                t = tm.min(tm.max((qx * ex + qy * ey) / length2, 0.0), 1.0)
                dx = qx - ex * t
                dy = qy - ey * t
                a_ = tm.cast(tm.min(r - tm.sqrt(dx * dx + dy * dy), 1.0), _types.f32)
                if a_ > 0:
                    for ch in tm.static(range(3)):
                        planes[ch, y, x] = planes[ch, y, x] * (1 - a_) + rgb[k, ch] * a_


@kernel
def _triangles(planes: _PLANES, a: _POINTS, b: _POINTS, c: _POINTS, rgb: _ROWS):
    height = planes.shape[1]
    width = planes.shape[2]
    tm.loop_config(serialize=True)
    for k in range(a.shape[0]):
        ax, ay, bx, by, cx, cy = a[k, 0], a[k, 1], b[k, 0], b[k, 1], c[k, 0], c[k, 1]
        x0 = tm.max(tm.cast(tm.floor(tm.min(ax, bx, cx)), _types.i32), 0)
        y0 = tm.max(tm.cast(tm.floor(tm.min(ay, by, cy)), _types.i32), 0)
        x1 = tm.min(tm.cast(tm.ceil(tm.max(ax, bx, cx)), _types.i32), width - 1)
        y1 = tm.min(tm.cast(tm.ceil(tm.max(ay, by, cy)), _types.i32), height - 1)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                px = x + 0.5
                py = y + 0.5
                s1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
                s2 = (cx - bx) * (py - by) - (cy - by) * (px - bx)
                s3 = (ax - cx) * (py - cy) - (ay - cy) * (px - cx)
                if (s1 >= 0 and s2 >= 0 and s3 >= 0) or (s1 <= 0 and s2 <= 0 and s3 <= 0):
                    for ch in tm.static(range(3)):
                        planes[ch, y, x] = rgb[k, ch]


def available() -> bool:
    """Whether the kernel may draw now: a CPU session runs (see the module).

    >>> import ti_notebook as ti
    >>> ti.reset()
    >>> available()
    False
    """
    return _config.is_initialized() and _config.current().arch == "cpu"


def draw_circles(planes: np.ndarray, pos: np.ndarray, radius: np.ndarray, rgb: np.ndarray) -> None:
    """Blend circles onto ``planes`` (float32 ``(3, height, width)``, C-contiguous, row 0
    at the bottom): ``pos (n, 2)`` in ``[0, 1]``, ``radius (n,)`` pixels, ``rgb (n, 3)``.

    See the module for an example.
    """
    height, width = planes.shape[1:]
    # f32 products, as the NumPy splat computes them: both paths agree to the last bit
    # (ascontiguousarray: astype keeps a transposed input's Fortran order, which the
    # kernel's ndarray argument refuses; simulation/mpm3d draws such a projection)
    centre = np.ascontiguousarray(pos, np.float32) * np.array([width, height], np.float32)
    radius = np.ascontiguousarray(radius, np.float32)
    rgb = np.ascontiguousarray(rgb, np.float32)
    _launch(_circles, planes, centre, radius, rgb)


def draw_lines(
    planes: np.ndarray, a: np.ndarray, b: np.ndarray, radius: np.ndarray, rgb: np.ndarray
) -> None:
    """Blend segments with round caps from pixel coordinates ``a (n, 2)`` to ``b (n, 2)``
    (f64), ``radius (n,)`` pixels, ``rgb (n, 3)``; the rule of :mod:`~.raster`.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> planes = np.zeros((3, 4, 8), np.float32)
    >>> draw_lines(planes, np.array([[1.0, 2.0]]), np.array([[7.0, 2.0]]), np.array([1.0]),
    ...            np.ones((1, 3)))
    >>> planes[0, :, 4].tolist()
    [0.0, 0.5, 0.5, 0.0]
    """
    rgb = np.ascontiguousarray(rgb, np.float32)
    _launch(_lines, planes, _f64(a), _f64(b), np.ascontiguousarray(radius, np.float64), rgb)


def draw_triangles(
    planes: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, rgb: np.ndarray
) -> None:
    """Fill triangles with corners ``a``, ``b``, ``c`` (each ``(n, 2)`` pixel coordinates,
    f64): a pixel whose centre is inside takes the colour ``rgb (n, 3)``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> planes = np.zeros((3, 4, 4), np.float32)
    >>> corners = np.array([[0.0, 0.0]]), np.array([[4.0, 0.0]]), np.array([[0.0, 4.0]])
    >>> draw_triangles(planes, *corners, np.ones((1, 3)))
    >>> planes[0].astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]
    """
    rgb = np.ascontiguousarray(rgb, np.float32)
    _launch(_triangles, planes, _f64(a), _f64(b), _f64(c), rgb)


def _f64(points: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(points, np.float64)


def _launch(drawing, *args: np.ndarray) -> None:
    recording = profiler.enabled
    profiler.set_enabled(False)  # the user's profile is of the user's kernels
    try:
        drawing(*args)
    finally:
        profiler.set_enabled(recording)
