"""``ti.ui.Scene``: what a frame's 3-D view holds until ``canvas.scene(scene)`` draws it.

Each call (``particles``, ``mesh``, ``mesh_instance``, ``lines``) records a renderable;
the lights and the camera are read when the canvas draws the scene. As in Taichi,
drawing ends the scene's frame: renderables and point lights are declared anew each
frame (the ambient light and camera stay). Drawing is :mod:`ti_notebook.ui.ggui.raster3d`.

>>> s = Scene()
>>> s.ambient_light((0.2, 0.2, 0.2)); s.point_light((0, 5, 0), (1, 1, 1))
>>> len(s.lights), s.ambient
(1, (0.2, 0.2, 0.2))
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ti_notebook.ui.ggui import particles, raster3d
from ti_notebook.ui.ggui.buffers import FrameBuffer, smooth_normals
from ti_notebook.ui.ggui.camera import Camera

__all__ = ["Scene"]

Color = tuple[float, float, float]
CULL = 1  # 0 draws every particle's every pixel (the same picture, slower; for tests)


def _rgb(color: Any) -> Color:
    c = [float(v) for v in color][:3]
    if len(c) != 3:
        raise ValueError(f"ti.ui: a colour is 3 floats in [0, 1], got {color!r}")
    return (c[0], c[1], c[2])


def _length(data: Any) -> int:
    shape = getattr(data, "shape", None)
    if shape is None:
        shape = np.shape(data)
    return int(np.prod(shape[:1])) if len(shape) else 0


@dataclasses.dataclass
class _Renderable:
    kind: int
    vertices: Any
    color: Color
    vertex_offset: int
    vertex_count: int
    indices: Any = None
    index_offset: int = 0
    index_count: int = 0
    per_vertex_color: Any = None
    normals: Any = None
    per_vertex_radius: Any = None
    radius: float = 0.0
    two_sided: bool = False
    transform: np.ndarray | None = None


class Scene:
    """Taichi's ``ti.ui.Scene`` / ``window.get_scene()`` (see the module).

    >>> s = Scene()
    >>> s.set_camera(Camera())
    >>> s.particles([[0.0, 0.0, 1.0]], radius=0.1)
    >>> len(s.renderables)
    1
    """

    def __init__(self) -> None:
        self.camera = Camera()
        self.renderables: list[_Renderable] = []
        self.lights: list[tuple[Color, Color]] = []
        self.ambient: Color = (0.1, 0.1, 0.1)

    def set_camera(self, camera: Camera) -> None:
        """See the scene from ``camera`` (its values are read when the scene is drawn)."""
        self.camera = camera

    def point_light(self, pos: Any, color: Any) -> None:
        """A point light at ``pos`` of ``color`` (RGB floats)."""
        if len(self.lights) >= raster3d.MAX_LIGHTS:
            raise ValueError(f"ti.ui.Scene: at most {raster3d.MAX_LIGHTS} point lights")
        self.lights.append((_rgb(pos), _rgb(color)))

    def ambient_light(self, color: Any) -> None:
        """The ambient light's colour (RGB floats); Taichi's default is 0.1 grey."""
        self.ambient = _rgb(color)

    def particles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        per_vertex_radius: Any = None,
        index_offset: int = 0,
        index_count: int | None = None,
    ) -> None:
        """Spheres of ``radius`` (world units) at ``centers``, lit by the scene's lights."""
        n = _length(centers) - index_offset if index_count is None else index_count
        self._add(
            _Renderable(
                raster3d.PARTICLES, centers, _rgb(color), index_offset, max(0, n),
                per_vertex_color=per_vertex_color, per_vertex_radius=per_vertex_radius,
                radius=float(radius),
            )
        )  # fmt: skip

    def mesh(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        """Triangles (every 3 vertices, or 3 ``indices`` each) with Lambert shading;
        ``normals`` per vertex (without: each vertex gets the mean normal of its
        triangles, as Taichi's), ``two_sided`` lights both faces. ``show_wireframe`` is
        accepted and ignored."""
        self._add(self._mesh(vertices, indices, normals, color, per_vertex_color, two_sided,
                             vertex_offset, vertex_count, index_offset, index_count))  # fmt: skip

    def _mesh(self, vertices, indices, normals, color, per_vertex_color, two_sided,
              vertex_offset, vertex_count, index_offset, index_count) -> _Renderable:  # fmt: skip
        nv = _length(vertices) - vertex_offset if vertex_count is None else vertex_count
        if indices is not None:
            ni = _length(indices) * _width(indices) - index_offset
            ni = ni if index_count is None else index_count
        else:
            ni = 0
        return _Renderable(
            raster3d.MESH, vertices, _rgb(color), vertex_offset, max(0, nv), indices,
            index_offset, ni, per_vertex_color, normals, two_sided=bool(two_sided),
        )  # fmt: skip

    def mesh_instance(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        transforms: Any = None,
        instance_offset: int = 0,
        instance_count: int | None = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        """The mesh drawn once per 4x4 matrix of ``transforms`` (once without)."""
        mats = [None]
        if transforms is not None:
            arr = np.asarray(
                transforms.to_numpy() if hasattr(transforms, "to_numpy") else transforms
            )
            arr = arr.reshape(-1, 4, 4)
            end = len(arr) if instance_count is None else instance_offset + instance_count
            mats = list(arr[instance_offset:end])
        for mat in mats:
            r = self._mesh(vertices, indices, normals, color, per_vertex_color, two_sided,
                           vertex_offset, vertex_count, index_offset, index_count)  # fmt: skip
            r.transform = mat
            self._add(r)

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
    ) -> None:
        """Segments (vertices 0-1, 2-3, ... or pairs of ``indices``), ``width`` in pixels."""
        nv = _length(vertices) - vertex_offset if vertex_count is None else vertex_count
        ni = 0
        if indices is not None:
            ni = _length(indices) * _width(indices) - index_offset
            ni = ni if index_count is None else index_count
        self._add(
            _Renderable(
                raster3d.LINES, vertices, _rgb(color), vertex_offset, max(0, nv), indices,
                index_offset, ni, per_vertex_color, radius=float(width),
            )
        )  # fmt: skip

    def _add(self, r: _Renderable) -> None:
        if len(self.renderables) >= raster3d.MAX_SLOTS:
            raise ValueError(f"ti.ui.Scene: at most {raster3d.MAX_SLOTS} draw calls a frame")
        self.renderables.append(r)

    # drawing -----------------------------------------------------------------------

    def render(self, fb: FrameBuffer) -> None:
        """Draw into ``fb`` over what it holds, then forget the renderables (a new frame)."""
        w, h = fb.width, fb.height
        cam = self.camera
        fb.set_uniforms(cam.uniforms(w, h, self.ambient, len(self.lights)))
        lights = np.zeros((2, raster3d.MAX_LIGHTS, 3), np.float32)
        for i, (pos, col) in enumerate(self.lights):
            lights[0, i], lights[1, i] = pos, col
        fb.lpos.from_numpy(lights[0])
        fb.lcol.from_numpy(lights[1])
        raster3d.clear_keys(fb.key)
        rint = np.zeros((raster3d.MAX_SLOTS, 4), np.int32)
        rflt = np.zeros((raster3d.MAX_SLOTS, 4), np.float32)
        staged = [self._stage(fb, slot, r, rint, rflt) for slot, r in enumerate(self.renderables)]
        fb.rint.from_numpy(rint)
        fb.rflt.from_numpy(rflt)
        st = fb.staging
        drawn = list(enumerate(zip(self.renderables, staged, strict=True)))
        clouds = [(slot, count) for slot, (r, count) in drawn if r.kind == raster3d.PARTICLES]
        if clouds:  # every particle may hide the others: record the occluders first
            particles.clear_occluders(fb.occ)
            for slot, count in clouds:
                if count > 0:
                    particles.occlude_particles(
                        st.pos, st.rad, fb.occ, fb.uni, fb.rint, fb.rflt, slot, count
                    )
        for slot, (r, count) in drawn:
            if count <= 0:
                continue
            if r.kind == raster3d.PARTICLES:
                particles.splat_particles(
                    st.pos, st.rad, fb.key, fb.occ, fb.uni, fb.rint, fb.rflt, slot, count, CULL
                )
            elif r.kind == raster3d.MESH:
                raster3d.splat_triangles(st.pos, st.idx, fb.key, fb.uni, fb.rint, slot, count)
            else:
                raster3d.splat_lines(st.pos, st.idx, fb.key, fb.uni, fb.rint, fb.rflt, slot, count)
        if any(c > 0 for c in staged):
            raster3d.resolve(fb.key, fb.color, st.pos, st.col, st.nrm, st.rad, st.idx, fb.uni,
                             fb.rint, fb.rflt, fb.lpos, fb.lcol)  # fmt: skip
        self.renderables = []
        self.lights = []  # Taichi's scene takes its point lights anew every frame

    def _stage(self, fb, slot, r: _Renderable, rint, rflt) -> int:
        """Copy ``r``'s data into the staging buffers; how many primitives it draws."""
        st = fb.staging
        nv, ni = r.vertex_count, r.index_count if r.indices is not None else 0
        voff, ioff = st.reserve(nv, ni)
        src = r.vertices
        if r.vertex_offset or r.transform is not None:
            src = _rows(src, 3)[r.vertex_offset : r.vertex_offset + nv]
            if r.transform is not None:
                src = src @ r.transform[:3, :3].T + r.transform[:3, 3]
        st.put("pos", src, voff, nv, 3)
        flags = 0
        if r.per_vertex_color is not None:
            st.put("col", _sliced(r.per_vertex_color, r.vertex_offset, nv), voff, nv, 3)
            flags |= raster3d.PER_VERTEX_COLOR
        if r.per_vertex_radius is not None:
            st.put("rad", _sliced(r.per_vertex_radius, r.vertex_offset, nv, 1), voff, nv, 1)
            flags |= raster3d.PER_VERTEX_RADIUS
        if r.normals is not None:
            normals = _sliced(r.normals, r.vertex_offset, nv)
            if r.transform is not None:
                normals = _rows(normals, 3) @ np.linalg.inv(r.transform[:3, :3])
            st.put("nrm", normals, voff, nv, 3)
            flags |= raster3d.HAS_NORMALS
        if r.two_sided:
            flags |= raster3d.TWO_SIDED
        per = 2 if r.kind == raster3d.LINES else 3
        count = nv if r.kind == raster3d.PARTICLES else nv // per
        if r.indices is not None and r.kind != raster3d.PARTICLES:
            flat = r.indices  # a 1-D index field is copied on the device, as it is
            if r.index_offset or _width(r.indices) != 1 or not hasattr(r.indices, "snode"):
                flat = _rows(r.indices, 1)[r.index_offset : r.index_offset + ni]
            st.put("idx", flat, ioff, ni, 1)
            flags |= raster3d.INDEXED
            count = ni // per
        if r.kind == raster3d.MESH and r.normals is None and count > 0:
            indexed = int(bool(flags & raster3d.INDEXED))
            smooth_normals(st.pos, st.idx, st.nrm, voff, nv, ioff, count, indexed)
            flags |= raster3d.HAS_NORMALS
        rint[slot] = (r.kind, flags, voff, ioff)
        rflt[slot] = (*r.color, r.radius)
        return count


def _width(data: Any) -> int:
    return int(getattr(data, "n", 1)) if hasattr(data, "n") else 1


def _rows(data: Any, width: int) -> np.ndarray:
    """``data`` as NumPy: flat for ``width`` 1 (indices), else one row per vertex."""
    arr = np.asarray(data.to_numpy() if hasattr(data, "to_numpy") else data)
    if width == 1:
        return arr.reshape(-1)
    arr = arr.astype(np.float64)
    return arr.reshape(-1, arr.shape[-1] if arr.ndim > 1 else width)


def _sliced(data: Any, offset: int, n: int, width: int = 3) -> Any:
    if offset == 0:
        return data
    arr = np.asarray(data.to_numpy() if hasattr(data, "to_numpy") else data)
    return arr.reshape(len(arr), -1)[offset : offset + n] if width > 1 else arr[offset : offset + n]
