"""The CUDA backend on the SIMT emulator: ``ti.init(arch=ti.cuda, cuda_sim=True)`` or
``TI_CUDA_SIM=1``.

Everything up to the optimised NVPTX-form LLVM IR is the CUDA backend's own
(``backends/cuda.py``); that IR, not PTX, is what the emulator runs, so it is the
artifact's code (and the offline cache's entry, under ``cuda-sim-sm_80``). The PTX stays
available as the ``ptx`` stage. The emulated device is an sm_80 with two
multiprocessors: small grids, because each block's threads are OS threads here; grid
size never changes results, as every loop is grid-strided.

    >>> backend = CudaSimBackend()
    >>> backend.arch, backend.cache_subdir, backend.device.saturating_grid
    ('cuda', 'cuda-sim-sm_80', 16)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.compiler.backends.base import Artifact
from ti_notebook.compiler.backends.cuda import CudaBackend
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.runtime.cuda_sim_launch import SimKernel
from ti_notebook.runtime.launch import ArgLayout
from ti_notebook.runtime.simt import SIMT_DEVICE, SimtModule

# blocks per multiprocessor in the grid of a loop of unknown length: 2 SMs x 4 x 2 = 16
_SIM_BLOCKS_PER_SM = 4


def simt_cuda_device() -> CudaDevice:
    """The emulated GPU as code generation sees it (fewer resident blocks per SM in its
    grids than the device holds: each block's threads are OS threads here)."""
    device = CudaDevice.of(SIMT_DEVICE)
    return dataclasses.replace(device, blocks_per_multiprocessor=_SIM_BLOCKS_PER_SM)


class CudaSimBackend(CudaBackend):
    """The CUDA backend whose kernels run on the SIMT emulator."""

    def __init__(self) -> None:
        super().__init__(device=simt_cuda_device())
        self.cache_subdir = f"cuda-sim-{self.compute_capability}"

    def target_description(self) -> dict:
        return {**super().target_description(), "runs_on": "simt-emulator"}

    def loadable(self, optimized: str, ptx: str) -> str:
        """The emulator runs the optimised NVPTX IR, not the PTX."""
        return optimized

    def launchable(
        self, name: str, entry: int, layout: ArgLayout, return_type, artifact: Artifact
    ) -> SimKernel:
        # a kernel with no task (an empty body) has no CUDA kernel to load
        module = SimtModule(artifact.code.decode()) if artifact.launches else None
        return SimKernel(name, layout, return_type, artifact, module)
