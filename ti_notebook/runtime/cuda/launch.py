"""Launching a CUDA-compiled kernel on the GPU (``ti.init(arch=ti.cuda)`` with a device).

:class:`DeviceKernel` is the CPU launcher (``runtime/launch.py``) with another
``run``: arguments are converted and packed into the same launch context, and then

1. ndarray arguments are copied to device buffers (their context slots now hold the
   device addresses), and copied back after the launch when the kernel writes them;
2. the trees the kernel uses are uploaded where the host copy is newer
   (``runtime/cuda/memory.py``), and those it writes (``written_trees`` of its launch
   entries; all of them when unknown) are marked device-newer after the launch;
3. the context goes to its device copy, whose ``CTX_ROOTS`` points at a device table
   of the trees' device bases (by the artifact's slots) and ``CTX_TEMPS`` at a device
   buffer of ``temps_bytes``;
4. each :class:`~ti_notebook.ir.launch_abi.Launch` of the launch table is launched in order with
   ``cuLaunchKernel``: its block size, a grid recomputed for this GPU
   (:func:`grid_dims`), its dynamic shared memory; after a task that ``checks_errors``
   the error slot is read back, and a failed check stops the launch;
5. the error slot and ``CTX_RETURN`` come back to the host context, where the CPU
   launcher's code raises the error or reads the return value.

Launches are asynchronous unless something comes back (a return value, a checked
error, a written ndarray, a field the host then reads): uploads are stream-ordered
(``CudaContext.upload``), so a loop of launches does not wait for the GPU. ``print`` goes through
``vprintf``: a kernel that prints is waited for and the driver's output is flushed at
the end of its launch, so lines appear in the cell that ran it. With the kernel
profiler on, CUDA events time each task on the GPU.

    >>> from ti_notebook.ir.devices import CudaDevice
    >>> from ti_notebook.ir.launch_abi import Launch
    >>> a100 = CudaDevice.for_capability("sm_80")
    >>> loop = Launch("k_task0", "range_for", block_dim=128, iterations=1000)
    >>> grid_dims([loop, dataclasses.replace(loop, iterations=None)], a100)
    [8, 6912]
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import struct
import sys
import time
import weakref

from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.ir.launch_abi import TASK_KINDS, Launch, grid_dim
from ti_notebook.runtime import array_homes, profiler
from ti_notebook.runtime.cuda import memory as cuda_memory
from ti_notebook.runtime.cuda.driver import KernelParams
from ti_notebook.runtime.launch import ArgLayout, CompiledKernel
from ti_notebook.runtime.profiler_events import KernelProfile, LaunchEvent, TaskEvent

DEVICE_NAME = "cuda:0"
# what comes back after a launch: the error slot and its arguments, and the return value
_RESULTS = abi.CTX_ERROR
_RESULTS_BYTES = abi.CTX_RETURN + 8 - abi.CTX_ERROR
_libc = ctypes.CDLL(None)


def grid_dims(launches: list[Launch], device: CudaDevice) -> list[int]:
    """The grid of each launch-table entry on ``device`` (:func:`ir.launch_abi.grid_dim`,
    the formula ``codegen/nvptx/module.py`` sized them with for the device it compiled
    for); a sparse list's task gets at most a block per block the list before it may
    hold."""
    grids, listed = [], None
    for launch in launches:
        if launch.kind == "list":
            listed = launch.iterations  # the blocks the next task's list may hold
        grids.append(grid_dim(launch, device, listed))
    return grids


@dataclasses.dataclass(frozen=True)
class DeviceTask:
    """One entry of the launch table, resolved: the function and its launch shape."""

    symbol: str
    kind: str
    function: object  # CUfunction
    grid: int
    block: int
    shared_bytes: int
    checks_errors: bool
    iterations: int | None  # for the profiler: None where not exactly known


@dataclasses.dataclass
class ArraySlot:
    """An ndarray argument's context slot and its device buffer (grown as needed)."""

    offset: int
    ndim: int
    itemsize: int
    written: bool
    address: int = 0
    capacity: int = 0


class DeviceKernel(CompiledKernel):
    """A kernel compiled for CUDA, loaded on the device (``module``: its
    ``cuda_driver.LoadedModule``, kept while the kernel lives; None when it has no
    task), launched through ``context`` (``cuda_driver``'s, or a test's fake with the
    same methods)."""

    def __init__(
        self,
        name: str,
        layout: ArgLayout,
        return_type,
        artifact,
        module,
        context,
        device: CudaDevice,
    ) -> None:
        # prints go through vprintf (the driver writes them), not the CPU's print table
        super().__init__(
            name, 0, layout, return_type, [], artifact.asserts, artifact.tree_slots, None
        )
        self.context, self.module = context, module
        self.about = KernelProfile(name, name, DEVICE_NAME, ())
        self.vprintf = bool(artifact.prints)
        self.allocations: list[int] = []  # freed with the kernel
        weakref.finalize(self, _free_all, context, self.allocations)
        self.device_trees = [cuda_memory.attach(tree, context) for tree in self.trees]
        self.written_trees = written_trees(artifact, self.device_trees)
        bases = {tree.tree_id: tree.address for tree in self.device_trees}
        roots = (ctypes.c_uint64 * max(len(artifact.tree_slots), 1))(
            *(bases.get(tree_id, 0) for tree_id in artifact.tree_slots)
        )
        roots_device = self.alloc(ctypes.sizeof(roots), "its roots table")
        context.upload(roots_device, ctypes.addressof(roots), ctypes.sizeof(roots))
        temps_device = self.alloc(max(artifact.temps_bytes, 8), "its temporaries")
        self.ctx_bytes = ctypes.sizeof(self.ctx)
        self.ctx_device = self.alloc(self.ctx_bytes, "its launch context")
        struct.pack_into("<qq", self.ctx, abi.CTX_ROOTS, roots_device, temps_device)
        struct.pack_into("<qq", self.ctx, abi.CTX_INTERRUPT, 0, 0)  # and CTX_PROFILE
        self.params = KernelParams([self.ctx_device])
        self.arrays = [
            ArraySlot(layout.offsets[k], slot.ndim, slot.dtype.np_dtype.itemsize, slot.written)
            for k, slot in enumerate(layout.slots)
            if slot.kind == "ndarray"
        ]
        grids = grid_dims(artifact.launches, device)
        self.tasks = [
            self.resolve(launch, module, device, grid)
            for launch, grid in zip(artifact.launches, grids, strict=True)
        ]
        self.timing_events: list | None = None  # the profiler's CUDA events, made once
        self.timing: list | None = None  # those events, during a timed launch
        self.tasks_run = 0

    def alloc(self, nbytes: int, what: str) -> int:
        address = self.context.alloc(nbytes, f"{what} ({nbytes} bytes)")
        self.allocations.append(address)
        return address

    def resolve(self, launch: Launch, module, device: CudaDevice, grid: int) -> DeviceTask:
        function = self.context.function(module.handle, launch.kernel, self.name)
        shared = launch.shared_bytes
        if shared > device.shared_memory_per_block:  # above 48 KB a kernel opts in
            self.context.allow_dynamic_shared(function, shared, self.name)
        return DeviceTask(
            launch.kernel,
            launch.kind,
            function,
            grid,
            launch.block_dim,
            shared,
            launch.checks_errors,
            launch.iterations if launch.iterations_exact else None,
        )

    # -- one launch (CompiledKernel.launch packed the context and holds the lock) -------
    def run(self) -> None:
        copies, resident = self.stage_arrays()
        cuda_memory.before_launch(self.device_trees)
        self.context.upload(self.ctx_device, self.ctx_address, self.ctx_bytes)
        try:
            self.run_tasks()
        finally:  # even a failed launch may have written the trees and ndarrays
            cuda_memory.after_launch(self.written_trees)
            cuda_memory.after_launch(resident)
        for host, device, nbytes in copies:
            self.context.download(host, device, nbytes)
        if self.vprintf:
            sys.stdout.flush()
            self.context.synchronize()  # the driver writes vprintf's lines now
            _libc.fflush(None)

    def run_tasks(self) -> None:
        context, timing, results_read = self.context, self.timing, False
        self.tasks_run = 0
        if timing is not None:
            context.record(timing[0])
        for task in self.tasks:
            context.launch(
                task.function,
                task.grid,
                task.block,
                task.shared_bytes,
                self.params.address,
                self.name,
            )
            self.tasks_run += 1
            if timing is not None:
                context.record(timing[self.tasks_run])
            results_read = task.checks_errors
            if results_read:
                self.read_results()
                if struct.unpack_from("<q", self.ctx, abi.CTX_ERROR)[0]:
                    return  # a failed check stops the kernel, as on the CPU
        if self.return_format is not None and not results_read:
            self.read_results()

    def read_results(self) -> None:
        """The error slot and the return value, device → host context (waits); a vector,
        struct or tuple return's other slots follow the arguments."""
        self.context.download(
            self.ctx_address + _RESULTS, self.ctx_device + _RESULTS, _RESULTS_BYTES
        )
        offset, nbytes = self.layout.extra_returns
        if nbytes and self.return_slots is not None:
            self.context.download(self.ctx_address + offset, self.ctx_device + offset, nbytes)

    def stage_arrays(self) -> tuple[list[tuple[int, int, int]], list[cuda_memory.DeviceTree]]:
        """Puts each ndarray argument's device address in the context: a ``ti.ndarray``'s
        own device copy (uploaded only if the host changed it), else a buffer of the
        launcher's that the NumPy array is copied to. Returns the (host, device, bytes)
        copies to make back and the ``ti.ndarray`` copies the kernel writes."""
        copies, resident = [], []
        for slot in self.arrays:
            host, *shape = struct.unpack_from(f"<Q{slot.ndim}q", self.ctx, slot.offset)
            nbytes = math.prod(shape) * slot.itemsize
            home = array_homes.lookup(host, nbytes) if nbytes else None
            if home is not None:
                copy = cuda_memory.attach_array(home, self.context)
                cuda_memory.before_launch([copy])
                if slot.written:
                    resident.append(copy)
                struct.pack_into("<Q", self.ctx, slot.offset, copy.address)
                continue
            if nbytes > slot.capacity:
                if slot.address:
                    self.allocations.remove(slot.address)
                    self.context.free(slot.address)
                slot.address, slot.capacity = self.alloc(nbytes, "an ndarray argument"), nbytes
            if nbytes:
                self.context.upload(slot.address, host, nbytes)
                if slot.written:
                    copies.append((host, slot.address, nbytes))
            struct.pack_into("<Q", self.ctx, slot.offset, slot.address)
        return copies, resident

    # -- the kernel profiler: CUDA events around each task ------------------------------------
    def profiled_launch(self, number: int) -> None:
        events = self.timing_events
        if events is None:  # made once: an event is a driver object, not free to create
            events = self.timing_events = [self.context.event() for _ in range(len(self.tasks) + 1)]
        started = time.monotonic_ns()
        self.timing = events
        try:
            self.run()
        finally:
            self.timing = None
        ran = self.tasks_run
        offsets = [0] + [
            round(self.context.elapsed_ms(events[0], events[k]) * 1e6) for k in range(1, ran + 1)
        ]
        about = self.about
        profiler.record_launch(
            LaunchEvent(
                about.kernel,
                about.specialisation,
                number,
                about.device,
                started,
                started + offsets[-1],
                self.task_events(started, offsets),
            )
        )

    def task_events(self, started: int, offsets: list[int]) -> tuple[TaskEvent, ...]:
        """One event per task; its helper kernels (snapshot, sparse list) count in it."""
        events, begin = [], None
        for k, task in enumerate(self.tasks[: len(offsets) - 1]):
            begin = offsets[k] if begin is None else begin
            if task.kind not in TASK_KINDS:
                continue
            index = len(events)
            info = self.about.tasks[index] if index < len(self.about.tasks) else None
            per_iteration = info.bytes_per_iteration if info is not None else None
            traffic = None
            if per_iteration is not None and task.iterations is not None:
                traffic = per_iteration * task.iterations
            events.append(
                TaskEvent(
                    index,
                    task.kind,
                    info.loop_config if info is not None else {},
                    started + begin,
                    started + offsets[k + 1],
                    task.iterations,
                    traffic,
                )
            )
            begin = None
        return tuple(events)


def written_trees(artifact, device_trees: list) -> list:
    """The device copies the kernel's tasks write (every one it uses when a launch entry
    does not say: another backend's table, or a store not traced to its tree)."""
    slots: set[int] = set()
    for launch in artifact.launches:
        written = launch.written_trees
        if written is None:
            return list(device_trees)
        slots.update(written)
    ids = {artifact.tree_slots[slot] for slot in slots}
    return [tree for tree in device_trees if tree.tree_id in ids]


def _free_all(context, addresses: list[int]) -> None:
    for address in addresses:
        context.free(address)
