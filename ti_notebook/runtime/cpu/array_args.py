"""NumPy array arguments checked and unpacked in machine code, before the launch.

In Python, each array argument of a call costs ~0.35 µs: its type, dtype, rank and
flags tested one attribute at a time, then its data address and shape read. NumPy's
array object is a C struct whose fields (``PyArrayObject_fields``: data, nd,
dimensions, descr, flags) are part of NumPy's C ABI, read directly by every compiled
extension, so the launcher can leave all of it to two small native functions compiled
once per process:

- ``tin_array_args(table)``: for each array argument, the launch context holds the
  array object's address (``id(a)``); the function checks the object is exactly a
  ``numpy.ndarray`` with the expected dtype object, rank and flags (C-contiguous,
  writable where the kernel writes it), then writes its data address and shape over
  the slot. It returns 0, or 1 at the first argument that is not as expected (the
  launcher then takes the checked path, which accepts the other forms or raises the
  error naming the argument).
- ``tin_array_launch(table)``: the same, then the kernel's entry on the context; it
  returns 0 when the launch needs nothing more from Python, 2 when it ran but stopped
  on SIGINT or left an error code (the launcher reads which), 1 when nothing ran.

The table (:func:`table`) holds the kernel's entry, ``numpy.ndarray``'s type object,
the count, the context's address, and per argument its context offset, rank, dtype
object and flag mask. One argument, the table's address, keeps the ctypes call cheap;
the status folds the launcher's two checks after every launch into one.
A probe checks the field offsets on real arrays first; where they differ (another
interpreter, a NumPy with another layout) :func:`available` is False and the launcher
reads the arrays in Python.

    >>> import numpy as np
    >>> available()
    True
    >>> ctx = (ctypes.c_int64 * 2)()  # one 1-D array argument at offset 0
    >>> a = np.arange(5, dtype=np.float32)
    >>> words = table(0, ctypes.addressof(ctx), [(0, 1, a.dtype, False)])
    >>> ctx[0] = id(a)
    >>> check(ctypes.addressof(words)), ctx[1]
    (0, 5)
    >>> ctx[0] == a.ctypes.data
    True
    >>> ctx[0] = id(a.astype(np.float64))  # another dtype: the checked path
    >>> check(ctypes.addressof(words))
    1
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence

import numpy as np

from ti_notebook.ir import launch_abi as abi

# PyArrayObject_fields on a 64-bit CPython (a two-word PyObject header)
_OB_TYPE, _DATA, _ND, _DIMENSIONS, _DESCR, _FLAGS = 8, 16, 24, 32, 56, 64
C_CONTIGUOUS, WRITEABLE = 0x1, 0x400  # NPY_ARRAY_C_CONTIGUOUS, NPY_ARRAY_WRITEABLE
_HEADER_WORDS = 4  # entry, ndarray type, count, context
_ARG_WORDS = 4  # context offset, rank, dtype object, flag mask

_IR = f"""
define i32 @tin_array_args(ptr %table) {{
entry:
  %ctx.p = getelementptr i64, ptr %table, i64 3
  %ctx = load ptr, ptr %ctx.p
  %type.p = getelementptr i64, ptr %table, i64 1
  %type = load i64, ptr %type.p
  %count.p = getelementptr i64, ptr %table, i64 2
  %count = load i64, ptr %count.p
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i.next, %filled]
  %done = icmp eq i64 %i, %count
  br i1 %done, label %ok, label %arg
arg:
  %rec.0 = mul i64 %i, {_ARG_WORDS}
  %rec = add i64 %rec.0, {_HEADER_WORDS}
  %rec.p = getelementptr i64, ptr %table, i64 %rec
  %off = load i64, ptr %rec.p
  %ndim.p = getelementptr i64, ptr %rec.p, i64 1
  %ndim = load i64, ptr %ndim.p
  %descr.p = getelementptr i64, ptr %rec.p, i64 2
  %descr = load i64, ptr %descr.p
  %mask.p = getelementptr i64, ptr %rec.p, i64 3
  %mask = load i64, ptr %mask.p
  %slot = getelementptr i8, ptr %ctx, i64 %off
  %obj = load ptr, ptr %slot
  %obtype.p = getelementptr i8, ptr %obj, i64 {_OB_TYPE}
  %obtype = load i64, ptr %obtype.p
  %is.array = icmp eq i64 %obtype, %type
  br i1 %is.array, label %fields, label %fail
fields:
  %odescr.p = getelementptr i8, ptr %obj, i64 {_DESCR}
  %odescr = load i64, ptr %odescr.p
  %same.dtype = icmp eq i64 %odescr, %descr
  %nd.p = getelementptr i8, ptr %obj, i64 {_ND}
  %nd.32 = load i32, ptr %nd.p
  %nd = sext i32 %nd.32 to i64
  %same.rank = icmp eq i64 %nd, %ndim
  %flags.p = getelementptr i8, ptr %obj, i64 {_FLAGS}
  %flags.32 = load i32, ptr %flags.p
  %flags = sext i32 %flags.32 to i64
  %have = and i64 %flags, %mask
  %flags.ok = icmp eq i64 %have, %mask
  %ok.1 = and i1 %same.dtype, %same.rank
  %ok.2 = and i1 %ok.1, %flags.ok
  br i1 %ok.2, label %fill, label %fail
fill:
  %data.p = getelementptr i8, ptr %obj, i64 {_DATA}
  %data = load i64, ptr %data.p
  store i64 %data, ptr %slot
  %dims.p = getelementptr i8, ptr %obj, i64 {_DIMENSIONS}
  %dims = load ptr, ptr %dims.p
  %shape = getelementptr i64, ptr %slot, i64 1
  br label %dim
dim:
  %j = phi i64 [0, %fill], [%j.next, %dim.body]
  %dims.done = icmp eq i64 %j, %ndim
  br i1 %dims.done, label %filled, label %dim.body
dim.body:
  %extent.p = getelementptr i64, ptr %dims, i64 %j
  %extent = load i64, ptr %extent.p
  %to = getelementptr i64, ptr %shape, i64 %j
  store i64 %extent, ptr %to
  %j.next = add i64 %j, 1
  br label %dim
filled:
  %i.next = add i64 %i, 1
  br label %loop
ok:
  ret i32 0
fail:
  ret i32 1
}}

define i32 @tin_array_launch(ptr %table) {{
entry:
  %status = call i32 @tin_array_args(ptr %table)
  %bad = icmp ne i32 %status, 0
  br i1 %bad, label %out, label %run
run:
  %ctx.p = getelementptr i64, ptr %table, i64 3
  %ctx = load ptr, ptr %ctx.p
  %code = load ptr, ptr %table
  call void %code(ptr %ctx)
  %state.p = getelementptr i8, ptr %ctx, i64 {abi.CTX_INTERRUPT}
  %state = load ptr, ptr %state.p
  %interrupted = load volatile i32, ptr %state
  %error.p = getelementptr i8, ptr %ctx, i64 {abi.CTX_ERROR}
  %error = load i64, ptr %error.p
  %stopped = icmp ne i32 %interrupted, 0
  %failed = icmp ne i64 %error, 0
  %look = or i1 %stopped, %failed
  %after = select i1 %look, i32 2, i32 0
  ret i32 %after
out:
  ret i32 %status
}}
"""

_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)
_functions: tuple | None = None


def _layout_matches() -> bool:
    """Whether arrays here have the fields where the native functions read them."""
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    word = ctypes.c_int64.from_address
    int32 = ctypes.c_int32.from_address
    base = np.zeros((3, 4, 5), np.float32)
    for array in (base, base[1], base[:, ::2], np.arange(7)[2:], np.zeros(0, np.int8)):
        at = id(array)
        if (
            word(at + _OB_TYPE).value != id(type(array))
            or word(at + _DATA).value != array.__array_interface__["data"][0]
            or int32(at + _ND).value != array.ndim
            or word(at + _DESCR).value != id(array.dtype)
            or int32(at + _FLAGS).value != array.flags.num
        ):
            return False
        dims = word(at + _DIMENSIONS).value
        if any(word(dims + 8 * k).value != n for k, n in enumerate(array.shape)):
            return False
    frozen = np.zeros(2)
    frozen.flags.writeable = False
    return int32(id(frozen) + _FLAGS).value & WRITEABLE == 0


def _load() -> tuple:
    global _functions
    if _functions is None:
        from ti_notebook.runtime.cpu.jit import jit

        if not _layout_matches():
            _functions = ()
        else:
            addresses = jit().add_ir(_IR, ["tin_array_args", "tin_array_launch"])
            _functions = (
                _FUNCTION(addresses["tin_array_args"]),
                _FUNCTION(addresses["tin_array_launch"]),
            )
    return _functions


def available() -> bool:
    """Whether array arguments can be read natively in this process (the probe passed)."""
    return bool(_load())


def check(table_address: int) -> int:
    """``tin_array_args``: 0 when every array argument was as expected (its data address
    and shape are now in the context), else 1."""
    return _load()[0](table_address)


def functions() -> tuple:
    """``(check, check_and_launch)``: the two native functions as ctypes callables."""
    return _load()


def table(
    entry_address: int, ctx_address: int, arrays: Sequence[tuple[int, int, np.dtype, bool]]
) -> ctypes.Array:
    """The words the native functions read for one kernel (its entry and its launch
    context): ``arrays`` lists each array argument's (context offset, rank, dtype,
    written). Keep it, the context and the dtypes alive while the functions may read it."""
    words = [entry_address, id(np.ndarray), len(arrays), ctx_address]
    for offset, ndim, dtype, written in arrays:
        words += [offset, ndim, id(dtype), C_CONTIGUOUS | (WRITEABLE if written else 0)]
    return (ctypes.c_int64 * len(words))(*words)
