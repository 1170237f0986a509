"""The Laplacian stencils: 2-D 5-point and 3-D 7-point, with and without block-local
storage. They write ``out`` on the interior cells (every index with a neighbour on each
side) and leave the border alone.

The ``_block_local`` versions ask for ``ti.block_local(u)`` and loop over ``out`` (a
struct-for, as BLS needs): place ``u`` and ``out`` in a pointer or dense grid of small
blocks, e.g. ``ti.root.pointer(ti.ij, 64).dense(ti.ij, 8).place(u, out)``.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> u, out = ti.field(ti.f32, (4, 4)), ti.field(ti.f32, (4, 4))
    >>> u.from_numpy(np.arange(16, dtype=np.float32).reshape(4, 4) ** 2)
    >>> laplace_2d(u, out)
    >>> float(out.to_numpy()[1, 1])  # (1 + 81 + 16 + 36) - 4 * 25
    34.0
"""

from __future__ import annotations

import ti_notebook as ti


@ti.kernel
def laplace_2d(u: ti.template(), out: ti.template()):
    """``out = u[i-1,j] + u[i+1,j] + u[i,j-1] + u[i,j+1] - 4 u[i,j]`` inside."""
    for i, j in ti.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@ti.kernel
def laplace_2d_block_local(u: ti.template(), out: ti.template()):
    """:func:`laplace_2d` through a block-local copy of ``u`` per block of ``out``."""
    ti.block_local(u)
    for i, j in out:
        if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
            out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@ti.kernel
def laplace_3d(u: ti.template(), out: ti.template()):
    """The 7-point Laplacian of ``u`` on the interior cells."""
    for i, j, k in ti.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1), (1, u.shape[2] - 1)):
        out[i, j, k] = (
            u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
            + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k]
        )  # fmt: skip


@ti.kernel
def laplace_3d_block_local(u: ti.template(), out: ti.template()):
    """:func:`laplace_3d` through a block-local copy of ``u`` per block of ``out``."""
    ti.block_local(u)
    for i, j, k in out:
        inside = 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1 and 0 < k < u.shape[2] - 1
        if inside:
            out[i, j, k] = (
                u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k]
            )  # fmt: skip
