"""``ti.ui.Canvas``: a window's 2-D drawing surface (``window.get_canvas()``).

Positions are in ``[0, 1]²`` with y up; a circle's ``radius`` and a line's ``width``
are fractions of the window's height (Taichi's shaders); colours are RGB floats in
``[0, 1]``. Each call draws at once, in call order (later draws cover earlier ones),
through :mod:`ti_notebook.ui.ggui.raster2d`; ``canvas.scene(scene)`` draws a 3-D scene
over what is there. The frame starts as the background colour.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu)
>>> window = ti.ui.Window("demo", (64, 32), show_window=False)
>>> canvas = window.get_canvas()
>>> canvas.set_background_color((0, 0, 1))
>>> canvas.circles(np.array([[0.5, 0.5]], np.float32), radius=0.2, color=(1, 0, 0))
>>> img = window.get_image_buffer_as_numpy()
>>> img[32, 16].tolist(), img[2, 2].tolist()
([1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ti_notebook.ui.ggui import raster2d
from ti_notebook.ui.ggui.scene import Scene, _length, _rgb, _width
from ti_notebook.ui.images import as_array, image_planes

__all__ = ["Canvas"]


class Canvas:
    """Taichi's ``Canvas`` (see the module); made by :meth:`Window.get_canvas`."""

    def __init__(self, window: Any) -> None:
        self.window = window  # the Window that draws it (not imported: it imports us)

    def set_background_color(self, color: Any) -> None:
        """The colour of the frame where nothing is drawn (RGB floats)."""
        self.window._background = _rgb(color)
        if not self.window._painted:
            self.window._begin()

    def set_image(self, img: Any) -> None:
        """Fill the frame with ``img`` indexed ``[x, y]`` (y up): a field, vector field,
        ndarray or NumPy array, floats in ``[0, 1]`` or ``u8``; 1, 3 or 4 channels. An
        image of another size is stretched to the window (nearest pixel)."""
        fb = self.window._begin()
        a = as_array(img)
        if a.ndim < 2:
            raise ValueError(f"ti.ui.Canvas.set_image takes an image indexed [x, y], got {a.shape}")
        planes = image_planes(a, (a.shape[0], a.shape[1]))  # (3, h_img, w_img), row 0 bottom
        if planes.shape[1:] != (fb.height, fb.width):
            ys = (np.arange(fb.height) * planes.shape[1]) // fb.height
            xs = (np.arange(fb.width) * planes.shape[2]) // fb.width
            planes = planes[:, ys][:, :, xs]
        fb.color.from_numpy(np.ascontiguousarray(np.transpose(planes, (2, 1, 0))))

    def contour(
        self, scalar_field: Any, cmap_name: str = "plasma", normalize: bool = False
    ) -> None:
        """Show a 2-D scalar field through a Matplotlib colour map."""
        from matplotlib import colormaps

        values = np.asarray(as_array(scalar_field), np.float64)
        if values.ndim != 2:
            raise ValueError("ti.ui.Canvas.contour: the field must be 2-D")
        if normalize:
            values = (values - values.min()) / (values.max() - values.min() + 1e-16)
        self.set_image(colormaps[cmap_name](values)[:, :, :3].astype(np.float32))

    def vector_field(
        self,
        vector_field: Any,
        arrow_spacing: int = 5,
        scale: float = 0.1,
        width: float = 0.002,
        color: Any = (0, 0, 0),
    ) -> None:
        """Arrows of a 2-D field of 2-vectors, one every ``arrow_spacing`` cells; the
        longest is ``scale`` of the canvas."""
        v = np.asarray(as_array(vector_field), np.float64)
        if v.ndim != 3 or v.shape[2] != 2:
            raise ValueError(
                f"ti.ui.Canvas.vector_field takes an (nx, ny) field of 2-vectors, got {v.shape}"
            )
        nx, ny = v.shape[:2]
        ii = np.unique(np.minimum(np.arange(0, nx + arrow_spacing, arrow_spacing), nx - 1))
        jj = np.unique(np.minimum(np.arange(0, ny + arrow_spacing, arrow_spacing), ny - 1))
        i, j = (a.reshape(-1) for a in np.meshgrid(ii, jj, indexing="ij"))
        start = np.stack([i / max(nx - 1, 1), j / max(ny - 1, 1)], 1)
        vmax = float(np.linalg.norm(v, axis=-1).max()) or 1.0
        d = v[i, j] * (scale / vmax)
        end = start + d
        angle = np.arctan2(d[:, 1], d[:, 0])
        tip = 0.2 * np.linalg.norm(d, axis=1)[:, None]
        tip_angle = np.radians(30)
        ends = [end + tip * np.stack([np.cos(a), np.sin(a)], 1)
                for a in (angle + np.pi - tip_angle, angle - np.pi + tip_angle)]  # fmt: skip
        segments = np.stack([start, end, end, ends[0], end, ends[1]], 1).reshape(-1, 2)
        self.lines(segments.astype(np.float32), width, color=color)

    def circles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        per_vertex_radius: Any = None,
    ) -> None:
        """Filled circles at ``centers`` (2-D positions); ``radius`` is a fraction of
        the window's height; ``per_vertex_color``/``per_vertex_radius`` per circle."""
        fb = self.window._begin()
        n = _length(centers)
        if n == 0:
            return
        st = fb.staging
        voff, _ = st.reserve(n)
        st.put("pos", centers, voff, n, 3)
        if per_vertex_radius is not None:
            st.put("rad", per_vertex_radius, voff, n, 1)
        if per_vertex_color is not None:
            st.put("col", per_vertex_color, voff, n, 3)
        per_r = int(per_vertex_radius is not None)
        raster2d.cover_circles(st.pos, st.rad, fb.ids, voff, n, float(radius), per_r)
        self._resolve(raster2d.CIRCLES, voff, 0, False, per_vertex_color, color)

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
    ) -> None:
        """Segments between vertices 0-1, 2-3, ... (or pairs of ``indices``); ``width``
        is a fraction of the window's height."""
        fb = self.window._begin()
        voff, ioff, count = self._stage(vertices, indices, per_vertex_color, 2)
        if count:
            st = fb.staging
            indexed = int(indices is not None)
            raster2d.cover_lines(st.pos, st.idx, fb.ids, voff, ioff, indexed, count, float(width))
            self._resolve(raster2d.LINES, voff, ioff, indexed, per_vertex_color, color)

    def triangles(
        self,
        vertices: Any,
        color: Any = (0.5, 0.5, 0.5),
        indices: Any = None,
        per_vertex_color: Any = None,
    ) -> None:
        """Filled triangles of vertices 0-1-2, 3-4-5, ... (or triples of ``indices``);
        ``per_vertex_color`` is interpolated across each triangle."""
        fb = self.window._begin()
        voff, ioff, count = self._stage(vertices, indices, per_vertex_color, 3)
        if count:
            st = fb.staging
            indexed = int(indices is not None)
            raster2d.cover_triangles(st.pos, st.idx, fb.ids, voff, ioff, indexed, count)
            self._resolve(raster2d.TRIANGLES, voff, ioff, indexed, per_vertex_color, color)

    def scene(self, scene: Scene) -> None:
        """Draw ``scene`` (its renderables, lights and camera) over the frame."""
        scene.render(self.window._begin())

    def _stage(self, vertices: Any, indices: Any, per_vertex_color: Any, per: int):
        st = self.window._begin().staging
        nv = _length(vertices)
        ni = _length(indices) * _width(indices) if indices is not None else 0
        voff, ioff = st.reserve(nv, ni)
        if nv:
            st.put("pos", vertices, voff, nv, 3)
        if per_vertex_color is not None and nv:
            st.put("col", per_vertex_color, voff, nv, 3)
        if indices is not None and ni:
            st.put("idx", indices if _width(indices) == 1 else _flat(indices), ioff, ni, 1)
        return voff, ioff, (ni if indices is not None else nv) // per

    def _resolve(self, kind, voff, ioff, indexed, per_vertex_color, color) -> None:
        fb = self.window._fb
        st = fb.staging
        r, g, b = _rgb(color)
        per_vertex = int(per_vertex_color is not None)
        raster2d.resolve(fb.ids, fb.color, st.pos, st.col, st.idx, kind, voff, ioff, int(indexed),
                         per_vertex, r, g, b)  # fmt: skip


def _flat(indices: Any) -> np.ndarray:
    return np.asarray(as_array(indices)).reshape(-1).astype(np.int32)
