"""The CPU runtime: loads kernel modules into the JIT with the native runtime symbols.

Kernels call two native functions: ``tin_parallel_for`` (the thread pool) and
``tin_print`` (kernel ``print``). They are registered once per process before the
first kernel loads.

    >>> entry, optimized = load('define void @k(ptr %c) { ret void }', "k")
    >>> entry > 0
    True
"""

from __future__ import annotations

import ctypes
import threading

from ti_notebook.runtime import printing
from ti_notebook.runtime.jit import jit

_ready = False
_lock = threading.Lock()


def ensure_runtime(store=None) -> None:
    """Starts the JIT and the thread pool once per process; ``store``, an offline-cache
    store (``runtime/cache.py``), keeps the pool's object code if this call starts it."""
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        from ti_notebook.runtime.threadpool import get_pool

        engine = jit()
        get_pool(store=store)  # registers tin_parallel_for with the JIT
        engine.add_symbol("tin_print", printing.callback_address())
        libc = ctypes.CDLL(None)
        for name in ("calloc", "free"):  # scratch buffers of privatized scatters
            engine.add_symbol(
                f"tin_{name}", ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
            )
        _ready = True


def load(llvm_text: str, entry_name: str) -> tuple[int, str]:
    """Optimises (O3, host CPU) and loads a module; returns (entry address, optimised IR)."""
    ensure_runtime()
    engine = jit()
    module = engine.parse(llvm_text)
    engine.optimize(module)
    optimized = str(module)
    address = engine.add_module(module, [entry_name])[entry_name]
    return address, optimized


def load_as_object(llvm_text: str, entry_name: str) -> tuple[int, str, bytes]:
    """As :func:`load`, through object code (kept for the offline cache)."""
    ensure_runtime()
    engine = jit()
    module = engine.parse(llvm_text)
    engine.optimize(module)
    optimized = str(module)
    code = engine.object_code(module)
    return engine.add_object(code, [entry_name])[entry_name], optimized, code


def load_object(code: bytes, entry_name: str) -> int:
    """Loads object code from the offline cache; returns the entry's address."""
    ensure_runtime()
    return jit().add_object(code, [entry_name])[entry_name]
