"""``ti.sqrt``, ``ti.min``, ``ti.select``... called from Python on vectors and matrices.

In a kernel the frontend compiles these calls; from Python ``lang/ops.py`` computes
them, on numbers as Python does and, component by component, on ``ti.Vector``/
``ti.Matrix`` values (the result a value with the kernel's element type: a float
function of integers gives ``default_fp``) and NumPy arrays (a NumPy result). A scalar
operand meets every component:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector([1.0, 4.0, 9.0])
    >>> ti.sqrt(v).tolist(), ti.max(v, 5).tolist(), ti.floor(v / 2, ti.i32).tolist()
    ([1.0, 2.0, 3.0], [5.0, 5.0, 9.0], [0, 2, 4])
    >>> ti.select(v > 3, v, 0).tolist(), ti.sqrt(4.0), ti.min(3, 1, 2)
    ([0.0, 4.0, 9.0], 2.0, 1)
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError
from ti_notebook.lang import matrix_dtypes as dtypes
from ti_notebook.lang.matrix import Matrix
from ti_notebook.lang.matrix_arith import compute, operand

_UNARY = {
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "abs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
}


def is_array(value) -> bool:
    """Whether ``value`` is something these functions map over (not a number)."""
    return isinstance(value, (Matrix, np.ndarray))


def unary(op: str, value, scalar, dtype=None):
    """``op`` of a number (``scalar(value)``), or of each component; ``dtype`` casts."""
    if not is_array(value):
        result = scalar(value)
        return result if dtype is None else _cast_scalar(result, dtype)
    if isinstance(value, np.ndarray):
        with np.errstate(all="ignore"):
            result = _UNARY[op](value)
        return result if dtype is None else result.astype(dtypes.explicit(dtype).np_dtype)
    spec = dtypes.unary(op, value._spec)
    source = value.entries.astype(dtypes.storage(spec))
    with np.errstate(all="ignore"):
        if op == "round":  # half away from zero, as ti.round does (NumPy: to even)
            result = np.sign(source) * np.floor(np.abs(source) + 0.5)
        else:
            result = _UNARY[op](source)
    if dtype is not None:
        spec = dtypes.explicit(dtype)
    return Matrix._new(result.astype(dtypes.storage(spec)), spec)


def binary(op: str, a, b, scalar):
    """``op`` of two numbers (``scalar(a, b)``), or component by component."""
    if not is_array(a) and not is_array(b):
        return scalar(a, b)
    if (
        isinstance(a, np.ndarray)
        and not isinstance(b, Matrix)
        or (isinstance(b, np.ndarray) and not isinstance(a, Matrix))
    ):
        return compute(op, _pair(a), _pair(b))[0]  # NumPy in, NumPy out
    shape = a.shape if isinstance(a, Matrix) else b.shape
    result, spec = compute(op, _pair(a, shape), _pair(b, shape))
    return Matrix._new(result, spec)


def select(cond, a, b):
    """``cond ? a : b`` component by component (``cond`` a vector or a number)."""
    if not any(is_array(x) for x in (cond, a, b)):
        return a if cond else b
    shape = next(x.shape for x in (cond, a, b) if is_array(x))
    (x, xs), (y, ys) = _pair(a, shape), _pair(b, shape)
    spec = dtypes.binary("add", xs, ys)
    choice = np.asarray(cond) != 0
    result = np.where(choice, x.astype(dtypes.storage(spec)), y.astype(dtypes.storage(spec)))
    if result.ndim == 0:
        return result.item()
    return Matrix._new(np.broadcast_to(result, shape).copy(), spec)


def bit_count(op: str, value):
    """``popcnt``/``clz`` of an integer, or of each component, in its type's width."""
    if isinstance(value, (Matrix, np.ndarray)):
        array = value.entries if isinstance(value, Matrix) else value
        if array.dtype.kind not in "iu":
            raise TiTypeError(f"{op}() needs integers, got {array.dtype}", hint=_CAST_HINT)
        bits = array.dtype.itemsize * 8
        counts = [_count(op, int(x), bits) for x in array.reshape(-1).tolist()]
        result = np.array(counts, dtype=array.dtype).reshape(array.shape)
        return Matrix._new(result, value._spec) if isinstance(value, Matrix) else result
    if not isinstance(value, (int, np.integer)):
        raise TiTypeError(f"{op}() needs an integer, got {value!r}", hint=_CAST_HINT)
    if isinstance(value, np.integer):
        return _count(op, int(value), value.dtype.itemsize * 8)
    value = int(value)
    return _count(op, value, 32 if -(1 << 31) <= value < 1 << 32 else 64)


_CAST_HINT = "cast first, e.g. ti.cast(x, ti.i32)"


def _count(op: str, value: int, bits: int) -> int:
    unsigned = value & ((1 << bits) - 1)  # two's complement in ``bits`` bits
    return bin(unsigned).count("1") if op == "popcnt" else bits - unsigned.bit_length()


def cast(value, dtype):
    """``ti.cast``: a number converted like NumPy, or each component."""
    if isinstance(value, Matrix):
        return value.cast(dtype)
    if isinstance(value, np.ndarray):
        return value.astype(dtypes.explicit(dtype).np_dtype)
    return _cast_scalar(value, dtype)


def _cast_scalar(value, dtype):
    if dtype is float:
        return float(value)
    if dtype is int:
        return int(value)
    return dtypes.explicit(dtype)(value)


def _pair(value, shape=None):
    found = operand(value, shape)
    if found is None:
        raise TiTypeError(f"expected a number, vector or array, got {type(value).__name__}")
    return found
