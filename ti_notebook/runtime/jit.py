"""The process-wide LLVM JIT: one MCJIT engine, one host target machine.

Every compiled kernel and the native thread pool are added to the same engine, so
symbols registered with :func:`JitEngine.add_symbol` (runtime callbacks) resolve in all
of them. Every module is loaded as object code whose external symbols are checked
first (``runtime/native_symbols.py``): one that nothing resolves is a compile error,
never a call to address 0.

Example:
    >>> from ti_notebook.runtime.jit import jit
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

from ti_notebook.runtime import native_symbols
from ti_notebook.runtime.stage_clock import stage

_lock = threading.Lock()
_engine: JitEngine | None = None


class JitEngine:
    """Owns the target machine and the execution engine of this process."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        self.triple = llvm.get_process_triple()
        self.cpu_name = llvm.get_host_cpu_name()
        self.cpu_features = llvm.get_host_cpu_features().flatten()
        target = llvm.Target.from_triple(self.triple)
        self.target_machine = target.create_target_machine(
            cpu=self.cpu_name,
            features=self.cpu_features,
            opt=3,
            reloc="default",
            codemodel="jitdefault",
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

    def optimize(self, module: llvm.ModuleRef, speed_level: int = 3) -> None:
        """Runs LLVM's default O<speed_level> pipeline (with vectorisers) in place.

        The pass builder and its pipeline are made per call (about 0.2 ms): a pipeline
        cannot run twice (LLVM aborts), and a pass builder kept across modules keeps their
        analyses too (each run slower than the last, and results cached for a freed
        module's addresses). A module with a basic block over :data:`SLP_MAX_BLOCK`
        instructions is optimised without the SLP vectoriser (see :func:`slp_pays`)."""
        with stage("llvm_optimise"):
            self._optimize(module, speed_level)

    def _optimize(self, module: llvm.ModuleRef, speed_level: int) -> None:
        pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
        pto.loop_vectorization = speed_level >= 2
        pto.slp_vectorization = speed_level >= 2 and slp_pays(module)
        pto.loop_unrolling = speed_level >= 2
        pass_builder = llvm.create_pass_builder(self.target_machine, pto)
        pass_manager = pass_builder.getModulePassManager()
        pass_manager.run(module, pass_builder)

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


# The SLP vectoriser's search for horizontal reductions grows faster than the block it
# searches: on a 441-tap unrolled stencil (one 6,187-instruction block) it took 1.4 s of
# O3's 1.55 s, and the code without it ran as fast (3.6 against 3.8 ms per call); on an
# 81-tap one (1,147 instructions) 0.05 s of 0.1, for the same speed (0.135 ms). Blocks
# of everyday kernels (a 3x3 SVD, MPM's substep) hold under 800 and keep it.
SLP_MAX_BLOCK = 1000


def slp_pays(module: llvm.ModuleRef) -> bool:
    r"""False when a basic block of ``module`` holds more than :data:`SLP_MAX_BLOCK`
    instructions (unrolled straight-line code); counting stops at the first such block.

    >>> engine = jit()
    >>> body = "".join(f"  %v{k} = add i32 %x, {k}\n" for k in range(SLP_MAX_BLOCK + 1))
    >>> big = engine.parse("define i32 @f(i32 %x) {\n" + body + "  ret i32 %x\n}")
    >>> slp_pays(big), slp_pays(engine.parse("define void @g() { ret void }"))
    (False, True)
    """
    for function in module.functions:
        for block in function.blocks:
            for count, _ in enumerate(block.instructions, 1):
                if count > SLP_MAX_BLOCK:
                    return False
    return True


def jit() -> JitEngine:
    """Returns the process's JIT engine, creating it on first use."""
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = JitEngine()
    return _engine
