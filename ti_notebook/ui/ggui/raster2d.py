"""The 2-D rasteriser of ``ti.ui.Canvas``: circles, lines and triangles as kernels.

Positions are in ``[0, 1]²``, y up. As in Taichi's shaders, a circle's ``radius`` and a
line's ``width`` are fractions of the window's **height** (a circle of radius 0.05 in a
512-pixel-high window is 25.6 pixels across its radius; a line of width 0.01 is 5.12
pixels wide, square ends). Each draw call is two kernels:

1. :func:`cover_circles` / :func:`cover_lines` / :func:`cover_triangles`: every
   primitive writes ``atomic_max(ids[x, y], element)`` over the pixels it covers, so
   where primitives overlap the one drawn later wins (GPU draw order) whatever order the
   threads run in;
2. :func:`resolve`: each covered pixel takes its primitive's colour (a triangle's or
   line's per-vertex colours interpolated) and resets ``ids`` for the next call.
"""

from __future__ import annotations

from ti_notebook.lang.matrix import Vector
from ti_notebook.lang.ndarray import template
from ti_notebook.lang.ops import atomic_max, cast, ceil, floor, sqrt, static
from ti_notebook.lang.ops import max as tmax
from ti_notebook.lang.ops import min as tmin
from ti_notebook.lang.types import f32, i32
from ti_notebook.session.kernel import func, kernel

CIRCLES, LINES, TRIANGLES = 0, 1, 2


@func
def corner(idx: template(), voff, ioff, indexed, k):
    j = voff + k
    if indexed:
        j = voff + idx[ioff + k]
    return j


@func
def pixel(pos: template(), j, w, h):
    return Vector([pos[j][0] * w, pos[j][1] * h])


@kernel
def reset_ids(ids: template()):
    for x, y in ids:
        ids[x, y] = -1


@kernel
def cover_circles(
    pos: template(), rad: template(), ids: template(), voff: i32, n: i32, radius: f32, per_r: i32
):
    w = ids.shape[0]
    h = ids.shape[1]
    for e in range(n):
        c = pixel(pos, voff + e, w, h)
        r = radius * h
        if per_r:
            r = rad[voff + e] * h
        x0 = tmax(0, cast(floor(c[0] - r), i32))
        x1 = tmin(w - 1, cast(ceil(c[0] + r), i32))
        y0 = tmax(0, cast(floor(c[1] - r), i32))
        y1 = tmin(h - 1, cast(ceil(c[1] + r), i32))
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                dx = x + 0.5 - c[0]
                dy = y + 0.5 - c[1]
                if dx * dx + dy * dy < r * r:
                    atomic_max(ids[x, y], e)


@func
def along(a, b, px, py):
    """(t along a->b, distance from the line) of the pixel centre."""
    dx = b[0] - a[0]
    dy = b[1] - a[1]
    ll = tmax(dx * dx + dy * dy, 1e-12)
    t = ((px - a[0]) * dx + (py - a[1]) * dy) / ll
    ex = px - (a[0] + t * dx)
    ey = py - (a[1] + t * dy)
    return Vector([t, sqrt(ex * ex + ey * ey)])


@kernel
def cover_lines(
    pos: template(),
    idx: template(),
    ids: template(),
    voff: i32,
    ioff: i32,
    indexed: i32,
    n: i32,
    width: f32,
):
    w = ids.shape[0]
    h = ids.shape[1]
    half = width * h * 0.5
    for e in range(n):
        a = pixel(pos, corner(idx, voff, ioff, indexed, 2 * e), w, h)
        b = pixel(pos, corner(idx, voff, ioff, indexed, 2 * e + 1), w, h)
        x0 = tmax(0, cast(floor(tmin(a[0], b[0]) - half), i32))
        x1 = tmin(w - 1, cast(ceil(tmax(a[0], b[0]) + half), i32))
        y0 = tmax(0, cast(floor(tmin(a[1], b[1]) - half), i32))
        y1 = tmin(h - 1, cast(ceil(tmax(a[1], b[1]) + half), i32))
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                td = along(a, b, x + 0.5, y + 0.5)
                if td[0] >= 0.0 and td[0] <= 1.0 and td[1] <= half:
                    atomic_max(ids[x, y], e)


@func
def edge(a, b, px, py):
    return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])


@func
def barycentric(a, b, c, px, py):
    inv = 1.0 / edge(a, b, c[0], c[1])
    b0 = edge(b, c, px, py) * inv
    b1 = edge(c, a, px, py) * inv
    return Vector([b0, b1, 1.0 - b0 - b1])


@kernel
def cover_triangles(
    pos: template(), idx: template(), ids: template(), voff: i32, ioff: i32, indexed: i32, n: i32
):
    w = ids.shape[0]
    h = ids.shape[1]
    for e in range(n):
        a = pixel(pos, corner(idx, voff, ioff, indexed, 3 * e), w, h)
        b = pixel(pos, corner(idx, voff, ioff, indexed, 3 * e + 1), w, h)
        c = pixel(pos, corner(idx, voff, ioff, indexed, 3 * e + 2), w, h)
        area = edge(a, b, c[0], c[1])
        if area * area > 1e-18:
            x0 = tmax(0, cast(floor(tmin(a[0], tmin(b[0], c[0]))), i32))
            x1 = tmin(w - 1, cast(ceil(tmax(a[0], tmax(b[0], c[0]))), i32))
            y0 = tmax(0, cast(floor(tmin(a[1], tmin(b[1], c[1]))), i32))
            y1 = tmin(h - 1, cast(ceil(tmax(a[1], tmax(b[1], c[1]))), i32))
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    bc = barycentric(a, b, c, x + 0.5, y + 0.5)
                    if bc[0] >= 0.0 and bc[1] >= 0.0 and bc[2] >= 0.0:
                        atomic_max(ids[x, y], e)


@kernel
def resolve(
    ids: template(),
    color: template(),
    pos: template(),
    col: template(),
    idx: template(),
    kind: i32,
    voff: i32,
    ioff: i32,
    indexed: i32,
    per_vertex: i32,
    r: f32,
    g: f32,
    b: f32,
):
    w = ids.shape[0]
    h = ids.shape[1]
    for x, y in ids:
        e = ids[x, y]
        if e >= 0:
            out = Vector([r, g, b])
            if per_vertex:
                if kind == CIRCLES:
                    out = col[voff + e]
                elif kind == LINES:
                    j0 = corner(idx, voff, ioff, indexed, 2 * e)
                    j1 = corner(idx, voff, ioff, indexed, 2 * e + 1)
                    a = pixel(pos, j0, w, h)
                    bb = pixel(pos, j1, w, h)
                    t = tmin(tmax(along(a, bb, x + 0.5, y + 0.5)[0], 0.0), 1.0)
                    out = col[j0] * (1.0 - t) + col[j1] * t
                else:
                    j0 = corner(idx, voff, ioff, indexed, 3 * e)
                    j1 = corner(idx, voff, ioff, indexed, 3 * e + 1)
                    j2 = corner(idx, voff, ioff, indexed, 3 * e + 2)
                    bc = barycentric(
                        pixel(pos, j0, w, h), pixel(pos, j1, w, h), pixel(pos, j2, w, h),
                        x + 0.5, y + 0.5,
                    )  # fmt: skip
                    out = bc[0] * col[j0] + bc[1] * col[j1] + bc[2] * col[j2]
            for ch in static(range(3)):
                color[x, y][ch] = out[ch]
            ids[x, y] = -1


@kernel
def fill(color: template(), r: f32, g: f32, b: f32):
    for x, y in color:
        color[x, y] = Vector([r, g, b])


@kernel
def to_rgb8(color: template(), rgb: template()):
    """Linear ``[x, y]`` y-up floats -> ``uint8 (height, width, 3)``, row 0 on top."""
    h = color.shape[1]
    for x, y in color:
        for ch in static(range(3)):
            v = tmin(tmax(color[x, y][ch], 0.0), 1.0)
            rgb[h - 1 - y, x, ch] = cast(v * 255.0 + 0.5, i32)


__all__ = ["CIRCLES", "LINES", "TRIANGLES", "cover_circles", "fill", "resolve", "to_rgb8"]
