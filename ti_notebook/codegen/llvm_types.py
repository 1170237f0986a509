"""LLVM types and constants of the IR's data types, and declaring an external function.

>>> from ti_notebook.ir import types
>>> str(llvm_type(types.f32)), str(llvm_type(types.u8)), str(const(types.i32, 7))
('float', 'i8', 'i32 7')
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.ir import types

I1 = ll.IntType(1)
I8 = ll.IntType(8)
I32 = ll.IntType(32)
I64 = ll.IntType(64)
F64 = ll.DoubleType()
PTR = ll.PointerType()
VOID = ll.VoidType()


def declare(module: ll.Module, name: str, ret: ll.Type, arg_types: list) -> ll.Function:
    """The function ``name`` of ``module``, declared (external) if it is not there yet.

    >>> module = ll.Module()
    >>> declare(module, "f", I32, [PTR]) is declare(module, "f", I32, [PTR])
    True
    """
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ll.Function(module, ll.FunctionType(ret, arg_types), name)


def llvm_type(dtype: types.DataType) -> ll.Type:
    """The LLVM type that holds a ``dtype`` value (see the module's example)."""
    if dtype.is_float:
        return {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}[dtype.bits]
    return ll.IntType(dtype.bits)


def const(dtype: types.DataType, value) -> ll.Constant:
    """``value`` as an LLVM constant of ``dtype`` (see the module's example)."""
    return ll.Constant(llvm_type(dtype), float(value) if dtype.is_float else int(value))
