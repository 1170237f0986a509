"""Python numbers into NumPy arrays of a declared type, exactly.

``np.array([2**63, 1])`` is float64 (NumPy finds no integer type for both) and
``np.array([2**64])`` an object array, so building an array first and casting it after
rounds a ``u64`` value through a float or loses it. These functions walk nested lists,
tuples, arrays and vectors keeping each Python ``int`` as it is, and convert each item
to the declared type by itself.

What happens to a value the type cannot hold follows Taichi's Python-scope stores (a
field's ``x[i] = v`` passes ``v`` to an accessor kernel as a 64-bit integer):

- a type narrower than 64 bits keeps the value modulo ``2**bits``, as a store in a
  kernel does (``u8`` takes 300 as 44; Taichi's ``x[i] = 300`` does the same);
- a value outside a 64-bit type (``-1`` or ``2**64`` for ``u64``, ``2**63`` for
  ``i64``), or outside every 64-bit type, is a :class:`TiOverflowError`: Taichi refuses
  it too, and wrapping it would give an unrelated number;
- a float into an integer type truncates toward zero; one the type cannot hold (inf,
  nan, 1e20 for ``i32``) is a :class:`TiOverflowError`.

Kernel arguments are stricter (``runtime/launch.py``): any value outside the
parameter's type is an error.

    >>> import ti_notebook as ti
    >>> typed_array([[2**63, 2**64 - 1], [1, 2]], ti.u64).tolist()
    [[9223372036854775808, 18446744073709551615], [1, 2]]
    >>> typed_array([300, -1, 2.7], ti.u8).tolist()
    [44, 255, 2]
    >>> typed_array([-1], ti.u64)
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiOverflowError: -1 does not fit u64 [0, 18446744073709551615]
    hint: give a value in range, or use a wider or signed type
"""

from __future__ import annotations

import numbers

import numpy as np

from ti_notebook.errors import TiOverflowError, TiTypeError, TiValueError
from ti_notebook.lang import types

__all__ = [
    "as_array",
    "integer",
    "is_number",
    "nested_items",
    "scalar",
    "typed_array",
    "weak_array",
]

_INT64 = (-(1 << 63), (1 << 63) - 1)


def nested_items(value) -> tuple[list, tuple[int, ...]]:
    """The items of nested lists/tuples/arrays/vectors, flat (Python numbers, ints kept
    exact), and their shape; a ragged nesting is a ValueError.

    >>> nested_items([[1, 2**64 - 1], (3, 4)])
    ([1, 18446744073709551615, 3, 4], (2, 2))
    """
    entries = getattr(value, "entries", None)
    if isinstance(entries, np.ndarray):  # ti.Vector / ti.Matrix values, field elements
        value = entries
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist(), value.shape
    if isinstance(value, np.generic):
        return [value.item()], ()
    if not isinstance(value, (list, tuple)):
        return [value], ()
    parts = [nested_items(v) for v in value]
    shapes = {shape for _, shape in parts}
    if len(shapes) > 1:
        raise ValueError(f"the rows have different lengths (shapes {sorted(shapes)})")
    inner = shapes.pop() if shapes else ()
    return [item for items, _ in parts for item in items], (len(parts), *inner)


def is_number(item) -> bool:
    """Whether ``item`` is a real number (Python's or NumPy's, bools included)."""
    return isinstance(item, (numbers.Real, np.number, np.bool_)) and not isinstance(item, str)


def _bounds(dtype: types.DataType) -> tuple[int, int]:
    if dtype.is_signed:
        return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
    return 0, (1 << dtype.bits) - 1


def _overflow(value, dtype: types.DataType, label: str) -> TiOverflowError:
    low, high = _bounds(dtype)
    where = f"{label} of type " if label else ""
    return TiOverflowError(
        f"{value!r} does not fit {where}{dtype} [{low}, {high}]",
        hint="give a value in range, or use a wider or signed type",
    )


def integer(value, dtype: types.DataType, label: str = "") -> int:
    """One number as a store of integer type ``dtype`` keeps it (see the module text).

    >>> import ti_notebook as ti
    >>> integer(2**64 - 1, ti.u64), integer(-(2**63), ti.i64)
    (18446744073709551615, -9223372036854775808)
    >>> integer(200, ti.i8), integer(-2.5, ti.i32)
    (-56, -2)
    """
    low, high = _bounds(dtype)
    if isinstance(value, (float, np.floating)):
        if not (low - 1 < value < high + 1):  # also False for nan
            raise _overflow(value, dtype, label)
        return int(value)
    number = int(value)
    if low <= number <= high:
        return number
    if dtype.bits < 64 and -(1 << 63) <= number < (1 << 64):
        return dtype.wrap(number)
    raise _overflow(number, dtype, label)


def typed_array(value, dtype: types.DataType, label: str = "") -> np.ndarray:
    """``value`` (a number or nested numbers) as an array of ``dtype``, each integer
    exact; a NumPy array of numbers converts as a whole, range-checked the same way."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biu":
        return _integer_array(value, dtype, label)
    try:
        items, shape = nested_items(value)
    except ValueError as exc:
        raise TiValueError(f"{label or 'value'}: {exc}") from None
    for item in items:
        if not is_number(item):
            raise TiTypeError(
                f"{label or 'a value'} holds numbers, got {type(item).__name__} {item!r}"
            )
    if dtype.is_float:
        return np.array([float(x) for x in items], dtype=dtype.np_dtype).reshape(shape)
    converted = [integer(x, dtype, label) for x in items]
    return np.array(converted, dtype=dtype.np_dtype).reshape(shape)


def _integer_array(array: np.ndarray, dtype: types.DataType, label: str) -> np.ndarray:
    if dtype.is_float:
        return array.astype(dtype.np_dtype)
    if array.size and dtype.bits == 64 and array.dtype.kind in "iu":
        low, high = _bounds(dtype)
        smallest, largest = int(array.min()), int(array.max())
        if smallest < low:
            raise _overflow(smallest, dtype, label)
        if largest > high:
            raise _overflow(largest, dtype, label)
    return array.astype(dtype.np_dtype)  # narrower: modulo 2**bits, as a store


def weak_array(value, label: str = "") -> np.ndarray:
    """Numbers without a declared type, as NumPy would hold them but never through a
    float for integers: int64 (uint64 when a value needs it), float64 when any is a
    float; an integer no 64-bit type holds is a TiOverflowError.

    >>> weak_array([1, 2]).dtype, weak_array([2**63, 1]).dtype, weak_array([1, 2.5]).dtype
    (dtype('int64'), dtype('uint64'), dtype('float64'))
    """
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value
    try:
        items, shape = nested_items(value)
    except ValueError as exc:
        raise TiValueError(f"{label or 'value'}: {exc}") from None
    if not all(is_number(x) for x in items):
        bad = next(x for x in items if not is_number(x))
        raise TiTypeError(f"{label or 'a value'} holds numbers, got {type(bad).__name__} {bad!r}")
    if any(isinstance(x, (float, np.floating)) for x in items):
        return np.array([float(x) for x in items], dtype=np.float64).reshape(shape)
    ints = [int(x) for x in items]
    if all(_INT64[0] <= x <= _INT64[1] for x in ints):
        return np.array(ints, dtype=np.int64).reshape(shape)
    if all(0 <= x < (1 << 64) for x in ints):
        return np.array(ints, dtype=np.uint64).reshape(shape)
    raise TiOverflowError(
        f"{label or 'a value'}: integers from {min(ints)} to {max(ints)} fit no 64-bit type",
        hint="give dt=ti.u64 for values in [0, 2**64) or ti.i64 for [-2**63, 2**63)",
    )


def as_array(value, dtype: types.DataType, label: str = "") -> np.ndarray:
    """What ``from_numpy`` takes, as an array: a NumPy array as it is (NumPy casts it on
    the copy, as Taichi's ``from_numpy`` does); nested lists without rounding large
    integers through float64 on the way.

    >>> import ti_notebook as ti
    >>> as_array([2**63, 1], ti.u64).tolist()
    [9223372036854775808, 1]
    """
    if isinstance(value, np.ndarray):
        return value
    try:
        array = np.asarray(value)
    except ValueError:  # ragged: typed_array names it
        array = None
    # NumPy's float64 for mixed big and small ints is where integers get rounded
    kind = array.dtype.kind if array is not None else "O"
    if kind in "biu" or (kind == "f" and dtype.is_float):
        return array
    if dtype.is_float:
        return weak_array(value, label)
    return typed_array(value, dtype, label)


def scalar(value, dtype: types.DataType, label: str = ""):
    """One number as a store of ``dtype`` keeps it (``fill``), exact for integers."""
    if dtype.is_float or not is_number(value):
        return value
    return integer(value, dtype, label)
