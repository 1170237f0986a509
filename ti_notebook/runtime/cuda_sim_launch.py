"""Launching a CUDA-compiled kernel on the SIMT emulator (``ti.init(arch=ti.cuda,
cuda_sim=True)``).

The emulator runs the very NVPTX-form LLVM IR the GPU would get (after NVPTX O3), with
one OS thread per CUDA thread of a block, real barriers, warp shuffles and shared memory
(``runtime/simt/``). Launching follows the launch contract of ``codegen/nvptx.py``: the
tasks run in order, one launch each, with their block and grid sizes; the launch context
is the CPU launcher's (``runtime/launch.py``): the emulator's threads share this
process's memory, so fields, ndarrays and the context stay where they are, and only the
temporaries buffer (which the CPU keeps on its stack) is allocated here.

Timings under the emulator are not GPU timings: a block's threads are OS threads.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cuda, cuda_sim=True)
    >>> x = ti.field(ti.i32, shape=300)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = i * 2
    >>> fill()
    >>> int(x.to_numpy().sum()), ti.current_arch()
    (89700, 'cuda')
"""

from __future__ import annotations

import ctypes
import struct

from ti_notebook.codegen import common as c
from ti_notebook.runtime.launch import ArgLayout, CompiledKernel
from ti_notebook.runtime.profiler_events import KernelProfile
from ti_notebook.runtime.simt import SimtModule

DEVICE_NAME = "cuda (SIMT emulator)"


class SimKernel(CompiledKernel):
    """A kernel compiled for CUDA whose tasks run on the SIMT emulator."""

    def __init__(
        self, name: str, layout: ArgLayout, return_type, artifact, module: SimtModule | None
    ) -> None:
        # prints go through vprintf: the emulator writes them when a launch ends
        super().__init__(
            name, 0, layout, return_type, [], artifact.asserts, artifact.tree_slots, None
        )
        self.module = module
        self.about = KernelProfile(name, name, DEVICE_NAME, ())
        self.temps = ctypes.create_string_buffer(max(artifact.temps_bytes, 8))
        struct.pack_into("<q", self.ctx, c.CTX_TEMPS, ctypes.addressof(self.temps))
        self.tasks = [
            (
                module.kernel(launch["kernel"]),
                int(launch["grid_dim"]),
                int(launch["block_dim"]),
                int(launch.get("shared_bytes") or 0),
                bool(launch.get("checks_errors")),
            )
            for launch in artifact.launches
        ]

    def run(self) -> None:
        params = [self.ctx_address]
        for kernel, grid, block, shared, checks_errors in self.tasks:
            kernel.launch(grid=grid, block=block, params=params, shared_bytes=shared)
            if checks_errors and struct.unpack_from("<q", self.ctx, c.CTX_ERROR)[0]:
                return  # a failed check stops the kernel, as the CPU's entry does
