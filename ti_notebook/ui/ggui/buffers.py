"""The fields GGUI's kernels draw with: one :class:`FrameBuffer` per resolution, kept.

A frame buffer holds the picture (``color``, ``[x, y]`` y up), the 2-D canvas's id
buffer, the scene's depth keys, the ``uint8`` frame handed to the presenter, the
scene's uniforms, lights and per-renderable settings, and the :class:`Staging` buffers
into which each draw call copies its vertices. It is made once per ``(width, height)``
and ``ti.init`` session and reused by every window of that size, so a running loop
never recompiles: the kernels are specialised on these fields once, and the staging
buffers only grow (to the next power of two).

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu)
>>> fb = FrameBuffer.get(4, 2)
>>> fb is FrameBuffer.get(4, 2), fb.rgb.shape
(True, (2, 4, 3))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ti_notebook.lang.field import field
from ti_notebook.lang.matrix import Vector
from ti_notebook.lang.ndarray import NdarrayType, template
from ti_notebook.lang.ops import cast, static
from ti_notebook.lang.types import f32, i32, i64, u8
from ti_notebook.session import config as _config
from ti_notebook.session.kernel import kernel
from ti_notebook.ui.ggui import particles, raster2d, raster3d

__all__ = ["FrameBuffer", "Staging"]


@kernel
def _copy_vectors(src: template(), dst: template(), off: i32, n: i32):
    for i in range(n):
        v = src[i]
        for ch in static(range(3)):
            if static(ch < src.n):
                dst[off + i][ch] = cast(v[ch], f32)  # f64 user data: narrowing meant
            else:
                dst[off + i][ch] = 0.0


@kernel
def _copy_scalars(src: template(), dst: template(), off: i32, n: i32):
    for i in range(n):
        dst[off + i] = cast(src[i], dst.dtype)  # i64 indices, f64 radii: narrowing meant


@kernel
def _copy_rows(src: NdarrayType(ndim=2), dst: template(), off: i32, n: i32, width: i32):
    for i in range(n):
        for ch in static(range(3)):
            v = 0.0
            if ch < width:
                v = src[i, ch]
            dst[off + i][ch] = v


@kernel
def _copy_values(src: NdarrayType(ndim=1), dst: template(), off: i32, n: i32):
    for i in range(n):
        dst[off + i] = src[i]


@kernel
def smooth_normals(
    pos: template(), idx: template(), nrm: template(), voff: i32, nv: i32, ioff: i32,
    ntri: i32, indexed: i32,
):  # fmt: skip
    """Per-vertex normals of a mesh given none, as Taichi makes them: the mean of the
    unit normals of the triangles that share the vertex (a face's own without indices)."""
    for i in range(nv):
        nrm[voff + i] = Vector([0.0, 0.0, 0.0])
    for t in range(ntri):
        j0 = voff + 3 * t
        j1 = j0 + 1
        j2 = j0 + 2
        if indexed:
            j0 = voff + idx[ioff + 3 * t]
            j1 = voff + idx[ioff + 3 * t + 1]
            j2 = voff + idx[ioff + 3 * t + 2]
        n = (pos[j1] - pos[j0]).cross(pos[j2] - pos[j0])
        length = n.norm()
        if length > 0.0:
            n = n / length
            nrm[j0] += n
            nrm[j1] += n
            nrm[j2] += n


def _capacity(n: int) -> int:
    return max(1024, 1 << max(0, int(n) - 1).bit_length())


class Staging:
    """Vertex data of the draw calls of one frame, appended: positions (2-D ones get
    ``z = 0``), colours, normals, radii, and indices; offsets restart each frame."""

    def __init__(self) -> None:
        self.vcap = self.icap = 0
        self.vused = self.iused = 0
        self._grow(1024, 1024)

    def _grow(self, vcap: int, icap: int) -> None:
        old = None
        if self.vcap:
            old = [f.to_numpy() for f in (self.pos, self.col, self.nrm, self.rad)], self.idx
        if vcap > self.vcap:
            self.pos = Vector.field(3, f32, shape=vcap)
            self.col = Vector.field(3, f32, shape=vcap)
            self.nrm = Vector.field(3, f32, shape=vcap)
            self.rad = field(f32, shape=vcap)
            if old is not None:
                for f, a in zip((self.pos, self.col, self.nrm, self.rad), old[0], strict=True):
                    pad = np.zeros((vcap,) + a.shape[1:], a.dtype)
                    pad[: len(a)] = a
                    f.from_numpy(pad)
            self.vcap = vcap
        if icap > self.icap:
            idx = field(i32, shape=icap)
            if old is not None:
                pad = np.zeros(icap, np.int32)
                pad[: self.icap] = self.idx.to_numpy()
                idx.from_numpy(pad)
            self.idx = idx
            self.icap = icap

    def reset(self) -> None:
        """A new frame: earlier draws' data may be overwritten."""
        self.vused = self.iused = 0

    def reserve(self, nv: int, ni: int = 0) -> tuple[int, int]:
        """Room for ``nv`` vertices and ``ni`` indices: their offsets."""
        if self.vused + nv > self.vcap or self.iused + ni > self.icap:
            self._grow(
                max(self.vcap, _capacity(self.vused + nv)),
                max(self.icap, _capacity(self.iused + ni)),
            )
        voff, ioff = self.vused, self.iused
        self.vused += nv
        self.iused += ni
        return voff, ioff

    def put(self, name: str, data: Any, off: int, n: int, width: int) -> None:
        """Copy ``n`` rows of ``data`` (a 1-D field, ndarray or array) to ``name`` at ``off``.

        A 1-D field is copied by a kernel on the device; anything else is read into a
        NumPy array first, which a kernel then copies.
        """
        dst = getattr(self, name)
        if _is_field(data) and len(data.shape) == 1 and data.shape[0] >= n:
            if width == 1 and not hasattr(data, "n"):
                _copy_scalars(data, dst, off, n)
                return
            if width == 3 and hasattr(data, "n") and getattr(data, "m", 1) == 1:
                _copy_vectors(data, dst, off, n)
                return
        arr = np.asarray(data.to_numpy() if hasattr(data, "to_numpy") else data)
        if width > 1:
            arr = arr.reshape(-1, arr.shape[-1]) if arr.ndim > 1 else arr.reshape(-1, width)
        else:
            arr = arr.reshape(-1)
        if len(arr) < n:
            raise ValueError(f"ti.ui: {name} needs {n} values, got {len(arr)}")
        # NumPy in: a kernel reads the array in place (one compile per dtype and rank)
        if width > 1:
            rows = np.ascontiguousarray(arr[:n, :3], np.float32)
            _copy_rows(rows, dst, off, n, rows.shape[1])
        else:
            dtype = np.int32 if name == "idx" else np.float32
            _copy_values(np.ascontiguousarray(arr[:n], dtype), dst, off, n)


def _is_field(data: Any) -> bool:
    return hasattr(data, "to_numpy") and hasattr(data, "snode")


class FrameBuffer:
    """The picture, id/depth buffers, scene settings and staging of one resolution."""

    _cache: dict[tuple[int, int], FrameBuffer] = {}
    _session: object = None

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = int(width), int(height)
        w, h = self.width, self.height
        self.color = Vector.field(3, f32, shape=(w, h))
        self.ids = field(i32, shape=(w, h))
        self.key = field(i64, shape=(w, h))
        self.occ = field(i32, shape=(-(-w // particles.TILE), -(-h // particles.TILE)))
        self.rgb = field(u8, shape=(h, w, 3))
        self.uni = field(f32, shape=raster3d.UNIFORMS)
        self.lpos = Vector.field(3, f32, shape=raster3d.MAX_LIGHTS)
        self.lcol = Vector.field(3, f32, shape=raster3d.MAX_LIGHTS)
        self.rint = field(i32, shape=(raster3d.MAX_SLOTS, 4))
        self.rflt = field(f32, shape=(raster3d.MAX_SLOTS, 4))
        self.staging = Staging()
        raster2d.reset_ids(self.ids)

    @classmethod
    def get(cls, width: int, height: int) -> FrameBuffer:
        """The frame buffer of this size in this ``ti.init`` session (made on first use)."""
        session = _config.current() if _config.is_initialized() else None
        if session is None or session is not cls._session:
            cls._cache = {}
        fb = cls._cache.get((width, height))
        if fb is None:
            fb = cls(width, height)
            cls._session = _config.current()  # a first field starts the default session
            cls._cache[(width, height)] = fb
        return fb

    def fill(self, rgb: tuple[float, float, float]) -> None:
        """Paint every pixel ``rgb``."""
        raster2d.fill(self.color, float(rgb[0]), float(rgb[1]), float(rgb[2]))

    def to_rgb8(self) -> np.ndarray:
        """The picture as ``uint8 (height, width, 3)``, row 0 on top."""
        raster2d.to_rgb8(self.color, self.rgb)
        return self.rgb.to_numpy()

    def set_uniforms(self, values: np.ndarray) -> None:
        """Write the scene's uniforms (see :data:`raster3d.U`)."""
        self.uni.from_numpy(np.asarray(values, np.float32))
