"""The user's names for the primitive types: ``ti.f32``, ``ti.i64``, ``ti.int32``...

The types themselves belong to the IR (``ir/types.py``), which every compiler layer
reads; the language re-exports them so ``ti.lang.types.f32`` stays where Taichi code
expects it.

    >>> from ti_notebook.lang import types
    >>> from ti_notebook.ir import types as ir_types
    >>> types.f32 is ir_types.f32, types.promote(types.i32, types.f64).name
    (True, 'f64')
"""

from __future__ import annotations

from ti_notebook.ir.types import (
    ALL_TYPES,
    DataType,
    by_name,
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    from_numpy_dtype,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    promote,
    to_dtype,
    u8,
    u16,
    u32,
    u64,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = [
    "ALL_TYPES",
    "DataType",
    "by_name",
    "f16",
    "f32",
    "f64",
    "float16",
    "float32",
    "float64",
    "from_numpy_dtype",
    "i8",
    "i16",
    "i32",
    "i64",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote",
    "to_dtype",
    "u8",
    "u16",
    "u32",
    "u64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
