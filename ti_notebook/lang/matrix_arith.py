"""Operators of Python-scope vectors and matrices: ``+ - * / // % ** @``, comparisons.

Element-wise with another vector or matrix of the same shape, a NumPy array or list of
that shape, or a scalar (which meets every component); result types follow the kernel's
rules (``lang/matrix_dtypes.py``). Comparisons are element-wise too, as in Taichi, and
give ``i32`` 0/1 values; ``v.all()``/``v.any()`` reduce them, and ``bool(v)`` of more
than one component is an error rather than a silent ``True``:

    >>> import ti_notebook as ti
    >>> v = ti.Vector([1, 2, 3])
    >>> (v * 2 + 0.5).tolist(), (v / 2).tolist(), (7 // v).tolist(), (v == [1, 0, 3]).tolist()
    ([2.5, 4.5, 6.5], [0.5, 1.0, 1.5], [7, 3, 2], [1, 0, 1])
    >>> m = ti.Matrix([[1, 2], [3, 4]])
    >>> (m @ v[:2]).tolist(), v[:2] @ v[:2], (-m).tolist()[1], abs(-v).tolist()
    ([5, 11], 5, [-3, -4], [1, 2, 3])
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import exact_numbers
from ti_notebook.lang import matrix_dtypes as dtypes

_NUMPY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "mod": np.mod,
    "pow": np.power,
    "min": np.minimum,
    "max": np.maximum,
    "atan2": np.arctan2,
    "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or,
    "bit_xor": np.bitwise_xor,
    "shl": np.left_shift,
    "shr": np.right_shift,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}
_SYMBOLS = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "bit_and": "&",
    "bit_or": "|",
    "bit_xor": "^",
    "shl": "<<",
    "shr": ">>",
}


def operand(value, shape: tuple[int, ...] | None = None):
    """``(array, spec)`` of something a vector operation takes, or None.

    A scalar is a 0-d array; a NumPy array or a list must have ``shape`` (when given).
    """
    if isinstance(value, MatrixArithmetic):
        return value.entries, value._spec
    if isinstance(value, (bool, int, float, np.generic)) and not isinstance(value, complex):
        array = np.asarray(value)
        return array, dtypes.infer(array)
    if isinstance(value, (np.ndarray, list, tuple)):
        try:  # never via float64 for integers (np.asarray([2**63, 1]) would round them)
            array = exact_numbers.weak_array(value)
        except (TiTypeError, TiValueError):
            return None  # ragged, or not numbers
        if shape is not None and array.ndim and array.shape != shape:
            raise TiTypeError(
                f"cannot combine a value of shape {shape} with one of shape {array.shape}",
                hint="element-wise operations need operands of the same shape (or a scalar)",
            )
        return array, dtypes.infer(array)
    return None


def compute(op: str, a, b):
    """``a op b`` on ``(array, spec)`` pairs: ``(result array, result spec)``."""
    (x, xs), (y, ys) = a, b
    if x.ndim and y.ndim and x.shape != y.shape:
        symbol = _SYMBOLS.get(op, op)
        raise TiTypeError(
            f"cannot apply '{symbol}' to a value of shape {x.shape} and one of shape {y.shape}",
            hint="element-wise operations need operands of the same shape (or a scalar)",
        )
    spec = dtypes.binary(op, xs, ys)
    work = dtypes.binary("add", xs, ys) if op in dtypes.COMPARE else spec
    storage = dtypes.storage(work)
    with np.errstate(all="ignore"):  # as a kernel: x / 0 is inf, n // 0 is 0
        try:
            result = _NUMPY[op](x.astype(storage), y.astype(storage))
        except ValueError as exc:  # an integer to a negative integer power
            raise TiValueError(str(exc), hint="use a float base or exponent") from None
    return result.astype(dtypes.storage(spec)), spec


class MatrixArithmetic:
    """The operators; a subclass provides ``entries``, ``_spec``, ``shape`` and ``_new``."""

    __array_priority__ = 1000  # ndarray + vector: NumPy defers to our __radd__
    __hash__ = object.__hash__  # by identity, as Taichi's (== is element-wise)

    def _binary(self, other, op: str, reflected: bool = False):
        found = operand(other, self.shape)
        if found is None:
            return NotImplemented
        mine = (self.entries, self._spec)
        result, spec = compute(op, found, mine) if reflected else compute(op, mine, found)
        return self._new(result, spec)

    def _unary(self, function, spec):
        with np.errstate(all="ignore"):
            result = function(self.entries.astype(dtypes.storage(spec)))
        return self._new(result.astype(dtypes.storage(spec)), spec)

    def __neg__(self):
        return self._unary(np.negative, self._spec)

    def __pos__(self):
        return self._unary(np.positive, self._spec)

    def __abs__(self):
        return self._unary(np.abs, self._spec)

    def __invert__(self):
        return self._unary(np.invert, dtypes.unary("bit_not", self._spec))

    def __matmul__(self, other):
        return _matmul(self, other, reflected=False)

    def __rmatmul__(self, other):
        return _matmul(self, other, reflected=True)

    def __bool__(self) -> bool:
        if self.entries.size == 1:
            return bool(self.entries.reshape(-1)[0])
        raise TiValueError(
            f"the truth value of a value of shape {self.shape} is ambiguous",
            hint="use v.any() or v.all() (comparisons of vectors are element-wise)",
        )


def _matmul(self, other, reflected: bool):
    found = operand(other)
    if found is None:
        return NotImplemented
    mine = (self.entries, self._spec)
    (a, a_spec), (b, b_spec) = (found, mine) if reflected else (mine, found)
    if not a.ndim or not b.ndim:
        raise TiTypeError("'@' needs two vectors/matrices", hint="use '*' to scale by a number")
    inner_a, inner_b = a.shape[-1], b.shape[0]
    if inner_a != inner_b:
        raise TiTypeError(
            f"cannot multiply a value of shape {a.shape} by one of shape {b.shape}",
            hint="the columns of the left operand must match the rows of the right one",
        )
    spec = dtypes.binary("mul", a_spec, b_spec)
    storage = dtypes.storage(spec)
    result = np.matmul(a.astype(storage), b.astype(storage))
    if result.ndim == 0:  # vector @ vector: their dot product, as in Taichi
        return result.item()
    return self._new(result, spec)


def _operator(op: str, reflected: bool = False):
    def method(self, other):
        return self._binary(other, op, reflected)

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


for _op, _name in (
    ("add", "add"),
    ("sub", "sub"),
    ("mul", "mul"),
    ("truediv", "truediv"),
    ("floordiv", "floordiv"),
    ("mod", "mod"),
    ("pow", "pow"),
    ("bit_and", "and"),
    ("bit_or", "or"),
    ("bit_xor", "xor"),
    ("shl", "lshift"),
    ("shr", "rshift"),
):
    setattr(MatrixArithmetic, f"__{_name}__", _operator(_op))
    setattr(MatrixArithmetic, f"__r{_name}__", _operator(_op, reflected=True))
for _op, _name in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("eq", "eq")):
    setattr(MatrixArithmetic, f"__{_name}__", _operator(_op))
MatrixArithmetic.__ne__ = _operator("ne")
