"""The launch ABI: what generated code and the launchers that run it agree on.

Code generators (``codegen/``) write code against it and launchers (``runtime/``) fill
and read memory by it, so it lives below both and neither imports the other:

- the **launch context**, one buffer per compiled kernel whose address is the code's
  only parameter: ``CTX_ROOTS`` (the table of SNode tree bases, by the artifact's slots),
  ``CTX_TEMPS`` (values tasks pass each other), ``CTX_ERROR`` (a failed check's code and
  its ``ERROR_ARG_SLOTS`` arguments), ``CTX_RETURN``, ``CTX_STREAM`` (the kernel's random
  stream), ``CTX_INTERRUPT``, ``CTX_PROFILE``, ``CTX_LAUNCH`` (the launch number) and the
  arguments from ``CTX_ARGS`` on;
- the kernel profiler's **event buffer** (:class:`ProfileLayout`), which CPU code writes
  and the launcher decodes;
- the **launch table** of a target whose tasks are kernels of their own (CUDA): one
  :class:`Launch` per kernel, launched in order on one stream.

    >>> CTX_ARGS - CTX_LAUNCH, CTX_ERROR_ARGS + 8 * ERROR_ARG_SLOTS == CTX_RETURN
    (8, True)
    >>> ProfileLayout(tasks=2, threads=4).words
    42
    >>> Launch("k_task0", "range_for", block_dim=128, iterations=1000, grid_dim=8).is_task
    True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

# -- the launch context (bytes from its start) -------------------------------------------
CTX_ROOTS = 0
CTX_TEMPS = 8
CTX_ERROR = 16
CTX_ERROR_ARGS = 24  # ERROR_ARG_SLOTS x i64
ERROR_ARG_SLOTS = 8
CTX_RETURN = 88
CTX_STREAM = 96  # the kernel's random stream, set once (runtime/random_streams.py)
CTX_INTERRUPT = 104  # the pool's interrupt state: [interrupted, launch running] (i32 each)
CTX_PROFILE = 112  # the profiler's event buffer (ProfileLayout), or null
CTX_LAUNCH = 120  # the launch number, packed with the arguments at every launch
CTX_ARGS = 128  # right after CTX_LAUNCH: one struct packs both (runtime/launch.py)


# -- the kernel profiler's event buffer (i64 words) --------------------------------------
LAUNCH_WORDS = 2  # launch start, end
TASK_WORDS = 4  # start, end, counted iterations, whether it counts them
THREAD_WORDS = 4  # first start, last end, busy, iterations


@dataclasses.dataclass(frozen=True)
class ProfileLayout:
    """Word offsets in one kernel's event buffer (``tasks`` tasks, ``threads`` per task):

    ``[launch start, launch end]``, then per task ``[start, end, counted iterations,
    1 if it counts them]`` followed by, per pool thread, ``[first chunk start, last chunk
    end, busy ns, iterations]`` (``codegen/cpu/profiling.py`` writes them).

        >>> layout = ProfileLayout(tasks=2, threads=4)
        >>> layout.task(1), layout.thread(1, 3)
        (22, 38)
    """

    tasks: int
    threads: int

    @property
    def task_stride(self) -> int:
        return TASK_WORDS + THREAD_WORDS * self.threads

    @property
    def words(self) -> int:
        return LAUNCH_WORDS + self.tasks * self.task_stride

    def task(self, k: int) -> int:
        """First word of task ``k``: its start."""
        return LAUNCH_WORDS + k * self.task_stride

    def thread(self, k: int, t: int) -> int:
        """First word of thread ``t``'s span in task ``k``."""
        return self.task(k) + TASK_WORDS + THREAD_WORDS * t


# -- the launch table --------------------------------------------------------------------
TASK_KINDS = ("serial", "range_for", "struct_for")
# kernels that prepare the task after them: a copy of a sparse tree's activity bits, and
# the clearing and filling of a list of active blocks (codegen/nvptx/sparse_lists.py)
HELPER_KINDS = ("snapshot", "list_clear", "list")


@dataclasses.dataclass(frozen=True)
class Launch:
    """One kernel of a launch table: what to launch and with what shape.

    ``kernel`` is the symbol, ``kind`` one of :data:`TASK_KINDS` or :data:`HELPER_KINDS`;
    ``block_dim`` the threads per block; ``iterations`` the loop's length when known
    while compiling (else None); ``grid_dim`` the blocks on the device compiled for (a
    launcher may size the grid for its own device); ``shared_bytes`` the dynamic shared
    memory (past 48 KB the launcher opts the kernel in); ``block_local``: it stages
    block-local storage, a CUDA block per block; ``block_list``: it walks a list of
    active blocks, one CUDA block each; ``warp_reduction``: its reductions shuffle within
    warps, so ``block_dim`` stays a multiple of 32; ``checks_errors``: a launcher reads
    the error slot after it. A target that knows more adds ``written_trees`` (the tree
    slots the kernel stores into; None: unknown, assume all) and ``iterations_exact``
    (whether ``iterations`` is what runs: a sparse struct-for visits fewer).

        >>> entry = Launch("k_task0", "struct_for", 128, 1000, 8, checks_errors=True)
        >>> Launch.from_dict(entry.as_dict()) == entry, entry.as_dict()["grid_dim"]
        (True, 8)
    """

    kernel: str
    kind: str
    block_dim: int
    iterations: int | None = None
    grid_dim: int = 1
    shared_bytes: int = 0
    block_local: bool = False
    block_list: bool = False
    warp_reduction: bool = False
    checks_errors: bool = False
    written_trees: tuple[int, ...] | None = None
    iterations_exact: bool | None = None

    @property
    def is_task(self) -> bool:
        """Whether it runs a task of the kernel (not a helper that prepares one)."""
        return self.kind in TASK_KINDS

    def as_dict(self) -> dict:
        """Plain values (JSON, the compile report); the two fields a target may add are
        left out where it did not state them."""
        out = dataclasses.asdict(self)
        if self.iterations_exact is None:
            del out["written_trees"], out["iterations_exact"]
        elif self.written_trees is not None:
            out["written_trees"] = list(self.written_trees)
        return out

    @classmethod
    def from_dict(cls, values: Mapping) -> Launch:
        """The record :meth:`as_dict` wrote (missing flags take their defaults)."""
        known = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in values.items() if k in known}
        if fields.get("written_trees") is not None:
            fields["written_trees"] = tuple(fields["written_trees"])
        return cls(**fields)


def grid_dim(launch: Launch, device, listed: int | None = None) -> int:
    """Blocks to launch ``launch`` with on ``device`` (an ``ir.devices.CudaDevice``), the
    one formula of the compiler's launch table and of every launcher: the saturating grid
    (:attr:`~ti_notebook.ir.devices.CudaDevice.reduction_grid` for a task that reduces
    across warps), at most a block per ``block_dim`` iterations when the count is known
    (a block per iteration for block-local storage; per listed block, at most
    ``listed``, for a sparse list); 1 for serial tasks and helpers of unknown length.
    Every loop is grid-strided, so the grid changes speed only, never results.

        >>> from ti_notebook.ir.devices import CudaDevice
        >>> h100 = CudaDevice.for_capability("sm_90")
        >>> grid_dim(Launch("k", "range_for", 128, 1000), h100)
        8
        >>> grid_dim(Launch("k", "range_for", 128, None), h100) == h100.saturating_grid
        True
    """
    if launch.kind == "serial" or (not launch.is_task and launch.iterations is None):
        return 1
    grid = device.reduction_grid if launch.warp_reduction else device.saturating_grid
    if launch.block_list and listed is not None:
        return max(1, min(grid, listed))
    if launch.iterations is not None:
        per_block = 1 if launch.block_local else launch.block_dim
        grid = max(1, min(grid, -(-launch.iterations // per_block)))
    return grid
