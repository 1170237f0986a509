"""The software canvas behind ``ti.GUI``: anti-aliased primitives on a float RGB frame.

The frame is planar ``float32 (3, height, width)`` indexed ``[channel, y, x]`` with
row 0 at the **bottom** (planar, because gathering and scattering one channel at a time
is three times faster than rows of three), so a position ``(x, y)`` in ``[0, 1]²`` lands at pixel
``(x * width, y * height)`` without flipping; :meth:`Canvas.to_rgb8` flips once for
display. The pixel rules follow Taichi 1.7's canvas so frames match its images:

- circles: coverage ``clip(radius - d, 0, 1)`` with ``d`` measured from the pixel's
  integer corner ``(i, j)``;
- lines (round caps) and rects: coverage ``clip(radius - d, 0, 1)``, ``d`` from the
  pixel's centre ``(i + 0.5, j + 0.5)`` to the segment;
- triangles: a pixel is covered (fully) when its centre is inside, no edge blending.

Primitives compose in call order, each one over those drawn before it, as Taichi's
canvas draws them: ``p = p * (1 - a) + colour * a`` per covered pixel. While a CPU
session runs, serial ti_notebook kernels draw them (:mod:`.raster_kernels`); without
one (the GUI never starts a session) or on CUDA, a NumPy splat draws each batch at once
with the same result (:meth:`Canvas._compose`: the one-by-one sum, from per-pixel sums
of ``log(1 - a)``).

What one frame of mpm88 costs, ``Canvas.circles`` of 8,192 circles of radius 1.5 on
512x512 (median of 9 samples by ``ti.profiler.time_call``, 2-core Xeon VM shared with
other work; ``benchmarks/gui.py`` times the whole GUI frame):

============================================  ============  ==================
how                                           one colour    3-colour palette
============================================  ============  ==================
before: per-pixel coverage of each 4x4 box,   6.9 ms        6.9 ms (inexact:
``np.maximum.at`` owner, full-frame compact                 last colour wins)
NumPy splat, no full-frame ``nonzero``,        3.2 ms        4.9 ms
sorted only where samples share a pixel
ti_notebook kernel (serial, ndarray args)     0.68 ms       0.68 ms
skia-python ``drawPoints`` (round caps, the   7.0 ms + 3.4  ``drawCircle`` per
points prebuilt; + the float<->RGBA8 copy)    ms copy       circle: 10.3 ms
aggdraw ``ellipse`` per circle                --            9.5 ms
============================================  ============  ==================

The kernel's first call in a session loads it from the offline cache (about 1 ms) or
compiles it (about 0.1 s). Lines and triangles, 2,000 random ones of about 10 pixels:
lines 54 ms before, 52 ms NumPy, 3.4 ms kernel; triangles 85, 84 and 2.5 ms. pycairo
has no wheel here (it builds against a system cairo), so it was not measured; skia and
aggdraw lose to the kernel by 10x and need a Python call per primitive or per colour,
so neither is a dependency.

>>> c = Canvas(8, 8)
>>> c.circles(np.array([[0.5, 0.5]]), np.array([3.0]), np.array([0xFF0000]))
>>> c.planes[:, 4, 4].tolist(), c.planes[:, 4, 7].tolist()
([1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from ti_notebook.ui import raster_kernels

# 1 - a is clamped here before its log, so a fully covered pixel stays finite
_MIN_TRANSMIT = 1e-7


def hex_to_rgb(color: np.ndarray | int) -> np.ndarray:
    """``0xRRGGBB`` (one or an array) as float RGB in ``[0, 1]``.

    >>> hex_to_rgb(0xFF8000).tolist()
    [1.0, 0.501960813999176, 0.0]
    """
    c = np.asarray(color, dtype=np.int64)
    rgb = np.stack([(c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF], axis=-1)
    return (rgb / np.float32(255)).astype(np.float32)


def _transmit(log_transmit: np.ndarray) -> np.ndarray:
    """``exp`` of summed ``log(1 - a)`` as f32; a full cover (clamped) is exactly 0."""
    transmit = np.exp(log_transmit).astype(np.float32)
    transmit[transmit <= _MIN_TRANSMIT * 1.001] = 0.0
    return transmit


class Canvas:
    """A float RGB frame that primitives are composed onto (see the module's rules).

    >>> c = Canvas(4, 2, background=0x0000FF)
    >>> c.to_rgb8().shape, c.to_rgb8()[0, 0].tolist()
    ((2, 4, 3), [0, 0, 255])
    """

    def __init__(self, width: int, height: int, background: int = 0) -> None:
        self.width = int(width)
        self.height = int(height)
        self.planes = np.zeros((3, self.height, self.width), np.float32)
        self.clear(background)

    def clear(self, color: int = 0) -> None:
        """Fill the frame with ``color`` (``0xRRGGBB``)."""
        self.planes[...] = hex_to_rgb(color)[:, None, None]

    def to_rgb8(self) -> np.ndarray:
        """The frame as ``uint8 (height, width, 3)``, row 0 at the top (display order)."""
        rgb = np.empty((self.height, self.width, 3), np.uint8)
        for ch in range(3):
            plane = np.clip(self.planes[ch, ::-1], 0.0, 1.0)
            rgb[:, :, ch] = plane * 255.0 + 0.5
        return rgb

    def set_image(self, rgb: np.ndarray) -> None:
        """Replace the frame by ``rgb``: float ``(height, width, 3)``, row 0 at the bottom."""
        self.planes[...] = np.moveaxis(rgb, 2, 0)

    # compositing -------------------------------------------------------------------

    def _compose(self, pixel: np.ndarray, alpha: np.ndarray, owner: np.ndarray, colors) -> None:
        """Blend samples ``alpha > 0`` of primitives ``owner`` (ascending: the samples come
        in drawing order) at flat ``pixel`` indices, as drawing them one by one would.

        One by one, a pixel ends as ``p * T + sum_k c_k * a_k * T_k`` with ``T`` the product
        of all its ``1 - a_k`` and ``T_k`` that of the samples drawn after ``k``: sums of
        ``log(1 - a)`` per pixel (``bincount``) and, for several colours, within each pixel's
        samples in drawing order (a stable sort by pixel, then ``cumsum``). A pixel's samples
        all gather the same old value and scatter the same new one, so nothing needs them
        unique.
        """
        if pixel.size == 0:
            return
        size = self.width * self.height
        # in f64 (bincount sums in f64 anyway): 1 - _MIN_TRANSMIT is not an f32
        log_transmit = np.log1p(-np.minimum(alpha, 1.0 - _MIN_TRANSMIT, dtype=np.float64))
        total = np.bincount(pixel, weights=log_transmit, minlength=size)
        planes = self.planes.reshape(3, size)
        if len(colors) == 1 or not np.any(colors != colors[0]):
            # one colour c: p * T + c * (1 - T), whatever the order
            transmit = _transmit(total[pixel])
            cover = 1.0 - transmit
            for ch, value in enumerate(colors[0]):
                planes[ch, pixel] = planes[ch, pixel] * transmit + value * cover
            return
        # a pixel with one sample: p * (1 - a) + c * a, in place
        alone = np.bincount(pixel, minlength=size)[pixel] == 1
        one, shared = np.flatnonzero(alone), np.flatnonzero(~alone)
        at, a1, rgb1 = pixel[one], alpha[one], colors[owner[one]]
        for ch in range(3):
            planes[ch, at] = planes[ch, at] * (1.0 - a1) + rgb1[:, ch] * a1
        if shared.size == 0:
            return
        # several: each pixel's samples sorted (stably: drawing order), T_k from cumsum
        order = shared[np.argsort(pixel[shared], kind="stable")]
        at, log_t = pixel[order], log_transmit[order]
        running = np.cumsum(log_t)
        starts = np.diff(at, prepend=-1) != 0
        first = np.flatnonzero(starts)
        group = np.cumsum(starts) - 1  # the pixel's number among the shared ones
        later = total[at] - (running - (running[first] - log_t[first])[group])
        weight = alpha[order] * _transmit(later)  # a_k * T_k
        at, transmit = at[first], _transmit(total[at[first]])
        rgb = colors[owner[order]]
        for ch in range(3):
            paint = np.bincount(group, weights=weight * rgb[:, ch], minlength=len(first))
            planes[ch, at] = planes[ch, at] * transmit + paint

    # primitives --------------------------------------------------------------------

    def circles(self, pos: np.ndarray, radius: np.ndarray, color: np.ndarray) -> None:
        """Filled anti-aliased circles: ``pos (n, 2)`` in ``[0, 1]``, ``radius (n,)`` in pixels."""
        if len(pos) == 0:
            return
        rgb = hex_to_rgb(color)
        if raster_kernels.available():
            rgb = np.broadcast_to(rgb, (len(pos), 3))
            raster_kernels.draw_circles(self.planes, pos, radius, rgb)
            return
        pixel, alpha, owner = circle_samples(pos, radius, self.width, self.height)
        self._compose(pixel, alpha, owner, rgb.reshape(-1, 3))

    def _boxes(self, lo_x, hi_x, lo_y, hi_y):
        """Every pixel of each primitive's box ``[lo, hi]`` (clipped): (owner, i, j)."""
        lo_x = np.clip(lo_x, 0, self.width)
        hi_x = np.clip(hi_x, -1, self.width - 1)
        lo_y = np.clip(lo_y, 0, self.height)
        hi_y = np.clip(hi_y, -1, self.height - 1)
        bw = np.maximum(hi_x - lo_x + 1, 0)
        bh = np.maximum(hi_y - lo_y + 1, 0)
        count = bw * bh
        owner = np.repeat(np.arange(len(count)), count)
        start = np.cumsum(count) - count
        local = np.arange(int(count.sum())) - np.repeat(start, count)
        width = np.repeat(bw, count)
        i = np.repeat(lo_x, count) + local % np.maximum(width, 1)
        j = np.repeat(lo_y, count) + local // np.maximum(width, 1)
        return owner, i, j

    def lines(self, begin: np.ndarray, end: np.ndarray, radius: np.ndarray, color) -> None:
        """Thick anti-aliased segments with round caps, ``radius (n,)`` in pixels."""
        if len(begin) == 0:
            return
        scale = np.array([self.width, self.height], np.float64)
        a = begin.astype(np.float64) * scale
        b = end.astype(np.float64) * scale
        r = radius.astype(np.float64)
        if raster_kernels.available():
            rgb = np.broadcast_to(hex_to_rgb(color), (len(a), 3))
            raster_kernels.draw_lines(self.planes, a, b, r, rgb)
            return
        lo = np.floor(np.minimum(a, b) - r[:, None] - 1).astype(np.int64)
        hi = np.ceil(np.maximum(a, b) + r[:, None]).astype(np.int64)
        owner, i, j = self._boxes(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1])
        qa = np.stack([i + 0.5, j + 0.5], axis=1) - a[owner]
        ab = (b - a)[owner]
        length2 = np.einsum("ij,ij->i", ab, ab)
        t = np.clip(np.einsum("ij,ij->i", qa, ab) / np.maximum(length2, 1e-12), 0.0, 1.0)
        d = np.hypot(*(qa - ab * t[:, None]).T)
        alpha = np.minimum(r[owner] - d, 1.0)
        hit = np.flatnonzero(alpha > 0)
        pixel = j[hit] * self.width + i[hit]
        self._compose(pixel, alpha[hit], owner[hit], hex_to_rgb(color).reshape(-1, 3))

    def triangles(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, color) -> None:
        """Filled triangles: a pixel is covered when its centre is inside (Taichi's rule)."""
        if len(a) == 0:
            return
        scale = np.array([self.width, self.height], np.float64)
        pa, pb, pc = (np.asarray(v, np.float64) * scale for v in (a, b, c))
        if raster_kernels.available():
            rgb = np.broadcast_to(hex_to_rgb(color), (len(pa), 3))
            raster_kernels.draw_triangles(self.planes, pa, pb, pc, rgb)
            return
        lo = np.floor(np.minimum(np.minimum(pa, pb), pc)).astype(np.int64)
        hi = np.ceil(np.maximum(np.maximum(pa, pb), pc)).astype(np.int64)
        owner, i, j = self._boxes(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1])
        q = np.stack([i + 0.5, j + 0.5], axis=1)

        def side(p0, p1):
            e = (p1 - p0)[owner]
            w = q - p0[owner]
            return e[:, 0] * w[:, 1] - e[:, 1] * w[:, 0]

        s1, s2, s3 = side(pa, pb), side(pb, pc), side(pc, pa)
        inside = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
        hit = np.flatnonzero(inside)
        cover = np.ones(len(hit), np.float32)
        pixel = j[hit] * self.width + i[hit]
        self._compose(pixel, cover, owner[hit], hex_to_rgb(color).reshape(-1, 3))

    def blend_mask(self, mask: np.ndarray, color: int) -> None:
        """Blend ``color`` by coverage ``mask``: float ``(height, width)``, row 0 at the bottom."""
        m = mask.astype(np.float32)
        for plane, value in zip(self.planes, hex_to_rgb(color), strict=True):
            plane *= 1.0 - m
            plane += value * m


def circle_samples(
    pos: np.ndarray, radius: np.ndarray, width: int, height: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The covered pixels of circles, without a kernel: ``(pixel, alpha, owner)``.

    ``pixel`` is the flat index ``y * width + x``, ``alpha`` in ``(0, 1]`` its coverage
    ``clip(r - d, 0, 1)`` (``d`` from the pixel's corner) and ``owner`` the circle.
    Every circle is looked at in one ``(n, k, k)`` box of corners around its centre,
    ``k = 2 * ceil(max radius)`` (4 for radius 1.5); corners off the canvas get an
    infinite distance, so one ``alpha > 0`` test keeps exactly the covered pixels.

    >>> p, a, o = circle_samples(np.array([[0.5, 0.5]]), np.array([1.5]), 4, 4)
    >>> sorted(p.tolist())  # corners 1..3 around the centre (2, 2)
    [5, 6, 7, 9, 10, 11, 13, 14, 15]
    >>> round(float(a.max()), 4), round(float(a.min()), 4)  # 1.5 - sqrt(2) at the corners
    (1.0, 0.0858)
    """
    n = len(pos)
    cx = pos[:, 0].astype(np.float32) * np.float32(width)
    cy = pos[:, 1].astype(np.float32) * np.float32(height)
    r = np.asarray(radius, np.float32)
    reach = int(np.ceil(float(r.max()))) if n else 0
    k = max(2 * reach, 1)
    steps = np.arange(1 - reach, 1 - reach + k, dtype=np.int32)
    px = np.floor(cx).astype(np.int32)[:, None] + steps  # (n, k) corner columns
    py = np.floor(cy).astype(np.int32)[:, None] + steps
    dx2 = np.square(px - cx[:, None])
    dy2 = np.square(py - cy[:, None])
    dx2[(px < 0) | (px >= width)] = np.inf
    dy2[(py < 0) | (py >= height)] = np.inf
    alpha = (r[:, None, None] - np.sqrt(dy2[:, :, None] + dx2[:, None, :])).ravel()
    hit = np.flatnonzero(alpha > 0)
    owner = hit // (k * k)
    row = hit // k  # the (circle, dy) row of py
    col = owner * k + hit % k  # the (circle, dx) column of px
    pixel = py.ravel()[row] * width + px.ravel()[col]
    return pixel, np.minimum(alpha[hit], 1.0), owner
