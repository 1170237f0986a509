"""Particles of ``ti.ui.Scene`` as sphere impostors, with coarse occlusion culling.

A cloud of 100,000 particles draws each screen pixel tens of times over, and only the
nearest sphere is seen. Before drawing, :func:`occlude_particles` records for every
``TILE x TILE`` block of pixels the nearest *centre* depth of a particle whose disc
covers the whole block; a sphere's front surface is never behind its centre, so every
pixel of the block ends up at least that near. :func:`splat_particles` then skips a
particle whose nearest point (centre depth minus radius) lies strictly behind the
record of every block its screen square touches: all its pixels would lose the depth
test anyway (a partly hidden particle is drawn whole). The comparison
is made on the quantised depths the keys hold, so the picture is the same, bit for
bit, as without culling (``cull=0``), only cheaper where the cloud is dense.

A disc is drawn column by column (the pixel centres strictly inside
it), each pixel's key (sphere depth, slot, element) kept by an atomic min as in
:mod:`ti_notebook.ui.ggui.raster3d`.
"""

from __future__ import annotations

from ti_notebook.lang.ndarray import template
from ti_notebook.lang.ops import abs as tabs
from ti_notebook.lang.ops import atomic_min, cast, ceil, floor, sqrt
from ti_notebook.lang.ops import max as tmax
from ti_notebook.lang.ops import min as tmin
from ti_notebook.lang.types import i32, i64
from ti_notebook.session.kernel import func, kernel
from ti_notebook.ui.ggui.raster3d import (
    DEPTH_SCALE,
    ELEMENT_BITS,
    PER_VERTEX_RADIUS,
    depth_key,
    keep_nearest,
    particle_pixels,
    to_screen,
    view_point,
)

__all__ = ["TILE", "clear_occluders", "occlude_particles", "splat_particles"]

TILE = 4
FAR = 0x7FFFFFFF


@func
def quantised(scale, d):
    return cast(tmin(tmax(d * scale, 0.0), DEPTH_SCALE), i32)


@func
def particle_on_screen(uni: template(), pos: template(), rad: template(), rint: template(),
                       rflt: template(), slot, e):  # fmt: skip
    """(pixel x, pixel y, depth, pixel radius, world radius); radius 0: not drawn."""
    i = rint[slot, 2] + e
    p = pos[i]
    r = rflt[slot, 3]
    if rint[slot, 1] & PER_VERTEX_RADIUS:
        r = rad[i]
    v = view_point(uni, p)
    s = to_screen(uni, v)
    rp = 0.0
    if s[2] - r > uni[21] and s[2] < uni[22]:
        rp = particle_pixels(uni, p, v, r)
    return s[0], s[1], s[2], rp, r


@kernel
def clear_occluders(occ: template()):
    for tx, ty in occ:
        occ[tx, ty] = FAR


@kernel
def occlude_particles(
    pos: template(), rad: template(), occ: template(), uni: template(), rint: template(),
    rflt: template(), slot: i32, n: i32,
):  # fmt: skip
    tw = occ.shape[0]
    th = occ.shape[1]
    scale = DEPTH_SCALE / uni[22]
    reach = (TILE - 1) * 0.70710678  # a block's pixel centres lie this far from its middle
    for e in range(n):
        sx, sy, sz, rp, r = particle_on_screen(uni, pos, rad, rint, rflt, slot, e)
        if rp > reach:
            q = quantised(scale, sz)
            rr = rp * rp * 0.999  # strictly inside, as the drawing rule
            # blocks inside the disc lie near its inscribed square: looking only there
            # misses a few occluders (never marks a block the disc does not cover)
            inner = rp * 0.75
            tx0 = tmax(0, cast(floor((sx - inner) / TILE), i32))
            tx1 = tmin(tw - 1, cast(floor((sx + inner) / TILE), i32))
            ty0 = tmax(0, cast(floor((sy - inner) / TILE), i32))
            ty1 = tmin(th - 1, cast(floor((sy + inner) / TILE), i32))
            for tx in range(tx0, tx1 + 1):
                ax = tmax(tabs(tx * TILE + 0.5 - sx), tabs(tx * TILE + TILE - 0.5 - sx))
                for ty in range(ty0, ty1 + 1):
                    ay = tmax(tabs(ty * TILE + 0.5 - sy), tabs(ty * TILE + TILE - 0.5 - sy))
                    if ax * ax + ay * ay < rr and q < occ[tx, ty]:
                        atomic_min(occ[tx, ty], q)


@kernel
def splat_particles(
    pos: template(), rad: template(), key: template(), occ: template(), uni: template(),
    rint: template(), rflt: template(), slot: i32, n: i32, cull: i32,
):  # fmt: skip
    w = key.shape[0]
    h = key.shape[1]
    scale = DEPTH_SCALE / uni[22]
    for e in range(n):
        tag = cast((slot << ELEMENT_BITS) | e, i64)
        sx, sy, sz, rp, r = particle_on_screen(uni, pos, rad, rint, rflt, slot, e)
        x0 = tmax(0, cast(floor(sx - rp), i32))
        x1 = tmin(w - 1, cast(ceil(sx + rp), i32))
        y0 = tmax(0, cast(floor(sy - rp), i32))
        y1 = tmin(h - 1, cast(ceil(sy + rp), i32))
        hidden = rp <= 0.0 or x0 > x1 or y0 > y1
        if cull and not hidden:
            # hidden when behind the occluder of every block its square touches
            nearest = quantised(scale, sz - r)
            hidden = True
            for tx in range(x0 // TILE, x1 // TILE + 1):
                for ty in range(y0 // TILE, y1 // TILE + 1):
                    if nearest <= occ[tx, ty]:
                        hidden = False
        if not hidden:
            inv = 1.0 / rp
            for x in range(x0, x1 + 1):
                a = (x + 0.5 - sx) * inv
                if a * a < 1.0:
                    # the disc's column: pixel centres strictly inside it, no test per pixel
                    half = sqrt(1.0 - a * a) * rp
                    ya = tmax(0, cast(floor(sy - half - 0.5), i32) + 1)
                    yb = tmin(h - 1, cast(ceil(sy + half - 0.5), i32) - 1)
                    for y in range(ya, yb + 1):
                        b = (y + 0.5 - sy) * inv
                        d = sz - sqrt(tmax(1.0 - a * a - b * b, 0.0)) * r
                        keep_nearest(key, x, y, depth_key(scale, d, tag))
