"""Primitive data types and Taichi's type promotion rules.

>>> from ti_notebook.ir.types import i32, f32, i64, promote
>>> promote(i32, f32).name, promote(i32, i64).name
('f32', 'i64')
"""

from __future__ import annotations

import numpy as np


class DataType:
    """A primitive scalar type: ``ti.i32``, ``ti.f64``... Calling one casts in kernels."""

    __slots__ = ("name", "bits", "is_float", "is_signed", "np_dtype")

    def __init__(self, name: str, bits: int, is_float: bool, is_signed: bool) -> None:
        self.name = name
        self.bits = bits
        self.is_float = is_float
        self.is_signed = is_signed
        self.np_dtype = np.dtype(("f" if is_float else "i" if is_signed else "u") + str(bits // 8))

    @property
    def is_integral(self) -> bool:
        return not self.is_float

    @property
    def size(self) -> int:
        return self.bits // 8

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):  # pickled as the module-level singleton
        return (by_name, (self.name,))

    def __call__(self, value):  # ti.f32(1) in Python scope casts like numpy
        return self.np_dtype.type(value).item()

    def int_range(self) -> tuple[int, int]:
        """(lowest, highest) value this integer type holds.

        >>> i8.int_range(), u16.int_range()
        ((-128, 127), (0, 65535))
        """
        if self.is_signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """``value`` modulo 2**bits, as a store of this integer type keeps it (two's
        complement for signed types): ``i8.wrap(300) == 44``, ``i8.wrap(200) == -56``.

            >>> i8.wrap(300), i8.wrap(200), u8.wrap(-1)
            (44, -56, 255)
        """
        value &= (1 << self.bits) - 1
        if self.is_signed and value >= 1 << (self.bits - 1):
            value -= 1 << self.bits
        return value


i8 = DataType("i8", 8, False, True)
i16 = DataType("i16", 16, False, True)
i32 = DataType("i32", 32, False, True)
i64 = DataType("i64", 64, False, True)
u8 = DataType("u8", 8, False, False)
u16 = DataType("u16", 16, False, False)
u32 = DataType("u32", 32, False, False)
u64 = DataType("u64", 64, False, False)
f16 = DataType("f16", 16, True, True)
f32 = DataType("f32", 32, True, True)
f64 = DataType("f64", 64, True, True)

ALL_TYPES = (i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)
_BY_NAME = {t.name: t for t in ALL_TYPES}
_BY_NUMPY = {t.np_dtype: t for t in ALL_TYPES}

# Taichi's aliases.
int8, int16, int32, int64 = i8, i16, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64
float16, float32, float64 = f16, f32, f64


def by_name(name: str) -> DataType:
    return _BY_NAME[name]


def from_numpy_dtype(dtype: np.dtype) -> DataType:
    """Maps a NumPy dtype to ours; bool is stored as u8."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return u8
    try:
        return _BY_NUMPY[dtype.newbyteorder("=")]
    except KeyError:
        raise TypeError(f"NumPy dtype {dtype} has no ti_notebook equivalent") from None


def promote(a: DataType, b: DataType) -> DataType:
    """Result type of a binary arithmetic op, as Taichi's ``promoted_type``.

    A float wins over an integer; two of a kind give the wider; for integers of one
    width, unsigned wins.
    """
    if a is b:
        return a
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    if a.is_float:
        return a
    return a if not a.is_signed else b


def to_dtype(annotation, default_ip: DataType, default_fp: DataType) -> DataType | None:
    """Turns ``int``, ``float``, ``ti.i32``, a NumPy dtype... into a DataType."""
    if isinstance(annotation, DataType):
        return annotation
    if annotation is int:
        return default_ip
    if annotation is float:
        return default_fp
    if annotation is bool:
        return default_ip
    if annotation is None:  # np.dtype(None) would be float64: a typo must not pass
        return None
    try:
        return from_numpy_dtype(np.dtype(annotation))
    except (TypeError, ValueError):  # ValueError: an object whose .dtype is no NumPy one
        return None
