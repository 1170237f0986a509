"""The CUDA target: IR → NVPTX LLVM IR → PTX, with no device needed.

:class:`CudaTarget`'s capabilities are a CUDA device's (by default an H100: ``sm_90``,
132 SMs): 32-thread warps, 48 KB of shared memory per block, no streaming stores,
native integer atomics and f32/f64 atomic adds (float min/max are compare-and-swap
loops), and as many threads as the device holds at once. Every task is a kernel of its
own (``tasks_are_kernels``), so the pipeline spills the values that cross tasks
(``passes/spill_between_tasks.py``) and has no ``privatize_scatter``. ``generate``
builds the module (``codegen/nvptx/module.py``, whose docstring states the launch
contract); :meth:`CudaTarget.compile` optimises it at O3 with libdevice linked when
needed and emits PTX.

Three runtimes run this target's code: ``backends/cuda_device.py`` (a GPU),
``backends/cuda_sim.py`` (the SIMT emulator) and, here, :class:`PtxRuntime`, which
loads nothing: ``kernel.stages(*args, arch="cuda")`` compiles through it
(:func:`cuda_backend`), from any session, to show a kernel's PTX, and its
:class:`PtxKernel` only describes what to launch.

    >>> backend = ptx_backend(compute_capability="sm_80")
    >>> backend.arch, backend.stage_names, backend.cache_subdir
    ('cuda', ('ptx', 'resources'), 'cuda-sm_80')
    >>> caps = backend.capabilities
    >>> caps.warp_size, caps.shared_memory_per_block, caps.threads, caps.non_temporal_stores
    (32, 49152, 221184, False)
"""

from __future__ import annotations

import collections
import functools
import hashlib

import llvmlite
import llvmlite.binding as llvm

from ti_notebook.codegen.nvptx import target as nvptx_target
from ti_notebook.codegen.nvptx.module import NvptxModuleGenerator
from ti_notebook.compiler.backends.base import Artifact, Backend, Runtime, Target
from ti_notebook.compiler.backends.cpu import context_arg_layout
from ti_notebook.cuda_analysis.kernel_report import gpu_resources
from ti_notebook.errors import TiRuntimeError
from ti_notebook.ir.capabilities import INTEGER_ATOMICS, Capabilities
from ti_notebook.ir.devices import WARP_SIZE, CudaDevice
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import pipeline
from ti_notebook.runtime.launch import ArgLayout
from ti_notebook.runtime.stage_clock import stage

NVPTX_ATOMICS = INTEGER_ATOMICS | {"add_f32", "add_f64"}
_KEPT_PTX = 64  # PTX texts kept for target_stage, newest first out


class PtxKernel:
    """A kernel compiled for CUDA but not loaded: what a launcher needs, in one place.

    ``artifact.code`` is the PTX, ``artifact.launches`` the launch table
    (``codegen/nvptx/module.py``), ``layout`` how arguments pack into the launch context.
    """

    entry_address = 0  # nothing is loaded in this process

    def __init__(self, name: str, layout: ArgLayout, return_type, artifact: Artifact) -> None:
        self.name, self.layout, self.return_type, self.artifact = (
            name,
            layout,
            return_type,
            artifact,
        )

    @property
    def ptx(self) -> str:
        return self.artifact.code.decode()

    def launch(self, args) -> None:
        raise TiRuntimeError(
            f"kernel '{self.name}' was compiled for CUDA to show its stages: its PTX is not "
            "loaded on a device, so it cannot run from here",
            hint="ti.init(arch=ti.cuda) runs kernels on a CUDA device (cuda_sim=True: on "
            'the SIMT emulator); kernel.stages(..., arch="cuda") shows the PTX',
        )


class CudaTarget(Target):
    """NVIDIA GPUs through NVPTX (``ti.cuda``), for one device's compute capability."""

    arch = "cuda"
    stage_names = ("ptx", "resources")
    passes = pipeline.KERNEL_PER_TASK_PASSES

    def __init__(self, device: CudaDevice | None = None, compute_capability: str = "sm_90"):
        self.device = device or CudaDevice.for_capability(compute_capability)
        self.compute_capability = self.device.compute_capability
        self.cache_subdir = f"cuda-{self.compute_capability}"
        self.capabilities = Capabilities(
            arch=self.arch,
            threads=self.device.threads,
            vector_width=4,  # a thread's registers are 32-bit: width comes from warps
            warp_size=WARP_SIZE,
            shared_memory_per_block=self.device.shared_memory_per_block,
            non_temporal_stores=False,
            native_atomics=NVPTX_ATOMICS,
            tasks_are_kernels=True,
        )
        self._ptx: collections.OrderedDict[str, str] = collections.OrderedDict()

    @classmethod
    def for_device(cls, device: CudaDevice | None, threads: int) -> CudaTarget:
        return cls(device)

    def target_description(self) -> dict:
        return {
            "triple": nvptx_target.TRIPLE,
            "compute_capability": self.compute_capability,
            "ptx_features": nvptx_target.PTX_FEATURES,
            "llvmlite": llvmlite.__version__,
            "llvm": ".".join(map(str, llvm.llvm_version_info)),
            "libdevice": nvptx_target.find_libdevice(),
        }

    def arg_layout(self, params: list, written: list[str], returns: int = 1) -> ArgLayout:
        return context_arg_layout(params, written, returns)

    def generate(
        self, kernel: KernelIR, options: CompileOptions, arg_offsets: dict, prefix: str | None
    ) -> tuple[str, Artifact]:
        generator = NvptxModuleGenerator(
            kernel, options, self.capabilities, arg_offsets, prefix, self.device
        )
        text = generator.generate()
        kernel.report["launches"] = [launch.as_dict() for launch in generator.launches]
        artifact = Artifact(
            generator.prefix,
            generator.prints,
            generator.asserts,
            generator.tree_slots,
            launches=generator.launches,
            temps_bytes=kernel.temps_size,
        )
        return text, artifact

    def compile(self, module_text: str, artifact: Artifact) -> tuple[str, str]:
        """(optimised NVPTX IR, PTX) of a generated module."""
        kernels = [launch.kernel for launch in artifact.launches]
        optimized, ptx = nvptx_target.compile_module(
            module_text, self.compute_capability, kernels, stage
        )
        self._remember(optimized, ptx)
        return optimized, ptx

    def target_stage(self, stage: str, optimized_text: str, stages=None):
        if stage == "resources":  # ptxas -v and occupancy (None without ptxas)
            report = stages["report"]
            return gpu_resources(
                stages["ptx"], report.launches, warp_accesses=_accesses_by_kernel(report)
            )
        if stage != "ptx":
            raise KeyError(stage)
        key = hashlib.sha256(optimized_text.encode()).hexdigest()
        if key not in self._ptx:  # a cache hit: emitted again from the optimised IR
            self._remember(
                optimized_text, nvptx_target.ptx_of(optimized_text, self.compute_capability)
            )
        return self._ptx[key]

    def _remember(self, optimized: str, ptx: str) -> None:
        self._ptx[hashlib.sha256(optimized.encode()).hexdigest()] = ptx
        while len(self._ptx) > _KEPT_PTX:
            self._ptx.popitem(last=False)


class PtxRuntime(Runtime):
    """Loads nothing: keeps the PTX as the artifact's code, and a call says the kernel
    was compiled to show its stages."""

    def start(self, store=None) -> None:
        """Nothing to start: compiling needs no device."""

    def load(
        self, target: CudaTarget, module_text: str, artifact: Artifact, keep_code: bool
    ) -> tuple[int, str]:
        """Optimises and emits PTX (always kept: it is what a launcher loads)."""
        optimized, ptx = target.compile(module_text, artifact)
        artifact.code = ptx.encode()
        return 0, optimized

    def load_code(self, artifact: Artifact) -> int:
        return 0  # an offline-cache hit: the PTX is in artifact.code

    def launchable(
        self, name: str, entry: int, layout: ArgLayout, return_type, artifact: Artifact
    ) -> PtxKernel:
        return PtxKernel(name, layout, return_type, artifact)


def ptx_backend(compute_capability: str = "sm_90") -> Backend:
    """The CUDA target for ``compute_capability`` with :class:`PtxRuntime` (a new one)."""
    return Backend(CudaTarget(compute_capability=compute_capability), PtxRuntime())


def _accesses_by_kernel(report) -> dict:
    """Kernel name -> the warp accesses of its task (a snapshot kernel has none)."""
    own = [launch for launch in report.launches if launch["kind"] != "snapshot"]
    return {
        launch["kernel"]: task.warp_accesses
        for launch, task in zip(own, report.tasks, strict=False)
    }


@functools.cache
def cuda_backend(compute_capability: str = "sm_90") -> Backend:
    """The process's :func:`ptx_backend` for ``compute_capability`` (one per capability).

    >>> cuda_backend("sm_90") is cuda_backend("sm_90")
    True
    """
    return ptx_backend(compute_capability)
