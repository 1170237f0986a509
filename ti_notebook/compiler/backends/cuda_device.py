"""The CUDA runtime on the GPU present: ``ti.init(arch=ti.cuda)`` with a device.

:class:`CudaDeviceRuntime` runs the CUDA target's code (``backends/cuda.py``: IR →
NVPTX → PTX, the launch table) on this device, and the target compiles for it: its
compute capability (a GPU newer than the newest target here gets code for that target:
PTX is forward compatible, the driver compiles it for the GPU), its SM count, threads
and blocks per SM and shared memory, read through ``runtime/cuda/driver.py``. Each
launch-table entry also gets ``written_trees``: the tree slots its task stores into
(None when a store's target is not traced back to a tree), so a kernel that only reads a
field does not make the host download it again, and ``iterations_exact`` (false for a
sparse struct-for, which visits the active cells of its range only), so the profiler
reports no guessed iteration counts. ``start`` makes the CUDA context; ``launchable``
loads the PTX (once per distinct PTX text; the driver's JIT cache keeps the machine code
it compiles across processes, so the offline cache stores PTX only) and gives a
:class:`~ti_notebook.runtime.cuda.launch.DeviceKernel`.

    >>> target_capability("sm_90"), target_capability("sm_120"), target_capability("sm_88")
    ('sm_90', 'sm_90', 'sm_87')
    >>> rtx = CudaStatus(True, "", "RTX 4090", "sm_89", 128, 1536, 24, 49152, 101376)
    >>> backend = cuda_device_backend(rtx)  # no driver call until start()
    >>> backend.cache_subdir, backend.device.saturating_grid, backend.capabilities.threads
    ('cuda-sm_89', 6144, 196608)
"""

from __future__ import annotations

import dataclasses
import hashlib
import weakref

from ti_notebook.compiler.backends.base import Artifact, Backend
from ti_notebook.compiler.backends.cuda import CudaTarget, PtxRuntime
from ti_notebook.errors import TiRuntimeError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.runtime.cuda import driver as cuda_driver
from ti_notebook.runtime.cuda.driver import CudaStatus, LoadedModule
from ti_notebook.runtime.cuda.launch import DeviceKernel
from ti_notebook.runtime.launch import ArgLayout

# The compute capabilities code is made for (+ptx78 covers them all); others map to the
# nearest one below. ptxas 13 checks sm_75 and newer only (CUDA 13 dropped Pascal and
# Volta); for those the driver's own PTX compiler is the check, at load.
TARGETS = ("sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90")

__all__ = ["CudaDeviceRuntime", "cuda_device_backend", "target_capability", "written_tree_slots"]
# statements whose address operand is written, by the operand's name
_WRITES = {ir.GlobalStoreStmt: "ptr", ir.AtomicOpStmt: "dest", ir.MemsetZeroStmt: "ptr"}
# addresses that are not field memory: temporaries, ndarrays, locals, buffers
_NOT_TREES = (
    ir.TempPtrStmt,
    ir.ExternalPtrStmt,
    ir.AllocaStmt,
    ir.LocalArrayStmt,
    ir.ScratchAllocStmt,
)


def target_capability(compute_capability: str) -> str:
    """The target to compile for on a GPU of ``compute_capability`` (``"sm_86"``)."""
    if compute_capability in TARGETS:
        return compute_capability
    number = int(compute_capability.removeprefix("sm_").rstrip("af"))
    older = [t for t in TARGETS if int(t[3:]) <= number]
    if not older:
        raise TiRuntimeError(
            f"the GPU's compute capability {compute_capability} is older than the oldest "
            f"supported, {TARGETS[0]}",
            hint="ti.init(arch=ti.cpu) runs the kernels on the CPU",
        )
    return older[-1]


def written_tree_slots(task: ir.OffloadedStmt, tree_slots: list[int]) -> list[int] | None:
    """The slots (indices into ``tree_slots``) of the trees ``task`` stores into, from its
    lowered IR: every store, atomic and memset address is followed back through its
    offsets to a tree's root; None (it may write any tree) when one leads elsewhere."""
    written: set[int] = set()
    for stmt in task.walk_all():
        operand = _WRITES.get(type(stmt))
        if operand is None:
            if isinstance(stmt, (ir.SNodeOpStmt, ir.GlobalPtrStmt)):
                return None  # not lowered: the address is not in the IR
            continue
        address = getattr(stmt, operand)
        while isinstance(address, ir.PtrOffsetStmt):
            address = address.base
        if isinstance(address, ir.RootPtrStmt) and address.tree_id in tree_slots:
            written.add(tree_slots.index(address.tree_id))
        elif not isinstance(address, _NOT_TREES):
            return None
    return sorted(written)


class CudaDeviceRuntime(PtxRuntime):
    """Loads and launches on the device ``status`` describes (by default the one
    :func:`~ti_notebook.runtime.cuda.driver.cuda_status` finds); ``context``: what loads
    and launches (by default the process's CUDA context, made at :meth:`start`). Compiling
    is :class:`PtxRuntime`'s: the PTX kept as the artifact's code, loaded at
    :meth:`launchable`."""

    def __init__(self, status: CudaStatus | None = None, context=None) -> None:
        status = status or cuda_driver.cuda_status()
        if not status.available:
            raise TiRuntimeError(
                f"no CUDA device can be used: {status.reason}",
                hint="ti.init(arch=ti.cpu) runs the kernels on the CPU; cuda_sim=True runs "
                "their CUDA code on the CPU",
            )
        self.device = status.device(target_capability(status.compute_capability))
        self.status = status
        self._context = context
        # PTX hash -> its module while a kernel uses it (then it is unloaded)
        self._modules: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    @property
    def context(self):
        if self._context is None:
            self._context = cuda_driver.context()
        return self._context

    def start(self, store=None) -> None:
        """Makes the CUDA context (once per process)."""
        self.context  # noqa: B018 - the property makes it

    def annotate(self, kernel: KernelIR, artifact: Artifact) -> None:
        """Each launch's ``written_trees`` and ``iterations_exact`` (see the module)."""
        tasks = iter(kernel.tasks())
        stated = []
        for launch in artifact.launches:  # helpers write module globals, not trees
            task = next(tasks) if launch.is_task else None
            slots = [] if task is None else written_tree_slots(task, artifact.tree_slots)
            # a sparse struct-for visits the active cells only: fewer than its range
            sparse = task is not None and task.kind == "struct_for"
            sparse = sparse and task.field.layout().is_sparse
            exact = launch.iterations is not None and not sparse
            written = None if slots is None else tuple(slots)
            stated.append(
                dataclasses.replace(launch, written_trees=written, iterations_exact=exact)
            )
        artifact.launches = stated
        kernel.report["launches"] = [launch.as_dict() for launch in stated]

    def module_for(self, artifact: Artifact, kernel: str) -> LoadedModule:
        """The loaded module of an artifact's PTX (loaded once per distinct text)."""
        key = hashlib.sha256(artifact.code).hexdigest()
        module = self._modules.get(key)
        if module is None:
            module = self._modules[key] = LoadedModule(self.context, artifact.code, kernel)
        return module

    def launchable(
        self, name: str, entry: int, layout: ArgLayout, return_type, artifact: Artifact
    ) -> DeviceKernel:
        module = self.module_for(artifact, name) if artifact.launches else None
        return DeviceKernel(name, layout, return_type, artifact, module, self.context, self.device)


def cuda_device_backend(status: CudaStatus | None = None, context=None) -> Backend:
    """The CUDA target for the device ``status`` describes, with its runtime."""
    runtime = CudaDeviceRuntime(status, context)
    return Backend(CudaTarget(runtime.device), runtime)
