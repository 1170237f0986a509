"""Python-scope vectors and matrices a kernel reads become compile-time constants.

A ``ti.Vector``/``ti.Matrix`` value reached from a kernel or ``ti.func`` - a global, a
closure variable, a default argument, an attribute of a captured object, what a Python
helper returns while compiling - becomes a kernel
:class:`~ti_notebook.frontend.values.Vector` of constants of its element type (a value
made without ``dt`` takes the kernel's ``default_ip``/``default_fp``). Its value is
read when the kernel compiles, as in Taichi; the offline cache fingerprints it
(``cache/fingerprint.py``), so a changed value compiles again.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> light = ti.Vector([0.0, 3.0, 4.0])
    >>> @ti.kernel
    ... def brightness() -> ti.f32:
    ...     return light.norm() + light.y
    >>> brightness()
    8.0
"""

from __future__ import annotations

import numpy as np

from ti_notebook.frontend.values import Vector
from ti_notebook.lang import matrix_dtypes
from ti_notebook.lang.matrix import Matrix


def kernel_value(ctx, value):
    """``value`` as the kernel sees it: a Python-scope matrix as constants, a NumPy scalar
    (``n = a.shape[0] * 2`` is an ``np.int64``) as the Python number it holds, as
    Taichi takes both; anything else as itself."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if not isinstance(value, Matrix):
        return value
    config = ctx.config
    dtype = matrix_dtypes.resolve(value._spec, config.default_ip, config.default_fp)
    entries = value.entries
    items = [ctx.builder.const(item, dtype) for item in entries.reshape(-1).tolist()]
    return Vector(items, entries.shape)
