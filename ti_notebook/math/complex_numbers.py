"""Complex numbers as 2-vectors ``(real, imaginary)``: Taichi's ``ti.math`` helpers.

``cmul``, ``cdiv``, ``cconj``, ``cinv``, ``csqrt`` (the principal root), ``cpow`` (real
exponent), ``cexp``, ``clog`` (principal branch) - each a ``ti.pyfunc`` returning a
``vec2``, in kernels and from Python. ``csqrt`` and ``cpow`` of zero are zero:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> z = ti.math.vec2(3, 4)
    >>> cmul(z, cconj(z)).tolist(), csqrt(ti.math.vec2(-4, 0)).tolist()[1], cdiv(z, z).tolist()
    ([25.0, 0.0], 2.0, [1.0, 0.0])
"""

from __future__ import annotations

from ti_notebook.lang import ops
from ti_notebook.lang.func import pyfunc
from ti_notebook.math.glsl import dot, vec2

__all__ = ["cconj", "cdiv", "cexp", "cinv", "clog", "cmul", "cpow", "csqrt"]


@pyfunc
def cmul(z1, z2):
    """``z1 * z2``."""
    x1, y1 = z1[0], z1[1]
    x2, y2 = z2[0], z2[1]
    return vec2(x1 * x2 - y1 * y2, x1 * y2 + x2 * y1)


@pyfunc
def cconj(z):
    """The conjugate ``(re, -im)``."""
    return vec2(z[0], -z[1])


@pyfunc
def cdiv(z1, z2):
    """``z1 / z2``."""
    x1, y1 = z1[0], z1[1]
    x2, y2 = z2[0], z2[1]
    return vec2(x1 * x2 + y1 * y2, -x1 * y2 + x2 * y1) / dot(z2, z2)


@pyfunc
def csqrt(z):
    """The principal square root (zero of zero)."""
    result = vec2(0.0)
    if z[0] != 0 or z[1] != 0:
        r = ops.sqrt(z.norm())
        a = ops.atan2(z[1], z[0])
        result = r * vec2(ops.cos(a / 2.0), ops.sin(a / 2.0))
    return result


@pyfunc
def cinv(z):
    """``1 / z``."""
    return cconj(z) / dot(z, z)


@pyfunc
def cpow(z, n):
    """``z`` to the real power ``n`` (zero of zero)."""
    result = vec2(0.0)
    if z[0] != 0 or z[1] != 0:
        r2 = dot(z, z)
        a = ops.atan2(z[1], z[0]) * n
        result = ops.pow(r2, n / 2.0) * vec2(ops.cos(a), ops.sin(a))
    return result


@pyfunc
def cexp(z):
    """``e ** z``."""
    r = ops.exp(z[0])
    return vec2(r * ops.cos(z[1]), r * ops.sin(z[1]))


@pyfunc
def clog(z):
    """The principal natural logarithm ``(log |z|, arg z)``."""
    ang = ops.atan2(z[1], z[0])
    r2 = dot(z, z)
    return vec2(ops.log(r2) / 2.0, ang)
