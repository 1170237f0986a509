"""The CPU backend: x86-64 code through llvmlite's MCJIT, launched on the native pool.

:class:`CpuTarget`: the host's capabilities (as many threads as
``ti.init(cpu_max_num_threads=)`` allows, the widest SIMD registers the CPU has, no warps
(a warp is one thread), no shared memory, non-temporal stores, one-instruction integer
atomics), the module (``codegen/cpu/``) and its own stage, ``asm``; its cache entries
(object code) live in ``cpu/``. :class:`CpuRuntime`: the JIT optimises and loads the
module (``runtime/cpu/loader.py``), and a call launches it on the native thread pool.

    >>> target = CpuTarget(threads=2)
    >>> target.capabilities.threads, target.capabilities.vector_width in (16, 32, 64)
    (2, True)
    >>> [name for name, _ in target.passes][-1]
    'typecheck_final'
"""

from __future__ import annotations

import functools

from ti_notebook.codegen import vector_math
from ti_notebook.codegen.cpu import slp_vectoriser
from ti_notebook.codegen.cpu.module import CpuModuleGenerator
from ti_notebook.compiler.backends.base import Artifact, Runtime, Target
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import pipeline
from ti_notebook.runtime.cpu import loader as cpu_runtime
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.cpu.kernel_code import KernelCode
from ti_notebook.runtime.launch import ArgLayout, ArgSlot, CompiledKernel


@functools.cache
def host_vector_width() -> int:
    """Bytes of the host's widest SIMD register: AVX-512 64, AVX 32, else SSE's 16."""
    features = set(jit().cpu_features.split(","))
    if "+avx512f" in features:
        return 64
    return 32 if "+avx" in features else 16


def context_arg_layout(params: list, written: list[str], returns: int = 1) -> ArgLayout:
    """The launch-time argument layout in the launch context (the same on every target);
    ``written`` names the ndarrays the code stores into (a read-only NumPy array passed
    there is refused before launching). A vector, matrix or struct parameter takes one
    scalar slot per component, named like ``v[1]`` or ``p.pos[0]`` for errors;
    ``returns`` is the number of return slots."""
    slots = []
    for p in params:
        if p.kind == "ndarray":
            slots.append(ArgSlot(p.name, "ndarray", p.dtype, p.ndim, p.name in written))
        elif p.kind == "scalar":
            slots.append(ArgSlot(p.name, _scalar_kind(p.dtype), p.dtype, 0))
        elif p.kind == "compound":
            for path, dtype in zip(p.compound.paths, p.compound.leaves, strict=True):
                slots.append(ArgSlot(p.name + path, _scalar_kind(dtype), dtype, 0))
    return ArgLayout(slots, returns)


def _scalar_kind(dtype) -> str:
    return "float" if dtype.is_float else "int" if dtype.is_signed else "uint"


class CpuTarget(Target):
    """Code for the host CPU (``ti.cpu``, ``ti.x64``, ``ti.arm64``)."""

    arch = "cpu"
    stage_names = ("asm",)
    cache_subdir = "cpu"
    passes = pipeline.PASSES

    def __init__(self, threads: int) -> None:
        self.capabilities = Capabilities(
            arch=self.arch,
            threads=threads,
            vector_width=host_vector_width(),
            vector_math=vector_math.available(jit().cpu_features),
        )

    @classmethod
    def for_device(cls, device, threads: int) -> CpuTarget:
        return cls(threads)

    def target_description(self) -> dict:
        engine = jit()
        return {"triple": engine.triple, "cpu": engine.cpu_name, "features": engine.cpu_features}

    def arg_layout(self, params: list, written: list[str], returns: int = 1) -> ArgLayout:
        return context_arg_layout(params, written, returns)

    def generate(
        self, kernel: KernelIR, options: CompileOptions, arg_offsets: dict, prefix: str | None
    ) -> tuple[str, Artifact]:
        generator = CpuModuleGenerator(kernel, options, self.capabilities, arg_offsets, prefix)
        engine = jit()  # the stage shows the real target, as the JIT compiles it
        generator.module.triple = engine.triple
        generator.module.data_layout = str(engine.target_data)
        text = generator.generate()
        profile = generator.profile
        artifact = Artifact(
            generator.entry_name,
            generator.prints,
            generator.asserts,
            generator.tree_slots,
            profile=(profile.tasks, profile.threads) if profile else None,
            slp_vectorize=slp_vectoriser.wants_slp(kernel),
        )
        return text, artifact

    def target_stage(self, stage: str, optimized_text: str, stages=None) -> str:
        if stage != "asm":
            raise KeyError(stage)
        engine = jit()
        return engine.assembly(engine.parse(optimized_text))


class CpuRuntime(Runtime):
    """The JIT and the native thread pool of this process."""

    def start(self, store=None) -> None:
        cpu_runtime.ensure_runtime(store)

    def load(
        self, target: Target, module_text: str, artifact: Artifact, keep_code: bool
    ) -> tuple[KernelCode, str]:
        # the entry is the loaded code itself: the kernel launched holds it, and its
        # machine code is freed when that kernel dies (runtime/cpu/kernel_code.py)
        slp = artifact.slp_vectorize
        if keep_code:
            entry, optimized, code = cpu_runtime.load_as_object(
                module_text, artifact.entry_name, slp
            )
            artifact.code = code
            return entry, optimized
        return cpu_runtime.load(module_text, artifact.entry_name, slp)

    def load_code(self, artifact: Artifact) -> KernelCode:
        return cpu_runtime.load_object(artifact.code, artifact.entry_name)

    def launchable(
        self, name: str, entry: KernelCode, layout: ArgLayout, return_type, artifact: Artifact
    ) -> CompiledKernel:
        return CompiledKernel(
            name,
            entry.address(artifact.entry_name),
            layout,
            return_type,
            artifact.prints,
            artifact.asserts,
            artifact.tree_slots,
            artifact.profile,
            code=entry,
        )
