"""The process-wide LLVM JIT: one MCJIT engine, one host target machine.

Every compiled kernel and the native thread pool are added to the same engine, so
symbols registered with :func:`JitEngine.add_symbol` (runtime callbacks) resolve in all
of them. Every module is loaded as object code whose external symbols are checked
first (``runtime/cpu/native_symbols.py``): one that nothing resolves is a compile error,
never a call to address 0.

Example:
    >>> from ti_notebook.runtime.cpu.jit import jit
    >>> engine = jit()
    >>> ir = 'define i32 @answer() { ret i32 42 }'
    >>> addr = engine.add_ir(ir, ["answer"])["answer"]
    >>> import ctypes
    >>> ctypes.CFUNCTYPE(ctypes.c_int32)(addr)()
    42
"""

from __future__ import annotations

import contextlib
import threading

import llvmlite.binding as llvm

from ti_notebook.runtime.cpu import compile_server, native_symbols
from ti_notebook.runtime.stage_clock import stage

_lock = threading.Lock()
_engine: JitEngine | None = None


class JitEngine:
    """Owns the target machine and the execution engine of this process."""

    def __init__(self) -> None:
        # the same target setup as a compile worker's (runtime/cpu/compile_server.py)
        self.triple, self.cpu_name, self.cpu_features = compile_server.host_target()
        self.target_machine = compile_server.target_machine(
            self.triple, self.cpu_name, self.cpu_features
        )
        self.target_data = self.target_machine.target_data
        # The engine needs a module to start from; an empty one owns nothing.
        backing = llvm.parse_assembly("")
        backing.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(backing, self.target_machine)
        self.defined: set[str] = set()  # global symbols of the objects loaded so far

    # -- building --------------------------------------------------------------
    def parse(self, ir_text: str) -> llvm.ModuleRef:
        """Parses and verifies LLVM IR text, stamped with the host triple/layout."""
        with stage("llvm_parse"):
            module = llvm.parse_assembly(ir_text)
            module.triple = self.triple
            module.data_layout = str(self.target_data)
            module.verify()
        return module

    def optimize(
        self, module: llvm.ModuleRef, speed_level: int = 3, slp_vectorize: bool = True
    ) -> None:
        """Runs LLVM's default O<speed_level> pipeline (with vectorisers) in place
        (``runtime/cpu/compile_server.py``'s ``optimise``). The SLP vectoriser runs unless
        ``slp_vectorize=False``: the code generator's choice for kernels whose long blocks
        are loop bodies, where it costs most of O3 and buys nothing
        (``codegen/cpu/slp_vectoriser.py``); long straight-line code needs it (a
        5,000-term unrolled sum took 13.7 s to become machine code without it)."""
        with stage("llvm_optimise"):
            compile_server.optimise(module, self.target_machine, speed_level, slp_vectorize)

    def assembly(self, module: llvm.ModuleRef) -> str:
        return self.target_machine.emit_assembly(module)

    def object_code(self, module: llvm.ModuleRef) -> bytes:
        with stage("machine_code"):
            return self.target_machine.emit_object(module)

    # -- loading ---------------------------------------------------------------
    def add_symbol(self, name: str, address: int) -> None:
        """Makes ``name`` resolve to ``address`` in every module added later."""
        llvm.add_symbol(name, address)

    def add_module(self, module: llvm.ModuleRef, names: list[str]) -> dict[str, int]:
        """Loads a parsed module and returns the addresses of ``names``.

        The module goes through object code, like the offline cache's: the machine
        code's external symbols are checked before it is loaded (:meth:`add_object`)."""
        with _lock:  # one target machine: one thread emits at a time
            code = self.object_code(module)
        return self.add_object(code, names)

    def add_ir(
        self, ir_text: str, names: list[str], optimize: bool = True, store=None
    ) -> dict[str, int]:
        """Compiles and loads IR; with an offline-cache ``store``, through object code
        kept there (the thread pool's IR takes ~90 ms to compile, every process)."""
        if store is None:
            module = self.parse(ir_text)
            if optimize:
                self.optimize(module)
            return self.add_module(module, names)
        import hashlib

        key = hashlib.sha256(
            "\n".join(
                [ir_text, self.triple, self.cpu_name, self.cpu_features, str(optimize)]
            ).encode()
        ).hexdigest()
        found = store.load(key)
        if found is not None:
            return self.add_object(found[1], names)
        module = self.parse(ir_text)
        if optimize:
            self.optimize(module)
        code = self.object_code(module)
        # an unwritable cache only costs the next process the compile
        with contextlib.suppress(OSError):
            store.save(key, "<runtime>", {"names": names}, code)
        return self.add_object(code, names)

    def add_object(self, object_code: bytes, names: list[str]) -> dict[str, int]:
        """Loads object code made by :meth:`object_code` (also the offline cache's path);
        raises :class:`~ti_notebook.errors.TiCompileError`, loading nothing, if the code
        needs an external symbol nothing resolves."""
        native_symbols.check_object(object_code, self)
        with _lock:
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
            self.engine.finalize_object()
            self.defined.update(native_symbols.defined_symbols(object_code))
            return {name: self.engine.get_function_address(name) for name in names}


def jit() -> JitEngine:
    """Returns the process's JIT engine, creating it on first use."""
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = JitEngine()
    return _engine
