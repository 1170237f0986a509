"""GLSL-style vector types and functions of ``ti.math`` (Taichi's ``mathimpl``).

The types' element types follow ``ti.init`` when they are used: ``vec3`` is a vector of
``default_fp``, ``ivec3`` of ``default_ip``, ``uvec3`` of the unsigned type of that
width. Each function is a :func:`~ti_notebook.lang.func.pyfunc`: inlined in kernels and
``ti.func``\\ s, plain Python elsewhere, on scalars and vectors alike (written once, so
both agree), with Taichi's definitions: ``sign(0) == 0``, ``fract(x) = x - floor(x)``
(so ``fract(-0.25) == 0.75``), ``refract`` gives a zero vector on total internal
reflection, ``mod(x, y) = x - y * floor(x / y)``:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> clamp(1.5, 0.0, 1.0), sign(0.0), fract(-0.25), mix(0.0, 10.0, 0.3)
    (1.0, 0.0, 0.75, 3.0)
    >>> normalize(vec3(0, 3, 4)).tolist(), vec3(1).dtype, ivec2(1.7, -2.2).tolist()
    ([0.0, 0.6000000238418579, 0.800000011920929], f32, [1, -2])
"""

from __future__ import annotations

import math as _math

from ti_notebook.lang import ops
from ti_notebook.lang.element_type import DEFAULT_UNSIGNED
from ti_notebook.lang.func import pyfunc
from ti_notebook.lang.matrix import Matrix
from ti_notebook.lang.matrix_types import matrix, vector

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan

vec2, vec3, vec4 = (vector(n, float) for n in (2, 3, 4))
ivec2, ivec3, ivec4 = (vector(n, int) for n in (2, 3, 4))
uvec2, uvec3, uvec4 = (vector(n, DEFAULT_UNSIGNED) for n in (2, 3, 4))
mat2, mat3, mat4 = (matrix(n, n, float) for n in (2, 3, 4))

_LN2 = _math.log(2.0)
_DEGREES_PER_RADIAN = 180.0 / _math.pi
_RADIANS_PER_DEGREE = _math.pi / 180.0


@pyfunc
def mix(x, y, a):
    """``x * (1 - a) + y * a``. ``mix(vec2(0), vec2(2, 4), 0.5)`` is ``[1, 2]``."""
    return x * (1.0 - a) + y * a


@pyfunc
def clamp(x, xmin, xmax):
    """``min(max(x, xmin), xmax)``, element-wise. ``clamp(-1, 0, 1)`` is ``0``."""
    return ops.min(xmax, ops.max(xmin, x))


@pyfunc
def step(edge, x):
    """1.0 where ``x >= edge``, else 0.0, element-wise. ``step(0.5, 0.7)`` is ``1.0``."""
    return ops.cast(x >= edge, float)


@pyfunc
def fract(x):
    """``x - floor(x)``. ``fract(1.25)`` is ``0.25``, ``fract(-1.25)`` is ``0.75``."""
    return x - ops.floor(x)


@pyfunc
def smoothstep(edge0, edge1, x):
    """Hermite interpolation ``t * t * (3 - 2t)``, ``t`` = ``x`` scaled into [0, 1] between
    the edges. ``smoothstep(0.0, 1.0, 0.5)`` is ``0.5``."""
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@pyfunc
def sign(x):
    """-1.0, 0.0 or 1.0 by the sign of ``x`` (a float, element-wise). ``sign(-3)`` is ``-1.0``."""
    return ops.cast(x >= 0.0, float) - ops.cast(x <= 0.0, float)


@pyfunc
def normalize(v):
    """``v / |v|``. ``normalize(vec2(3, 4))`` is ``[0.6, 0.8]``."""
    return v / v.norm()


@pyfunc
def log2(x):
    """The base-2 logarithm. ``log2(8.0)`` is ``3.0``."""
    return ops.log(x) / _LN2


@pyfunc
def reflect(x, n):
    """The reflection of ``x`` at the plane of normal ``n``: ``x - 2 dot(x, n) n``."""
    k = x.dot(n)
    return x - 2.0 * k * n


@pyfunc
def refract(x, n, eta):
    """The refraction of ``x`` through the surface of normal ``n`` with index ratio
    ``eta``, as GLSL; a zero vector on total internal reflection."""
    dxn = x.dot(n)
    result = ops.zero(x)
    k = 1.0 - eta * eta * (1.0 - dxn * dxn)
    if k >= 0.0:
        result = eta * x - (eta * dxn + ops.sqrt(k)) * n
    return result


@pyfunc
def degrees(x):
    """Radians to degrees. ``degrees(pi)`` is ``180.0``."""
    return x * _DEGREES_PER_RADIAN


@pyfunc
def radians(x):
    """Degrees to radians. ``radians(180.0)`` is ``pi``."""
    return x * _RADIANS_PER_DEGREE


@pyfunc
def distance(x, y):
    """``|x - y|`` of two vectors. ``distance(vec2(0), vec2(3, 4))`` is ``5.0``."""
    return (x - y).norm()


@pyfunc
def dot(x, y):
    """``x.dot(y)``. ``dot(vec2(1, 2), vec2(3, 4))`` is ``11.0``."""
    return x.dot(y)


@pyfunc
def cross(x, y):
    """``x.cross(y)``: a scalar of 2-vectors, a vector of 3-vectors."""
    return x.cross(y)


@pyfunc
def mod(x, y):
    """``x - y * floor(x / y)``: the sign of ``y``. ``mod(-1.0, 3.0)`` is ``2.0``."""
    return x - y * ops.floor(x / y)


@pyfunc
def length(x):
    """``x.norm()``. ``length(vec2(3, 4))`` is ``5.0``."""
    return x.norm()


@pyfunc
def determinant(m):
    """``m.determinant()``. ``determinant(mat2(1, 2, 3, 4))`` is ``-2.0``."""
    return m.determinant()


@pyfunc
def inverse(mat):
    """``mat.inverse()``. ``inverse(mat2(2, 0, 0, 4))`` is ``[[0.5, 0], [0, 0.25]]``."""
    return mat.inverse()


@pyfunc
def isinf(x):
    """1 where ``x`` is +-infinity, else 0 (element-wise; ``True``/``False`` for a Python
    number). ``isinf(inf)`` is true."""
    return ops.abs(x) == inf


@pyfunc
def isnan(x):
    """1 where ``x`` is NaN, else 0 (element-wise). ``isnan(nan)`` is true."""
    return x != x  # noqa: PLR0124 - NaN is the one value unequal to itself


@pyfunc
def vdir(ang):
    """The unit 2-vector at angle ``ang``: ``vec2(cos(ang), sin(ang))``."""
    return vec2(ops.cos(ang), ops.sin(ang))


def eye(n: int) -> Matrix:
    """The ``n x n`` identity matrix of ``default_fp`` (``n`` known when compiling).

    >>> eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return Matrix.identity(float, n)


popcnt = ops.popcnt
clz = ops.clz
