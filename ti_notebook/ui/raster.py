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

Calls compose in call order. Inside one batched call (``circles``, ``lines``,
``triangles``) every primitive is splatted at once with NumPy: a pixel's coverage is
``1 - prod(1 - a_k)`` over the primitives touching it and its colour is that of the
last of them in the batch (``np.maximum.at`` on the primitive index). That equals
drawing one by one whenever the touching primitives share a colour or do not overlap,
and keeps the later primitive on top where colours differ.

>>> c = Canvas(8, 8)
>>> c.circles(np.array([[0.5, 0.5]]), np.array([3.0]), np.array([0xFF0000]))
>>> c.planes[:, 4, 4].tolist(), c.planes[:, 4, 7].tolist()
([1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

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
        """Blend contributions ``alpha`` of primitives ``owner`` at flat ``pixel`` indices."""
        if pixel.size == 0:
            return
        size = self.width * self.height
        # no compaction by alpha > 0: a zero adds log(1) = 0 and owns nothing (-1)
        log_transmit = np.log(np.maximum(1.0 - alpha, _MIN_TRANSMIT))
        total = np.bincount(pixel, weights=log_transmit, minlength=size)
        touched = np.flatnonzero(total < 0)
        last = np.full(size, -1, np.int32)
        np.maximum.at(last, pixel, np.where(alpha > 0, owner, -1).astype(np.int32))
        transmit = np.exp(total[touched])
        transmit[transmit <= _MIN_TRANSMIT * 1.001] = 0.0  # a full cover stays exactly full
        cover = (1.0 - transmit).astype(np.float32)
        keep = 1.0 - cover
        owners = last[touched]
        for ch, plane in enumerate(self.planes.reshape(3, size)):
            plane[touched] = plane[touched] * keep + colors[owners, ch] * cover

    # primitives --------------------------------------------------------------------

    def circles(self, pos: np.ndarray, radius: np.ndarray, color: np.ndarray) -> None:
        """Filled anti-aliased circles: ``pos (n, 2)`` in ``[0, 1]``, ``radius (n,)`` in pixels."""
        n = len(pos)
        if n == 0:
            return
        cx = pos[:, 0].astype(np.float32) * self.width
        cy = pos[:, 1].astype(np.float32) * self.height
        r = radius.astype(np.float32)
        # |corner - centre| < r needs offsets -ceil(r) + 1 .. ceil(r) from floor(centre)
        reach = int(np.ceil(float(r.max())))
        steps = np.arange(1 - reach, reach + 1, dtype=np.int32)
        # pixel corners around each centre: a (n, k) grid per axis, k = 2 * reach + 1
        px = np.floor(cx).astype(np.int32)[:, None] + steps
        py = np.floor(cy).astype(np.int32)[:, None] + steps
        dx2 = (px - cx[:, None]) ** 2
        dy2 = (py - cy[:, None]) ** 2
        dist = np.sqrt(dx2[:, None, :] + dy2[:, :, None])  # (n, ky, kx)
        alpha = np.clip(r[:, None, None] - dist, 0.0, 1.0)
        inside_x = (px >= 0) & (px < self.width)
        inside_y = (py >= 0) & (py < self.height)
        alpha *= inside_y[:, :, None] & inside_x[:, None, :]
        pixel = (
            np.clip(py, 0, self.height - 1)[:, :, None] * self.width
            + np.clip(px, 0, self.width - 1)[:, None, :]
        )
        owner = np.broadcast_to(np.arange(n)[:, None, None], alpha.shape)
        self._compose(pixel.ravel(), alpha.ravel(), owner.ravel(), hex_to_rgb(color))

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
        lo = np.floor(np.minimum(a, b) - r[:, None] - 1).astype(np.int64)
        hi = np.ceil(np.maximum(a, b) + r[:, None]).astype(np.int64)
        owner, i, j = self._boxes(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1])
        qa = np.stack([i + 0.5, j + 0.5], axis=1) - a[owner]
        ab = (b - a)[owner]
        length2 = np.einsum("ij,ij->i", ab, ab)
        t = np.clip(np.einsum("ij,ij->i", qa, ab) / np.maximum(length2, 1e-12), 0.0, 1.0)
        d = np.hypot(*(qa - ab * t[:, None]).T)
        alpha = np.clip(r[owner] - d, 0.0, 1.0)
        self._compose(j * self.width + i, alpha, owner, hex_to_rgb(color))

    def triangles(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, color) -> None:
        """Filled triangles: a pixel is covered when its centre is inside (Taichi's rule)."""
        if len(a) == 0:
            return
        scale = np.array([self.width, self.height], np.float64)
        pa, pb, pc = (np.asarray(v, np.float64) * scale for v in (a, b, c))
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
        self._compose(j * self.width + i, inside.astype(np.float32), owner, hex_to_rgb(color))

    def blend_mask(self, mask: np.ndarray, color: int) -> None:
        """Blend ``color`` by coverage ``mask``: float ``(height, width)``, row 0 at the bottom."""
        m = mask.astype(np.float32)
        for plane, value in zip(self.planes, hex_to_rgb(color), strict=True):
            plane *= 1.0 - m
            plane += value * m
