"""Launching a CUDA-compiled kernel on the SIMT emulator (``ti.init(arch=ti.cuda,
cuda_sim=True)``).

The emulator runs the very NVPTX-form LLVM IR the GPU would get (after NVPTX O3), with
one OS thread per CUDA thread of a block, real barriers, warp shuffles and shared memory
(``runtime/simt/``). Launching follows the launch table (``ir/launch_abi.py``): the
tasks run in order, one launch each, with their block and grid sizes; the launch context
is the CPU launcher's (``runtime/launch.py``): the emulator's threads share this
process's memory, so fields, ndarrays and the context stay where they are, and only the
temporaries buffer (which the CPU keeps on its stack) is allocated here.

With the kernel profiler on, each task's time is the host's clock around its launches
(its helper kernels' included): a :class:`~ti_notebook.runtime.profiler_events.TaskEvent`
per task, with no per-thread spans, and iterations (and bytes) for range-fors only: a
struct-for may be sparse, and nothing here counts the active cells it visits. These are
not GPU timings: a block's threads are OS threads.

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
import re
import struct
import time
from typing import NamedTuple

from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir.launch_abi import HELPER_KINDS, Launch
from ti_notebook.runtime import profiler
from ti_notebook.runtime.launch import ArgLayout, CompiledKernel
from ti_notebook.runtime.profiler_events import KernelProfile, LaunchEvent, TaskEvent
from ti_notebook.runtime.simt import SimtKernel, SimtModule

DEVICE_NAME = "cuda (SIMT emulator)"
# <prefix>_task<k>, and its helper kernels <prefix>_task<k>_snapshot, _list_clear, _list
_TASK_OF = re.compile(r"_task(\d+)(_[a-z_]+)?$")


class SimLaunch(NamedTuple):
    """One entry of the launch table, ready to run."""

    kernel: SimtKernel
    grid: int
    block: int
    shared_bytes: int
    checks_errors: bool
    task: int  # the task it runs, or prepares (a helper)
    kind: str
    iterations: int | None


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
        struct.pack_into("<q", self.ctx, abi.CTX_TEMPS, ctypes.addressof(self.temps))
        self.tasks = [_sim_launch(module, launch) for launch in artifact.launches]

    def run(self, times: list | None = None) -> None:
        """Launches every kernel of the table in order; with ``times``, appends each
        launch's (entry, start_ns, end_ns) to it."""
        params = [self.ctx_address]
        for launch in self.tasks:
            started = time.monotonic_ns() if times is not None else 0
            launch.kernel.launch(
                grid=launch.grid,
                block=launch.block,
                params=params,
                shared_bytes=launch.shared_bytes,
                name=self.name,
            )
            if times is not None:
                times.append((launch, started, time.monotonic_ns()))
            if launch.checks_errors and struct.unpack_from("<q", self.ctx, abi.CTX_ERROR)[0]:
                return  # a failed check stops the kernel, as the CPU's entry does

    def profiled_launch(self, number: int) -> None:
        """Runs the launch table and records a launch event with a task event per task
        (its helper kernels' time included)."""
        times: list = []
        started = time.monotonic_ns()
        self.run(times)
        ended = time.monotonic_ns()
        about = self.about
        spans: dict[int, list] = {}
        for launch, start, end in times:
            spans.setdefault(launch.task, []).append((launch, start, end))
        tasks = []
        for index in sorted(spans):
            runs = spans[index]
            info = about.tasks[index] if index < len(about.tasks) else None
            own = [launch for launch, _, _ in runs if launch.kind not in HELPER_KINDS]
            kind = info.kind if info is not None else (own[0].kind if own else "serial")
            iterations = own[0].iterations if own and kind == "range_for" else None
            per = info.bytes_per_iteration if info is not None else None
            traffic = per * iterations if per is not None and iterations is not None else None
            config = info.loop_config if info is not None else {}
            first, last = runs[0][1], runs[-1][2]
            tasks.append(TaskEvent(index, kind, config, first, last, iterations, traffic))
        event = LaunchEvent(
            about.kernel, about.specialisation, number, about.device, started, ended, tuple(tasks)
        )
        profiler.record_launch(event)


def _sim_launch(module: SimtModule, launch: Launch) -> SimLaunch:
    match = _TASK_OF.search(launch.kernel)
    return SimLaunch(
        module.kernel(launch.kernel),
        launch.grid_dim,
        launch.block_dim,
        launch.shared_bytes,
        launch.checks_errors,
        int(match.group(1)) if match else 0,
        launch.kind,
        launch.iterations,
    )
