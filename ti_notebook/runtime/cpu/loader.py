"""The CPU runtime: loads kernel modules, each in an engine of its own, with the native
runtime symbols.

Kernels call two native functions: ``tin_parallel_for`` (the thread pool) and
``tin_print`` (kernel ``print``). They are registered once per process before the
first kernel loads.

    >>> code, optimized = load('define void @k(ptr %c) { ret void }', "k")
    >>> code.address("k") > 0
    True
"""

from __future__ import annotations

import ctypes
import threading

from ti_notebook.runtime import printing
from ti_notebook.runtime.cpu import compile_worker, kernel_code
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.cpu.kernel_code import KernelCode

_ready = False
_lock = threading.Lock()


def ensure_runtime(store=None) -> None:
    """Starts the JIT and the thread pool once per process; ``store``, an offline-cache
    store (``cache/store.py``), keeps the pool's object code if this call starts it."""
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        from ti_notebook.runtime.cpu.threadpool import get_pool

        engine = jit()
        get_pool(store=store)  # registers tin_parallel_for with the JIT
        engine.add_symbol("tin_print", printing.callback_address())
        libc = ctypes.CDLL(None)
        for name in ("calloc", "free"):  # scratch buffers of privatized scatters
            engine.add_symbol(
                f"tin_{name}", ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
            )
        _ready = True


def _optimised_object(llvm_text: str, slp_vectorize: bool) -> tuple[bytes, str]:
    """(object code, optimised IR) of a module: O3 for the host CPU, in a compile worker
    process after the first few (``runtime/cpu/compile_worker.py``: LLVM's pipeline leaks)."""
    ensure_runtime()
    return compile_worker.optimised_object(llvm_text, slp_vectorize=slp_vectorize)


def load(llvm_text: str, entry_name: str, slp_vectorize: bool = True) -> tuple[KernelCode, str]:
    """Optimises (O3, host CPU) and loads a module into an engine of its own
    (``runtime/cpu/kernel_code.py``: freed with the returned code); returns (the loaded
    code, optimised IR). ``slp_vectorize``: see ``JitEngine.optimize``."""
    code, optimized = _optimised_object(llvm_text, slp_vectorize)
    return kernel_code.load(code, [entry_name]), optimized


def load_as_object(
    llvm_text: str, entry_name: str, slp_vectorize: bool = True
) -> tuple[KernelCode, str, bytes]:
    """As :func:`load`, with the object code too (kept for the offline cache)."""
    code, optimized = _optimised_object(llvm_text, slp_vectorize)
    return kernel_code.load(code, [entry_name]), optimized, code


def load_object(code: bytes, entry_name: str) -> KernelCode:
    """Loads object code from the offline cache into an engine of its own."""
    ensure_runtime()
    return kernel_code.load(code, [entry_name])
