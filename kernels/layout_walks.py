"""The loops of the layout experiments: a row-major walk, a column-major walk, a
struct-for, and the wave step of the *Fields (advanced)* page.

The same kernel over differently placed fields shows what the layout costs (tutorial
02, ``benchmarks/layouts.py``): each takes its fields as ``ti.template()`` arguments.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> a = ti.field(ti.f32, shape=(4, 4))
    >>> row_major_walk(a, 1.0); column_major_walk(a, 2.0); struct_for_walk(a, 0.5)
    >>> float(a.to_numpy().sum())
    56.0
"""

from __future__ import annotations

import ti_notebook as ti


@ti.kernel
def row_major_walk(a: ti.template(), value: ti.f32):
    """``a[i, j] += value`` with ``j`` fastest (``ti.ndrange``, as C loops)."""
    for i, j in ti.ndrange(a.shape[0], a.shape[1]):
        a[i, j] += value


@ti.kernel
def column_major_walk(a: ti.template(), value: ti.f32):
    """``a[i, j] += value`` with ``i`` fastest."""
    for j, i in ti.ndrange(a.shape[1], a.shape[0]):
        a[i, j] += value


@ti.kernel
def struct_for_walk(a: ti.template(), value: ti.f32):
    """``a[I] += value`` in ``a``'s own memory order (a struct-for)."""
    for cell in ti.grouped(a):
        a[cell] += value


@ti.kernel
def wave_step(pos: ti.template(), vel: ti.template(), dt: ti.f32, k: ti.f32):
    """One explicit step of ``pos'' = -k pos``: ``vel += -k pos dt; pos += vel dt``."""
    for i in pos:
        vel[i] += -k * pos[i] * dt
        pos[i] += vel[i] * dt
