"""One compiled kernel's whole call as one generated function: check, pack, launch.

A call of a small kernel is mostly Python: a dispatcher frame, a packer frame, a frame
per array's data address, the launch frame. For one compiled kernel whose parameters
are scalars and NumPy arrays, :func:`make_call` writes a single function that tests
every argument's common case in one expression (an exact ``float``; an ``int`` in
range; an exact ``numpy.ndarray`` of the right dtype and dimensions, C-contiguous,
writable if the kernel writes it), packs the launch context, calls the machine code
and reads the result, with no other Python frame. Any other call goes to ``miss``,
the checked path, which accepts the other forms (NumPy scalars, ``ti.ndarray``,
another specialisation) and raises the errors that name the kernel and the argument.

    >>> import numpy as np
    >>> from ti_notebook.runtime.launch import ArgLayout, ArgSlot, CompiledKernel
    >>> from ti_notebook.runtime.kernel_code import load
    >>> from ti_notebook.runtime.jit import jit
    >>> from ti_notebook.ir import types as T
    >>> engine = jit()
    >>> code = load(engine.object_code(engine.parse('define void @k(ptr %c) { ret void }')), ["k"])
    >>> layout = ArgLayout([ArgSlot("a", "ndarray", T.f32, 1), ArgSlot("s", "float", T.f32, 0)])
    >>> kernel = CompiledKernel("k", code.address("k"), layout, None, [], [], code=code)
    >>> call = make_call(kernel, miss=lambda args: "the checked path")
    >>> call((np.zeros(3, np.float32), 0.5)), kernel.launches
    (None, 1)
    >>> call((np.zeros(3, np.float64), 0.5))
    'the checked path'
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np

from ti_notebook.errors import KernelInterrupted
from ti_notebook.ir import launch_abi as c
from ti_notebook.runtime import interrupt, printing, profiler
from ti_notebook.runtime import launch as _launch
from ti_notebook.runtime.launch import CompiledKernel


def _int_range(dtype) -> tuple[int, int]:
    if dtype is None:
        return -(1 << 63), (1 << 64) - 1
    if dtype.is_signed:
        return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
    return 0, (1 << dtype.bits) - 1


def _inlines_launch(kernel: CompiledKernel) -> bool:
    # another target's launcher (CUDA, the SIMT emulator) runs its own way
    kind = type(kernel)
    return kind.run is CompiledKernel.run and kind.launch_packed is CompiledKernel.launch_packed


def make_call(kernel: CompiledKernel, miss: Callable[[tuple], object]) -> Callable[[tuple], object]:
    """``call(args)``: what ``kernel.launch(args)`` does for arguments in their common
    form, in one frame; ``miss(args)`` for any other call (it raises or launches)."""
    slots = kernel.layout.slots
    if not _inlines_launch(kernel) or any(s.kind == "ndarray" and s.dtype is None for s in slots):
        return miss
    scope: dict = {
        "ndarray": np.ndarray,
        "miss": miss,
        "k": kernel,
        "lock": _launch.no_launch_running(),
        "pack_into": kernel.pack_into,
        "ctx": kernel.ctx,
        "entry": kernel.entry,
        "ctx_address": kernel.ctx_address,
        "profiler": profiler,
        "interrupt": interrupt,
        "printing": printing,
        "KernelInterrupted": KernelInterrupted,
        "word": ctypes.c_void_p.from_address,
        "data": _launch._array_data,
    }
    # the data pointer read from the array's struct when the probe found it there
    in_struct = _launch._array_data.__name__ == "read_struct"
    names = [f"a{k}" for k in range(len(slots))]
    tests, words = [], ["n"]
    for k, slot in enumerate(slots):
        a = names[k]
        if slot.kind == "ndarray":
            scope[f"d{k}"] = slot.dtype.np_dtype
            flags = f"(f{k} := {a}.flags).c_contiguous" + (
                f" and f{k}.writeable" if slot.written else ""
            )
            tests.append(
                f"type({a}) is ndarray and ({a}.dtype is d{k} or {a}.dtype == d{k})"
                f" and {a}.ndim == {slot.ndim} and {flags}"
            )
            address = f"(word(id({a}) + 16).value or 0)" if in_struct else f"data({a})"
            words += [address, f"*{a}.shape"]
        elif slot.kind == "float":
            tests.append(f"type({a}) is float")
            words.append(a)
        else:
            low, high = _int_range(slot.dtype)
            tests.append(f"type({a}) is int and {low} <= {a} <= {high}")
            words.append(a)
    after = []
    if kernel.has_prints:
        after.append("printing.flush()")
    after += [
        "if interrupt.state[0]:",
        "    raise KernelInterrupted(interrupted)",
    ]
    scope["interrupted"] = f"kernel '{kernel.name}' was interrupted; fields keep what it wrote"
    if kernel.asserts:
        scope["error_code"] = kernel.error_code
        after += ["if error_code.value:", "    k.check_error()"]
    if kernel.return_slots is not None:
        scope["return_slots"] = kernel.return_slots
        after.append("return tuple(f.unpack_from(ctx, at)[0] for at, f in return_slots)")
    elif kernel.return_format is not None:
        scope["unpack_return"] = kernel.return_format.unpack_from
        after.append(f"return unpack_return(ctx, {c.CTX_RETURN})[0]")
    unpack = f"        {', '.join(names)}, = args\n" if names else ""
    condition = " and ".join(f"({t})" for t in tests) or "True"
    body = "\n".join(f"                {line}" for line in after)
    source = (
        "def call(args):\n"
        f"    if len(args) == {len(slots)}:\n"
        f"{unpack}"
        f"        if {condition}:\n"
        "            with lock:\n"
        "                n = k.launches\n"
        "                k.launches = n + 1\n"
        f"                pack_into(ctx, {c.CTX_LAUNCH}, {', '.join(words)})\n"
        "                if profiler.enabled:\n"
        "                    k.profiled_launch(n)\n"
        "                else:\n"
        "                    entry(ctx_address)\n"
        f"{body}\n"
        "                return None\n"
        "    return miss(args)\n"
    )
    exec(compile(source, f"<ti_notebook call of {kernel.name}>", "exec"), scope)  # noqa: S102
    return scope["call"]
