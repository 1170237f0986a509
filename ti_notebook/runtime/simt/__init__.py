"""The SIMT emulator: runs the CUDA backend's NVPTX-form LLVM IR on the CPU with GPU
semantics, so CUDA code paths are testable on machines without a GPU.

How it works (``CUDA-NOTES.md``, "Testing without a GPU"): ``rewrite.py`` turns the
module into x86-64 IR, replacing NVVM intrinsics with calls into a native runtime
(``sync_ir.py``, ``pool_ir.py``) that runs each CUDA thread of a block as its own OS
thread, with real block barriers (``__syncthreads``), warp barriers, shuffles and votes
through per-warp exchange slots, and shared memory; blocks run one after another.
Threads that exit early count as arrived at barriers; a deadlock (a barrier or shuffle
in divergent code) is detected and raised, not hung on. Every loop head polls
(``polls.py``), so Ctrl-C stops a launch (``KernelInterrupted``), and a block that can
only wait for a later block (a stall, ``watch_ir.py``) is raised as an error too.

    >>> from ti_notebook.runtime.simt import SimtModule, SIMT_DEVICE
    >>> SIMT_DEVICE.warp_size
    32
    >>> module = SimtModule('''
    ... declare void @llvm.nvvm.barrier0()
    ... define ptx_kernel void @noop() {
    ...   call void @llvm.nvvm.barrier0()
    ...   ret void
    ... }''')
    >>> module.launch("noop", grid=(2, 1, 1), block=(64, 1, 1))
    >>> module.kernel("noop")
    SimtKernel('noop', params=())
"""

from ti_notebook.runtime.simt.device import SIMT_DEVICE
from ti_notebook.runtime.simt.module import SimtKernel, SimtModule

__all__ = ["SimtModule", "SimtKernel", "SIMT_DEVICE"]
