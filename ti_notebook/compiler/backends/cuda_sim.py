"""The SIMT runtime: the CUDA target's code on the emulator,
``ti.init(arch=ti.cuda, cuda_sim=True)`` or ``TI_CUDA_SIM=1``.

Everything up to the optimised NVPTX-form LLVM IR is the CUDA target's own
(``backends/cuda.py``); that IR, not PTX, is what the emulator runs, so it is the
artifact's code (and the offline cache's entry, under ``cuda-sim-sm_80``). The PTX stays
available as the ``ptx`` stage. The emulated device is an sm_80 with two
multiprocessors: small grids, because each block's threads are OS threads here; grid
size never changes results, as every loop is grid-strided.

    >>> from ti_notebook.compiler.backends.base import Backend
    >>> from ti_notebook.compiler.backends.cuda import CudaTarget
    >>> runtime = SimtRuntime()
    >>> backend = Backend(CudaTarget(runtime.device), runtime)
    >>> backend.arch, backend.cache_subdir, backend.device.saturating_grid
    ('cuda', 'cuda-sim-sm_80', 16)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.compiler.backends.base import Artifact, Runtime
from ti_notebook.compiler.backends.cuda import CudaTarget
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.runtime.launch import ArgLayout
from ti_notebook.runtime.simt import SIMT_DEVICE, SimtModule
from ti_notebook.runtime.simt.launch import SimKernel

# blocks per multiprocessor in the grid of a loop of unknown length: 2 SMs x 4 x 2 = 16
_SIM_BLOCKS_PER_SM = 4


def simt_cuda_device() -> CudaDevice:
    """The emulated GPU as code generation sees it (fewer resident blocks per SM in its
    grids than the device holds: each block's threads are OS threads here)."""
    device = CudaDevice.of(SIMT_DEVICE)
    return dataclasses.replace(device, blocks_per_multiprocessor=_SIM_BLOCKS_PER_SM)


class SimtRuntime(Runtime):
    """Runs the CUDA target's optimised IR on the SIMT emulator."""

    def __init__(self) -> None:
        self.device = simt_cuda_device()

    def start(self, store=None) -> None:
        """Nothing to start: each kernel's module is made at :meth:`launchable`."""

    def cache_subdir(self, target: CudaTarget) -> str:
        return f"cuda-sim-{target.compute_capability}"  # IR, not PTX: entries of its own

    def description(self) -> dict:
        return {"runs_on": "simt-emulator"}

    def load(
        self, target: CudaTarget, module_text: str, artifact: Artifact, keep_code: bool
    ) -> tuple[int, str]:
        """The emulator runs the optimised NVPTX IR, not the PTX: that is the code kept."""
        optimized, _ptx = target.compile(module_text, artifact)
        artifact.code = optimized.encode()
        return 0, optimized

    def load_code(self, artifact: Artifact) -> int:
        return 0  # an offline-cache hit: the IR is in artifact.code

    def launchable(
        self, name: str, entry: int, layout: ArgLayout, return_type, artifact: Artifact
    ) -> SimKernel:
        # a kernel with no task (an empty body) has no CUDA kernel to load
        module = SimtModule(artifact.code.decode()) if artifact.launches else None
        return SimKernel(name, layout, return_type, artifact, module)
