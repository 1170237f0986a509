"""The ``ti.*`` functions kernels call: math, casts, atomics, loop helpers.

Inside a kernel the frontend compiles calls to these functions (it recognises them by
identity); called from Python they compute on Python numbers where that makes sense:

    >>> import ti_notebook as ti
    >>> ti.sqrt(4.0), ti.select(0, 1, 2), list(ti.ndrange(2, 2))
    (2.0, 2, [(0, 0), (0, 1), (1, 0), (1, 1)])
"""

from __future__ import annotations

import builtins as _builtins
import itertools
import math
import random as _random
import threading

from ti_notebook.errors import TiSyntaxError
from ti_notebook.lang import elementwise
from ti_notebook.lang.snode_ops import activate, deactivate, is_active  # noqa: F401 - ti.* names


def _kernel_only(name: str):
    def call(*args, **kwargs):
        raise TiSyntaxError(
            f"ti.{name}() can only be used inside a kernel or ti.func",
            hint=f"call ti.{name} from a @ti.kernel body",
        )

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = f"``ti.{name}``: kernel-only; see the Taichi documentation."
    return call


def static(value, *more):
    """``ti.static(x)``: evaluate ``x`` at compile time (unrolled loops, static if)."""
    return (value, *more) if more else value


def grouped(x):
    """``for I in ti.grouped(x)``: one vector index ``I`` per element of ``x``."""
    return x


def ndrange(*bounds):
    """Iterate over an N-D range: ``ti.ndrange(4, (1, 3))``."""
    ranges = []
    for bound in bounds:
        if isinstance(bound, (tuple, list)):
            ranges.append(range(int(bound[0]), int(bound[1])))
        else:
            ranges.append(range(int(bound)))
    return itertools.product(*ranges)


def loop_config(*, parallelize=None, block_dim=None, serialize=None, **unknown):
    """Applies to the next for loop of the kernel (kernel-only)."""
    raise TiSyntaxError(
        "ti.loop_config() can only be used inside a kernel, before a for loop",
        hint="put it on the line just before the loop it configures",
    )


def block_dim(n):
    """``ti.block_dim(n)``: the older spelling of ``ti.loop_config(block_dim=n)``."""
    raise TiSyntaxError("ti.block_dim() can only be used inside a kernel")


def cast(value, dtype):
    """``ti.cast(x, ti.i32)``: convert a value (each component of a vector) to ``dtype``."""
    return elementwise.cast(value, dtype)


def select(cond, a, b):
    """``cond ? a : b`` evaluated on both sides (no short circuit); element-wise."""
    return elementwise.select(cond, a, b)


# Set while a plain Python helper runs at compile time (frontend/calls.py): a ti.random()
# there would run once, and every launch would get the same "random" constant.
compiling_helper = threading.local()


def _refuse_while_compiling(name: str) -> None:
    if getattr(compiling_helper, "depth", 0):
        raise TiSyntaxError(
            f"ti.{name}() in a plain Python helper runs once, while the kernel compiles, "
            "so every launch would get the same number",
            hint="decorate the helper with @ti.func, so the call runs in the kernel",
        )


def random(dtype=float):
    """``ti.random(dtype=float)``: uniform in [0, 1) for a float type (``float`` is
    ``default_fp``), every value equally likely for an integer type.

    Inside a kernel the number comes from a counter-based generator keyed by
    ``ti.init(random_seed=...)``, the kernel, the launch, the loop iteration and the
    call, so no two launches or kernels repeat a stream and the thread count does not
    matter (``runtime/random_streams.py``). From Python it is Python's ``random``:

        >>> import ti_notebook as ti
        >>> 0.0 <= ti.random() < 1.0
        True
    """
    _refuse_while_compiling("random")
    return _random.random() if dtype in (float, None) else _random.getrandbits(31)


def randn(dt=None):
    """``ti.randn(dt=None)``: a standard normal float (mean 0, variance 1) of type
    ``dt`` (``default_fp`` when None), made by the Box-Muller transform of two uniform
    numbers, as Taichi's ``ti.randn``. From Python it is ``random.gauss(0, 1)``:

        >>> import ti_notebook as ti
        >>> isinstance(ti.randn(), float)
        True
    """
    _refuse_while_compiling("randn")
    return _random.gauss(0.0, 1.0)


# From Python, the math functions take numbers, and vectors/matrices or NumPy arrays
# component by component (lang/elementwise.py).
def sqrt(x):
    return elementwise.unary("sqrt", x, math.sqrt)


def sin(x):
    return elementwise.unary("sin", x, math.sin)


def cos(x):
    return elementwise.unary("cos", x, math.cos)


def tan(x):
    return elementwise.unary("tan", x, math.tan)


def asin(x):
    return elementwise.unary("asin", x, math.asin)


def acos(x):
    return elementwise.unary("acos", x, math.acos)


def atan2(y, x):
    return elementwise.binary("atan2", y, x, math.atan2)


def tanh(x):
    return elementwise.unary("tanh", x, math.tanh)


def exp(x):
    return elementwise.unary("exp", x, math.exp)


def log(x):
    return elementwise.unary("log", x, math.log)


def pow(x, y):  # noqa: A001 - Taichi's name
    """``x ** y``, per component on vectors and matrices (the ``**`` operator is the same).

    A float base with an integer exponent (``x ** n``, ``n`` a runtime ``ti.i32``) is a
    float power. Both integers: an integer power, exact by repeated multiplication
    (wrapping on overflow). A negative integer exponent has no integer answer in
    general: with ``ti.init(debug=True)`` the launch stops with a ``TiRuntimeError``
    naming the kernel and line ("negative exponent in pow(int, int) is not allowed"), as
    Taichi does; otherwise the result is the exact one where there is one and 0, as
    truncating division would give, elsewhere: 1 for a base of 1, ``(-1) ** n`` for a
    base of -1, 0 for any other base. Cast to a float for fractional results.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> @ti.kernel
        ... def power(x: ti.f32, n: ti.i32, b: ti.i32) -> ti.types.vector(3, ti.f32):
        ...     return ti.Vector([x ** n, ti.pow(b, n), ti.pow(-1, n)])
        >>> power(2.0, 10, 3).to_list(), power(2.0, -3, 1).to_list()
        ([1024.0, 59049.0, 1.0], [0.125, 1.0, -1.0])
    """
    return elementwise.binary("pow", x, y, lambda a, b: a**b)


def floor(x, dtype=None):
    whole = (lambda v: math.floor(v)) if dtype is not None else lambda v: float(math.floor(v))
    return elementwise.unary("floor", x, whole, dtype)


def ceil(x, dtype=None):
    whole = (lambda v: math.ceil(v)) if dtype is not None else lambda v: float(math.ceil(v))
    return elementwise.unary("ceil", x, whole, dtype)


def _round_half_away(x):
    value = math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)
    return value


def round(x, dtype=None):  # noqa: A001 - Taichi's name
    rounded = _round_half_away if dtype is not None else lambda v: float(_round_half_away(v))
    return elementwise.unary("round", x, rounded, dtype)


def abs(x):  # noqa: A001 - Taichi's name
    return elementwise.unary("abs", x, lambda v: v if v >= 0 else -v)


def popcnt(x):
    """The number of set bits of an integer (each component of a vector), counted in
    its type's width (a Python int: 32 bits, 64 when it needs them)."""
    return elementwise.bit_count("popcnt", x)


def clz(x):
    """The number of leading zero bits of an integer in its type's width (see popcnt)."""
    return elementwise.bit_count("clz", x)


def _extreme(op: str, pick, values: tuple):
    if len(values) > 1 and _builtins.any(elementwise.is_array(v) for v in values):
        result = values[0]
        for value in values[1:]:  # element-wise, as ti.min(v, w) in a kernel
            result = elementwise.binary(op, result, value, pick)
        return result
    return pick(*values)


def min(*values):  # noqa: A001
    return _extreme("min", _builtins.min, values)


def max(*values):  # noqa: A001
    return _extreme("max", _builtins.max, values)


def zero(x):
    """``ti.zero(x)``: zeros of ``x``'s type and shape."""
    return x * 0


def one(x):
    """``ti.one(x)``: ones of ``x``'s type and shape."""
    return x * 0 + 1


atomic_add = _kernel_only("atomic_add")
atomic_sub = _kernel_only("atomic_sub")
atomic_min = _kernel_only("atomic_min")
atomic_max = _kernel_only("atomic_max")
atomic_and = _kernel_only("atomic_and")
atomic_or = _kernel_only("atomic_or")
atomic_xor = _kernel_only("atomic_xor")
clock_counter = _kernel_only("clock_counter")
block_local = _kernel_only("block_local")
