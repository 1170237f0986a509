"""CUDA driver errors as :mod:`ti_notebook.errors` exceptions.

:func:`check` takes what a cuda-python call returns, ``(CUresult, *values)``, and gives
the values, or raises an exception naming the kernel, what was being done, the
driver's error name and text, and a hint: out of memory is a
:class:`~ti_notebook.errors.TiMemoryError` (smaller fields, ``ti.reset()``); a fault of
a running kernel (an illegal address: an index out of range, which bounds checks find)
names the kernel launched last, since launches are asynchronous and such errors show
at a later call, and says that the context cannot be used any more.

Names come from the binding's enum, so the mapping works (and is tested) without a
driver; the driver's text is added when it can be read.

    >>> error_name(2)
    'CUDA_ERROR_OUT_OF_MEMORY'
    >>> check((0, 42), "reading a number")
    42
"""

from __future__ import annotations

from ti_notebook.errors import TiMemoryError, TiRuntimeError
from ti_notebook.runtime.cuda.bindings import SUCCESS
from ti_notebook.runtime.cuda.bindings import driver as _driver

__all__ = ["check", "describe", "error_for", "error_name", "error_text", "note_launch"]


_FULL = "the GPU's memory is full: use smaller fields, destroy() trees no longer needed, or "
_RESTART = "; the CUDA context cannot be used after this error: restart the Python kernel"
# error name -> (exception class, hint)
_HINTS = {
    "CUDA_ERROR_OUT_OF_MEMORY": (TiMemoryError, _FULL + "ti.reset() to free every field"),
    "CUDA_ERROR_ILLEGAL_ADDRESS": (
        TiRuntimeError,
        "a kernel read or wrote outside its memory, most likely an index out of range: "
        "bounds checks find it (on unless check_bounds=False; ti.init(debug=True) checks "
        "everything)" + _RESTART,
    ),
    "CUDA_ERROR_MISALIGNED_ADDRESS": (TiRuntimeError, "a kernel used a bad address" + _RESTART),
    "CUDA_ERROR_LAUNCH_FAILED": (
        TiRuntimeError,
        "the kernel crashed on the GPU (often an index out of range: run with bounds checks)"
        + _RESTART,
    ),
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": (TiRuntimeError, "please report it" + _RESTART),
    "CUDA_ERROR_INVALID_PC": (TiRuntimeError, "please report it" + _RESTART),
    "CUDA_ERROR_ASSERT": (TiRuntimeError, "a device-side assertion failed" + _RESTART),
    "CUDA_ERROR_HARDWARE_STACK_ERROR": (
        TiRuntimeError,
        "the kernel overflowed its stack (deep recursion or large local arrays)" + _RESTART,
    ),
    "CUDA_ERROR_LAUNCH_TIMEOUT": (
        TiRuntimeError,
        "the kernel ran longer than the display watchdog allows: split the work into "
        "several launches, or use a GPU without a display" + _RESTART,
    ),
    "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": (
        TiRuntimeError,
        "a block of block_dim threads needs more registers than an SM has: use a smaller "
        "ti.loop_config(block_dim=...)",
    ),
    "CUDA_ERROR_INVALID_PTX": (
        TiRuntimeError,
        "the driver's PTX compiler refused the code: please report it with the kernel's "
        'stages(arch="cuda")["ptx"]',
    ),
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": (
        TiRuntimeError,
        "the NVIDIA driver is older than the code's PTX ISA (7.8, CUDA 11.8): update it",
    ),
    "CUDA_ERROR_NO_BINARY_FOR_GPU": (
        TiRuntimeError,
        "the code was made for another GPU: clear the offline cache (ti.init(offline_cache="
        "False) or delete its folder)",
    ),
}
_GENERIC_HINT = "ti.init(arch=ti.cpu) runs the same kernels on the CPU"
# Errors of a running kernel: reported by a later call (launches are asynchronous), and
# they leave the context unusable.
_KERNEL_FAULTS = frozenset(
    f"CUDA_ERROR_{name}"
    for name in (
        "ILLEGAL_ADDRESS",
        "MISALIGNED_ADDRESS",
        "LAUNCH_FAILED",
        "ILLEGAL_INSTRUCTION",
        "HARDWARE_STACK_ERROR",
        "LAUNCH_TIMEOUT",
        "INVALID_PC",
        "ASSERT",
    )
)
_last_launched: str | None = None  # the kernel such an error most likely belongs to


def note_launch(kernel: str) -> None:
    """Remembers ``kernel`` as the one launched last (see :func:`error_for`)."""
    global _last_launched
    _last_launched = kernel


def error_name(result) -> str:
    """``CUDA_ERROR_OUT_OF_MEMORY`` for 2: the binding's name, no driver needed.

    >>> error_name(2), error_name(999999)
    ('CUDA_ERROR_OUT_OF_MEMORY', 'CUresult 999999')
    """
    try:
        return _driver().CUresult(int(result)).name
    except (ImportError, ValueError):
        return f"CUresult {int(result)}"


def error_text(result) -> str:
    """The driver's description of ``result`` ("" when the driver cannot say)."""
    try:
        code, text = _driver().cuGetErrorString(_driver().CUresult(int(result)))
    except Exception:  # no driver library, or a code the binding does not know
        return ""
    if code != SUCCESS or not text:
        return ""
    return text.decode(errors="replace") if isinstance(text, bytes) else str(text)


def describe(result) -> str:
    """``NAME: text`` of a ``CUresult``."""
    text = error_text(result)
    return f"{error_name(result)}: {text}" if text else error_name(result)


def error_for(result, what: str, kernel: str | None = None, log: str = "") -> Exception:
    """The exception for a failed driver call: ``what`` is what was being done.

    >>> error = error_for(2, "allocating 64 GiB", "fill")
    >>> type(error).__name__, error.message  # with a driver, its text follows the name
    ('TiMemoryError', "kernel 'fill': allocating 64 GiB failed: CUDA_ERROR_OUT_OF_MEMORY...")
    """
    name = error_name(result)
    cls, hint = _HINTS.get(name, (TiRuntimeError, _GENERIC_HINT))
    if kernel is not None:
        who = f"kernel '{kernel}': "
    elif name in _KERNEL_FAULTS and _last_launched is not None:
        who = f"kernel '{_last_launched}' (the last one launched): "
    else:
        who = ""
    message = f"{who}{what} failed: {describe(result)}"
    if log:
        message += f"\n{log.rstrip()}"
    return cls(message, hint=hint)


def check(returned, what: str, kernel: str | None = None):
    """The values of a driver call's result tuple ``(CUresult, *values)`` (None, one
    value, or a tuple), or raises :func:`error_for`'s exception; a bare ``CUresult`` is
    accepted too.

    >>> check((0,), "synchronising") is None, check((0, 1, 2), "two values")
    (True, (1, 2))
    >>> check(1, "launching", "saxpy")
    Traceback (most recent call last):
      ...
    ti_notebook.errors.TiRuntimeError: kernel 'saxpy': launching failed: CUDA_ERROR_INVALID_VALUE...
    hint: ti.init(arch=ti.cpu) runs the same kernels on the CPU
    """
    if isinstance(returned, tuple):
        result, values = returned[0], returned[1:]
    else:
        result, values = returned, ()
    if result != SUCCESS:
        raise error_for(result, what, kernel)
    if not values:
        return None
    return values[0] if len(values) == 1 else values
