"""Kernel machine code that is freed when the last reference to it dies.

The process JIT (``runtime/cpu/jit.py``) holds the runtime's own code (the thread pool, the
SIMT emulator, native helpers) for the life of the process, and MCJIT cannot unload an
object once added. A kernel's code therefore goes into an execution engine of its own:
:class:`KernelCode` owns it, and closing the engine (when the compiled kernel that holds
it dies: a kernel redefined in a re-run cell, a dropped specialisation, ``ti.reset()``)
unmaps the machine code. The symbols a kernel calls outside its own object are
process-wide (``llvm.add_symbol``: the pool's ``tin_parallel_for``, ``tin_print``, libgcc
helpers), so they resolve in every engine.

:func:`live_count` says how many are loaded now, which is how the tests see that
dropping kernels frees their code.

    >>> import gc
    >>> from ti_notebook.runtime.cpu.jit import jit
    >>> engine = jit()
    >>> code = engine.object_code(engine.parse('define i32 @seven() { ret i32 7 }'))
    >>> _ = gc.collect(); before = live_count()
    >>> loaded = load(code, ["seven"])
    >>> import ctypes
    >>> ctypes.CFUNCTYPE(ctypes.c_int32)(loaded.address("seven"))()
    7
    >>> live_count() - before
    1
    >>> del loaded; _ = gc.collect()
    >>> live_count() - before
    0
    >>> close_dead() >= 1  # its engine is closed at the next load, or here
    True
"""

from __future__ import annotations

import threading
import weakref

import llvmlite.binding as llvm

from ti_notebook.runtime.cpu import native_symbols
from ti_notebook.runtime.cpu.jit import jit

_lock = threading.RLock()
_live: weakref.WeakSet = weakref.WeakSet()
# Engines of code that died, closed at the next safe point (close_dead): the collector
# runs __del__ at any allocation, in any thread, possibly while another thread is inside
# an llvmlite call on the same LLVM context; closing an engine there once deadlocked a
# compile. Appending to a list is atomic and calls no LLVM.
_dead: list[llvm.ExecutionEngine] = []


class KernelCode:
    """One object file's machine code in its own MCJIT engine; ``address(name)`` gives a
    symbol's entry. The engine closes when this object dies (or :meth:`release`)."""

    __slots__ = ("_engine", "addresses", "__weakref__")

    def __init__(self, engine: llvm.ExecutionEngine, addresses: dict[str, int]) -> None:
        self._engine = engine
        self.addresses = addresses

    def address(self, name: str) -> int:
        """The entry address of ``name``, one of the names it was loaded with."""
        return self.addresses[name]

    def release(self) -> None:
        """Frees the machine code now; its addresses must not be called again."""
        engine, self._engine = self._engine, None
        if engine is not None:
            with _lock:
                engine.close()
            _live.discard(self)

    def __del__(self) -> None:
        engine = getattr(self, "_engine", None)
        # during interpreter shutdown the module globals may already be gone
        if engine is not None and _dead is not None:
            self._engine = None
            _dead.append(engine)


def close_dead() -> int:
    """Frees the machine code of kernels that died since the last call; returns how many.

    :func:`load` calls it, so a re-run cell's new kernel frees the old one's code.
    """
    closed = 0
    with _lock:
        while _dead:
            _dead.pop().close()
            closed += 1
    return closed


def load(object_code: bytes, names: list[str]) -> KernelCode:
    """Loads ``object_code`` (from ``JitEngine.object_code`` or the offline cache) into a
    new engine; raises :class:`~ti_notebook.errors.TiCompileError`, loading nothing, if
    it needs an external symbol nothing resolves (``runtime/cpu/native_symbols.py``)."""
    shared = jit()
    native_symbols.check_object(object_code, shared)
    close_dead()
    with _lock:
        # the engine owns its target machine (and frees it when closed): one each
        machine = llvm.Target.from_triple(shared.triple).create_target_machine(
            cpu=shared.cpu_name,
            features=shared.cpu_features,
            opt=3,
            reloc="default",
            codemodel="jitdefault",
        )
        backing = llvm.parse_assembly("")
        backing.triple = shared.triple
        engine = llvm.create_mcjit_compiler(backing, machine)
        engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
        engine.finalize_object()
        addresses = {name: engine.get_function_address(name) for name in names}
    code = KernelCode(engine, addresses)
    _live.add(code)
    return code


def live_count() -> int:
    """How many kernel objects are loaded now (each in its own engine)."""
    return len(_live)
