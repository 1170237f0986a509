"""The 3-D rasteriser of ``ti.ui.Scene``: z-buffered particles, meshes and lines as kernels.

Two passes per scene, both ordinary ti_notebook kernels (the CPU backend and CUDA run
them unchanged):

1. **visibility**: each primitive (a particle's screen disc, drawn by
   :mod:`ti_notebook.ui.ggui.particles`, a triangle, a line's quad)
   visits the pixels of its bounding box and, where it covers the pixel, does one
   ``atomic_min`` of a 64-bit key ``depth << 32 | slot << 24 | element`` into ``key``.
   The nearest primitive wins whatever order the threads run in (ties: the lower
   element), so the picture is deterministic.
2. **shading** (:func:`resolve`): each pixel decodes its winner and shades it once:
   the sphere impostor's normal and surface point for a particle, perspective-correct
   barycentric interpolation of colour and normal for a triangle; Lambert lighting from
   the scene's point lights plus ambient, as Taichi's shaders compute it.

Depth is the view-space distance along the camera's axis divided by ``z_far``,
quantised to 31 bits. Camera, lights and the per-renderable settings live in small
fields (:mod:`ti_notebook.ui.ggui.buffers`), so moving the camera never recompiles.

Uniform slots of ``uni`` (see :data:`U`): the view matrix (row-major, 16 values), the
projection (mode, x/y scale, ortho centre), near/far, ``tan(fov/2)``, ambient light,
light count, window size.
"""

from __future__ import annotations

from ti_notebook.lang.matrix import Vector
from ti_notebook.lang.ndarray import template
from ti_notebook.lang.ops import abs as tabs
from ti_notebook.lang.ops import atomic_min, cast, ceil, floor, sqrt, static
from ti_notebook.lang.ops import max as tmax
from ti_notebook.lang.ops import min as tmin
from ti_notebook.lang.types import i32, i64
from ti_notebook.session.kernel import func, kernel
from ti_notebook.ui.ggui.raster2d import along  # (t along s0->s1, distance) of a pixel

# uniform layout (indices into the ``uni`` field)
U = {
    "view": 0,  # 16 values, row-major
    "ortho": 16,  # 0 perspective, 1 orthogonal
    "sx": 17,  # x_ndc = sx * x_view / depth (perspective) or sx * (x_view - cx) (ortho)
    "sy": 18,
    "cx": 19,
    "cy": 20,
    "near": 21,
    "far": 22,
    "tan_half_fov": 23,
    "ambient": 24,  # 3 values
    "lights": 27,  # how many point lights
    "width": 28,
    "height": 29,
    "camera": 32,  # 3 values: the camera's position in world space
}
UNIFORMS = 40
MAX_LIGHTS = 16
MAX_SLOTS = 64
# renderable kinds (``rint[slot, 0]``)
PARTICLES, MESH, LINES = 0, 1, 2
# flags (``rint[slot, 1]``)
PER_VERTEX_COLOR, TWO_SIDED, HAS_NORMALS, PER_VERTEX_RADIUS, INDEXED = 1, 2, 4, 8, 16
EMPTY = 0x7FFFFFFFFFFFFFFF
DEPTH_SCALE = 2147483647.0
ELEMENT_BITS = 24  # 16M elements a draw call; with 6 bits of slot, 30 bits


@func
def view_point(uni: template(), p):
    """World -> view space (camera looks down -z)."""
    x = uni[0] * p[0] + uni[1] * p[1] + uni[2] * p[2] + uni[3]
    y = uni[4] * p[0] + uni[5] * p[1] + uni[6] * p[2] + uni[7]
    z = uni[8] * p[0] + uni[9] * p[1] + uni[10] * p[2] + uni[11]
    return Vector([x, y, z])


@func
def to_screen(uni: template(), v):
    """View space -> (pixel x, pixel y, depth); depth is the distance along the axis."""
    d = -v[2]
    nx = 0.0
    ny = 0.0
    if uni[16] > 0.5:
        nx = uni[17] * (v[0] - uni[19])
        ny = uni[18] * (v[1] - uni[20])
    else:
        dd = tmax(d, 1e-6)
        nx = uni[17] * v[0] / dd
        ny = uni[18] * v[1] / dd
    return Vector([(nx + 1.0) * 0.5 * uni[28], (ny + 1.0) * 0.5 * uni[29], d])


@func
def particle_pixels(uni: template(), p, v, r):
    """A particle's radius in pixels: Taichi's rule (radius / (tan(fov/2) * distance) of
    half the width) in perspective, the world-to-pixel scale in orthogonal projection."""
    rp = 0.0
    if uni[16] > 0.5:
        rp = r * uni[18] * 0.5 * uni[29]
    else:
        cam = Vector([uni[32], uni[33], uni[34]])
        dist = tmax((p - cam).norm(), 1e-6)
        rp = r / (uni[23] * dist) * 0.5 * uni[28]
    return rp


@func
def depth_key(scale, d, tag):
    """``scale`` is ``DEPTH_SCALE / z_far``; ``tag`` the primitive's slot and element."""
    q = cast(tmin(tmax(d * scale, 0.0), DEPTH_SCALE), i64)
    return (q << 32) | tag


@func
def keep_nearest(key: template(), x, y, k):
    # a plain load first: most covered pixels already hold a nearer key, and the
    # 64-bit atomic min (a compare-and-swap loop) costs far more than the load
    if k < key[x, y]:
        atomic_min(key[x, y], k)


@func
def vertex_index(rint: template(), idx: template(), slot, k):
    """The staging position of a renderable's ``k``-th corner (indexed or not)."""
    j = rint[slot, 2] + k
    if rint[slot, 1] & INDEXED:
        j = rint[slot, 2] + idx[rint[slot, 3] + k]
    return j


@kernel
def clear_keys(key: template()):
    for x, y in key:
        key[x, y] = i64(EMPTY)


@func
def edge(ax, ay, bx, by, px, py):
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@kernel
def splat_triangles(
    pos: template(),
    idx: template(),
    key: template(),
    uni: template(),
    rint: template(),
    slot: i32,
    n: i32,
):
    w = cast(uni[28], i32)
    h = cast(uni[29], i32)
    scale = DEPTH_SCALE / uni[22]
    for e in range(n):
        tag = cast((slot << ELEMENT_BITS) | e, i64)
        s0 = to_screen(uni, view_point(uni, pos[vertex_index(rint, idx, slot, 3 * e)]))
        s1 = to_screen(uni, view_point(uni, pos[vertex_index(rint, idx, slot, 3 * e + 1)]))
        s2 = to_screen(uni, view_point(uni, pos[vertex_index(rint, idx, slot, 3 * e + 2)]))
        area = edge(s0[0], s0[1], s1[0], s1[1], s2[0], s2[1])
        near = tmin(s0[2], tmin(s1[2], s2[2]))
        # a triangle crossing the near plane is dropped (no clipping), as is a sliver
        if near > uni[21] and tabs(area) > 1e-12:
            x0 = tmax(0, cast(floor(tmin(s0[0], tmin(s1[0], s2[0]))), i32))
            x1 = tmin(w - 1, cast(ceil(tmax(s0[0], tmax(s1[0], s2[0]))), i32))
            y0 = tmax(0, cast(floor(tmin(s0[1], tmin(s1[1], s2[1]))), i32))
            y1 = tmin(h - 1, cast(ceil(tmax(s0[1], tmax(s1[1], s2[1]))), i32))
            inv = 1.0 / area
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    px = x + 0.5
                    py = y + 0.5
                    b0 = edge(s1[0], s1[1], s2[0], s2[1], px, py) * inv
                    b1 = edge(s2[0], s2[1], s0[0], s0[1], px, py) * inv
                    b2 = 1.0 - b0 - b1
                    if b0 >= 0.0 and b1 >= 0.0 and b2 >= 0.0:
                        d = 1.0 / (b0 / s0[2] + b1 / s1[2] + b2 / s2[2])
                        if d < uni[22]:
                            keep_nearest(key, x, y, depth_key(scale, d, tag))


@kernel
def splat_lines(
    pos: template(),
    idx: template(),
    key: template(),
    uni: template(),
    rint: template(),
    rflt: template(),
    slot: i32,
    n: i32,
):
    w = cast(uni[28], i32)
    h = cast(uni[29], i32)
    half = rflt[slot, 3] * 0.5
    scale = DEPTH_SCALE / uni[22]
    for e in range(n):
        tag = cast((slot << ELEMENT_BITS) | e, i64)
        s0 = to_screen(uni, view_point(uni, pos[vertex_index(rint, idx, slot, 2 * e)]))
        s1 = to_screen(uni, view_point(uni, pos[vertex_index(rint, idx, slot, 2 * e + 1)]))
        if tmin(s0[2], s1[2]) > uni[21]:
            x0 = tmax(0, cast(floor(tmin(s0[0], s1[0]) - half), i32))
            x1 = tmin(w - 1, cast(ceil(tmax(s0[0], s1[0]) + half), i32))
            y0 = tmax(0, cast(floor(tmin(s0[1], s1[1]) - half), i32))
            y1 = tmin(h - 1, cast(ceil(tmax(s0[1], s1[1]) + half), i32))
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    td = along(s0, s1, x + 0.5, y + 0.5)
                    if td[0] >= 0.0 and td[0] <= 1.0 and td[1] <= half:
                        d = s0[2] + (s1[2] - s0[2]) * td[0]
                        keep_nearest(key, x, y, depth_key(scale, d, tag))


@func
def lambert(uni: template(), lpos: template(), lcol: template(), c, p, nrm, two_sided):
    """Ambient plus each point light's diffuse term, in world space (Taichi's shaders)."""
    out = Vector([uni[24] * c[0], uni[25] * c[1], uni[26] * c[2]])
    nn = nrm.normalized()
    for li in range(cast(uni[27], i32)):
        ld = (lpos[li] - p).normalized()
        f = ld.dot(nn)
        if two_sided:  # noqa: SIM108 - a statement-level branch keeps the kernel simple
            f = tabs(f)
        else:
            f = tmax(f, 0.0)
        out += f * c * lcol[li]
    return out


@func
def camera_to_world(uni: template(), a):
    """A direction in view space -> world space (the view matrix's rotation, transposed)."""
    return Vector(
        [
            uni[0] * a[0] + uni[4] * a[1] + uni[8] * a[2],
            uni[1] * a[0] + uni[5] * a[1] + uni[9] * a[2],
            uni[2] * a[0] + uni[6] * a[1] + uni[10] * a[2],
        ]
    )


@kernel
def resolve(
    key: template(),
    color: template(),
    pos: template(),
    col: template(),
    nrm: template(),
    rad: template(),
    idx: template(),
    uni: template(),
    rint: template(),
    rflt: template(),
    lpos: template(),
    lcol: template(),
):
    for x, y in key:
        k = key[x, y]
        if k != i64(EMPTY):
            low = cast(k & i64(0x3FFFFFFF), i32)  # slot and element: 32 bits minus the sign's
            slot = low >> ELEMENT_BITS
            e = low & ((1 << ELEMENT_BITS) - 1)
            kind = rint[slot, 0]
            flags = rint[slot, 1]
            base = Vector([rflt[slot, 0], rflt[slot, 1], rflt[slot, 2]])
            out = base
            px = x + 0.5
            py = y + 0.5
            if kind == PARTICLES:
                i = rint[slot, 2] + e
                p = pos[i]
                r = rflt[slot, 3]
                if flags & PER_VERTEX_RADIUS:
                    r = rad[i]
                c = base
                if flags & PER_VERTEX_COLOR:
                    c = col[i]
                v = view_point(uni, p)
                s = to_screen(uni, v)
                inv = 1.0 / tmax(particle_pixels(uni, p, v, r), 1e-6)
                a = (px - s[0]) * inv
                b = (py - s[1]) * inv
                zc = sqrt(tmax(1.0 - a * a - b * b, 0.0))
                nw = camera_to_world(uni, Vector([a, b, zc]))
                out = lambert(uni, lpos, lcol, c, p + nw * r, nw, False)
            elif kind == MESH:
                j0 = vertex_index(rint, idx, slot, 3 * e)
                j1 = vertex_index(rint, idx, slot, 3 * e + 1)
                j2 = vertex_index(rint, idx, slot, 3 * e + 2)
                s0 = to_screen(uni, view_point(uni, pos[j0]))
                s1 = to_screen(uni, view_point(uni, pos[j1]))
                s2 = to_screen(uni, view_point(uni, pos[j2]))
                inv = 1.0 / edge(s0[0], s0[1], s1[0], s1[1], s2[0], s2[1])
                b0 = edge(s1[0], s1[1], s2[0], s2[1], px, py) * inv / s0[2]
                b1 = edge(s2[0], s2[1], s0[0], s0[1], px, py) * inv / s1[2]
                b2 = (1.0 - (b0 * s0[2]) - (b1 * s1[2])) / s2[2]
                sw = b0 + b1 + b2
                b0 /= sw
                b1 /= sw
                b2 /= sw
                p = b0 * pos[j0] + b1 * pos[j1] + b2 * pos[j2]
                c = base
                if flags & PER_VERTEX_COLOR:
                    c = b0 * col[j0] + b1 * col[j1] + b2 * col[j2]
                n3 = (pos[j1] - pos[j0]).cross(pos[j2] - pos[j0])
                if flags & HAS_NORMALS:
                    n3 = b0 * nrm[j0] + b1 * nrm[j1] + b2 * nrm[j2]
                out = lambert(uni, lpos, lcol, c, p, n3, (flags & TWO_SIDED) != 0)
            else:
                if flags & PER_VERTEX_COLOR:
                    j0 = vertex_index(rint, idx, slot, 2 * e)
                    j1 = vertex_index(rint, idx, slot, 2 * e + 1)
                    s0 = to_screen(uni, view_point(uni, pos[j0]))
                    s1 = to_screen(uni, view_point(uni, pos[j1]))
                    t = tmin(tmax(along(s0, s1, px, py)[0], 0.0), 1.0)
                    out = col[j0] * (1.0 - t) + col[j1] * t
            for ch in static(range(3)):
                color[x, y][ch] = tmin(tmax(out[ch], 0.0), 1.0)


__all__ = ["MAX_LIGHTS", "MAX_SLOTS", "U", "UNIFORMS", "resolve", "splat_triangles"]
