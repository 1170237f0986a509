"""One compiled kernel's whole launch as generated Python source: check, pack, launch.

A call of a small kernel is mostly Python, so for one compiled kernel whose parameters
are scalars and NumPy arrays, :func:`launch_code` writes the launch as a few lines with
no other Python frame: each scalar's common case tested in one expression (an exact
``float``; an ``int`` in range), the launch lock taken, the arguments packed into the
launch context in one ``pack_into`` and the machine code called, the result read.
Array arguments go into the context as their object's address: the native
``tin_array_launch`` (``runtime/cpu/array_args.py``) checks each (an exact
``numpy.ndarray`` of the right dtype and rank, C-contiguous, writable if the kernel
writes it), puts its data address and shape in its place and runs the kernel; an array
not in that form makes it return 1 without running anything, and the call goes to
``miss``. Where the native reader is not available, the arrays are tested and read in
Python. :func:`make_call` wraps it as ``call(args)``; ``session/fast_calls.py`` as the
kernel object's own ``__call__``.

``miss`` is the checked path: it accepts the other forms (NumPy scalars,
``ti.ndarray``, another specialisation) and raises the errors that name the kernel and
the argument.

    >>> import numpy as np
    >>> from ti_notebook.runtime.launch import ArgLayout, ArgSlot, CompiledKernel
    >>> from ti_notebook.runtime.cpu.kernel_code import load
    >>> from ti_notebook.runtime.cpu.jit import jit
    >>> from ti_notebook.ir import types as T
    >>> engine = jit()
    >>> code = load(engine.object_code(engine.parse('define void @k(ptr %c) { ret void }')), ["k"])
    >>> layout = ArgLayout([ArgSlot("a", "ndarray", T.f32, 1), ArgSlot("s", "float", T.f32, 0)])
    >>> kernel = CompiledKernel("k", code.address("k"), layout, None, [], [], code=code)
    >>> call = make_call(kernel, miss=lambda args: "the checked path")
    >>> call((np.zeros(3, np.float32), 0.5)), kernel.launches
    (None, 1)
    >>> call((np.zeros(3, np.float64), 0.5)), kernel.launches
    ('the checked path', 1)
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct
from collections.abc import Callable

import numpy as np

from ti_notebook.errors import KernelInterrupted
from ti_notebook.ir import launch_abi as c
from ti_notebook.runtime import interrupt, printing, profiler
from ti_notebook.runtime import launch as _launch
from ti_notebook.runtime.cpu import array_args
from ti_notebook.runtime.launch import CompiledKernel


def _inlines_launch(kernel: CompiledKernel) -> bool:
    # another target's launcher (CUDA, the SIMT emulator) runs its own way
    kind = type(kernel)
    return kind.run is CompiledKernel.run and kind.launch_packed is CompiledKernel.launch_packed


@dataclasses.dataclass
class LaunchCode:
    """The source of one compiled kernel's inline launch, over arguments ``a0``...

    ``test`` is what Python checks before the launch (``"True"`` when nothing);
    ``block`` the launch itself: it returns what the kernel returns, or falls through
    when an array argument was not in its common form (nothing ran); names in both
    are ``scope``'s."""

    count: int
    test: str
    block: list[str]
    scope: dict


def launch_code(kernel: CompiledKernel) -> LaunchCode | None:
    """The inline launch of ``kernel``, or None when its launches can't be inlined
    (another target's launcher, an ndarray slot whose dtype a call decides)."""
    slots = kernel.layout.slots
    if not _inlines_launch(kernel) or any(s.kind == "ndarray" and s.dtype is None for s in slots):
        return None
    lock = _launch.no_launch_running()
    scope: dict = {
        "ndarray": np.ndarray,
        "k": kernel,
        "acquire": lock.acquire,
        "release": lock.release,
        "ctx": kernel.ctx,
        "entry": kernel.entry,
        "ctx_address": kernel.ctx_address,
        "profiler": profiler,
        "interrupt": interrupt,
        "printing": printing,
        "KernelInterrupted": KernelInterrupted,
        "word": ctypes.c_void_p.from_address,
        "data": _launch._array_data,
        "interrupted": f"kernel '{kernel.name}' was interrupted; fields keep what it wrote",
    }
    # the native launch (also without arrays: its status saves two checks in Python)
    native = array_args.available()
    # the data pointer read from the array's struct when the probe found it there
    in_struct = _launch._array_data.__name__ == "read_struct"
    tests, words, fmt, arrays = [], ["n"], ["<q"], []
    for k, slot in enumerate(slots):
        a = f"a{k}"
        offset = kernel.layout.offsets[k]
        if slot.kind == "ndarray":
            if native:  # its object's address; tin_array_args writes data and shape over it
                arrays.append((offset, slot.ndim, slot.dtype.np_dtype, slot.written))
                words.append(f"id({a})")
                fmt.append(f"Q{8 * slot.ndim}x")
                continue
            scope[f"d{k}"] = slot.dtype.np_dtype
            flags = f"(f{k} := {a}.flags).c_contiguous" + (
                f" and f{k}.writeable" if slot.written else ""
            )
            tests.append(
                f"type({a}) is ndarray and ({a}.dtype is d{k} or {a}.dtype == d{k})"
                f" and {a}.ndim == {slot.ndim} and {flags}"
            )
            words.append(f"(word(id({a}) + 16).value or 0)" if in_struct else f"data({a})")
            # each extent by index: a starred shape costs a tuple and a slower call
            words += [f"{a}.shape[{d}]" for d in range(slot.ndim)]
            fmt.append("Q" + "q" * slot.ndim)
        elif slot.kind == "float":
            tests.append(f"type({a}) is float")
            words.append(a)
            fmt.append("d")
        else:
            low, high = slot.dtype.int_range() if slot.dtype else (-(1 << 63), (1 << 64) - 1)
            if slot.kind == "int":  # packed signed: a larger value takes the checked path
                high = min(high, (1 << 63) - 1)
            tests.append(f"type({a}) is int and {low} <= {a} <= {high}")
            words.append(a)
            fmt.append("Q" if slot.kind == "uint" else "q")
    scope["pack_into"] = struct.Struct("".join(fmt)).pack_into
    prints = ["printing.flush()"] if kernel.has_prints else []
    checks = ["if interrupt.state[0]:", "    raise KernelInterrupted(interrupted)"]
    if kernel.asserts:
        scope["error_code"] = kernel.error_code
        checks += ["if error_code.value:", "    k.check_error()"]
    if kernel.return_slots is not None:
        scope["return_slots"] = kernel.return_slots
        result = "return tuple(f.unpack_from(ctx, at)[0] for at, f in return_slots)"
    elif kernel.return_format is not None:
        scope["unpack_return"] = kernel.return_format.unpack_from
        result = f"return unpack_return(ctx, {c.CTX_RETURN})[0]"
    else:
        result = "return None"
    pack = f"pack_into(ctx, {c.CTX_LAUNCH}, {', '.join(words)})"
    if native:
        scope["table"] = table = array_args.table(kernel.entry_address, kernel.ctx_address, arrays)
        scope["table_address"] = ctypes.addressof(table)
        scope["check_arrays"], scope["launch_arrays"] = array_args.functions()
        # status: 0 ran, nothing to look at; 1 an array not in its common form, nothing
        # ran; 2 ran, and SIGINT stopped it or it left an error code
        run = [
            "if profiler.enabled:",
            "    status = check_arrays(table_address)",
            "    if not status:",
            "        k.profiled_launch(n)",
            "        status = 2",
            "else:",
            "    status = launch_arrays(table_address)",
            "if status != 1:",
            "    k.launches = n + 1",
            *(f"    {line}" for line in prints),
            "    if status:",
            *(f"        {line}" for line in checks),
            f"    {result}",
        ]
    else:
        run = [
            "k.launches = n + 1",
            "if profiler.enabled:",
            "    k.profiled_launch(n)",
            "else:",
            "    entry(ctx_address)",
            *prints,
            *checks,
            result,
        ]
    # The lock: ctypes releases the GIL during the call, and the context and the thread
    # pool's job slot take one launch at a time (runtime/launch.py). acquire/release
    # called directly cost half of a `with`.
    block = [
        "acquire()",
        "try:",
        "    n = k.launches",
        f"    {pack}",
        *(f"    {line}" for line in run),
        "finally:",
        "    release()",
    ]
    test = " and ".join(f"({t})" for t in tests) or "True"
    return LaunchCode(len(slots), test, block, scope)


def indented(lines: list[str], depth: int) -> str:
    """``lines`` as source at ``depth`` levels of four spaces, one per line."""
    return "".join(f"{'    ' * depth}{line}\n" for line in lines)


def make_call(kernel: CompiledKernel, miss: Callable[[tuple], object]) -> Callable[[tuple], object]:
    """``call(args)``: what ``kernel.launch(args)`` does for arguments in their common
    form, in one frame; ``miss(args)`` for any other call (it raises or launches)."""
    code = launch_code(kernel)
    if code is None:
        return miss
    names = [f"a{k}" for k in range(code.count)]
    unpack = f"        {', '.join(names)}, = args\n" if names else ""
    source = (
        "def call(args):\n"
        f"    if len(args) == {code.count}:\n"
        f"{unpack}"
        f"        if {code.test}:\n"
        f"{indented(code.block, 3)}"
        "    return miss(args)\n"
    )
    scope = dict(code.scope, miss=miss)
    exec(compile(source, f"<ti_notebook call of {kernel.name}>", "exec"), scope)  # noqa: S102
    return scope["call"]
