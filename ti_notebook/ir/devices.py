"""The NVIDIA devices the project knows, as data: one :class:`DeviceLimits` per arch.

This is the one table of device facts. The CUDA analysis (occupancy, access patterns),
code generation (grids, the shared-memory limit), the launchers and the SIMT emulator's
fake device all read it; a real GPU's figures come from its driver
(``runtime/cuda/driver.py``) and replace the table's in a copy of its arch's row.

The numbers are what ``cudaGetDeviceProperties`` reports for one representative board of
each compute capability (CUDA C++ Programming Guide, "Compute Capabilities" table) plus
the per-SM block limit and the shared-memory carveout sizes that ``cuda_occupancy.h``
states for that capability. Only ``sm_count`` depends on the board; everything else is
the same for every GPU of the arch, so ``dataclasses.replace(limits, sm_count=...)``
describes another board.

    >>> h100 = device_limits("sm_90")
    >>> h100.name, h100.sm_count, h100.max_warps_per_sm, h100.shared_bytes_per_sm // 1024
    ('H100 SXM', 132, 64, 228)
    >>> device_limits(86).max_threads_per_sm, CudaDevice.of(DEVICES["sm_80"]).saturating_grid
    (1536, 6912)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.errors import TiValueError

__all__ = [
    "BANK_BYTES",
    "CACHE_LINE_BYTES",
    "DEFAULT_ARCH",
    "DEVICES",
    "MAX_THREADS_PER_BLOCK",
    "SECTOR_BYTES",
    "SHARED_BANKS",
    "WARP_SIZE",
    "CudaDevice",
    "DeviceLimits",
    "arch_name",
    "device_limits",
]

WARP_SIZE = 32
MAX_THREADS_PER_BLOCK = 1024  # every arch from sm_20 on
# The global-memory and shared-memory geometry, the same on every arch from sm_50 on.
SECTOR_BYTES = 32  # the unit DRAM and L2 move
CACHE_LINE_BYTES = 128  # four sectors: one L1 line / tag
SHARED_BANKS = 32
BANK_BYTES = 4

_KB = 1024


@dataclasses.dataclass(frozen=True)
class DeviceLimits:
    """Per-block and per-SM limits of one compute capability (one board for ``sm_count``).

    Shared memory: a block may use ``shared_bytes_per_block`` (48 KB) by default and up
    to ``shared_bytes_per_block_optin`` once the kernel opts in (``cuFuncSetAttribute``);
    the driver reserves ``reserved_shared_bytes_per_block`` more for every block. The SM
    splits its unified L1/shared memory into one of ``shared_configs_kb`` (the carveout).
    """

    arch: str
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    max_threads_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    registers_per_block: int
    max_registers_per_thread: int
    shared_bytes_per_sm: int
    shared_bytes_per_block: int
    shared_bytes_per_block_optin: int
    reserved_shared_bytes_per_block: int
    shared_configs_kb: tuple[int, ...]
    warp_size: int = WARP_SIZE
    # the same on every arch from sm_30 on: threads per block on each axis, blocks per grid
    max_block_dims: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_dims: tuple[int, int, int] = (2**31 - 1, 65535, 65535)

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @property
    def max_resident_threads(self) -> int:
        """Threads the whole device holds at once: SMs x threads per SM."""
        return self.sm_count * self.max_threads_per_sm


def _limits(
    arch: str,
    name: str,
    sms: int,
    threads_per_sm: int,
    blocks_per_sm: int,
    shared_kb_per_sm: int,
    configs: tuple[int, ...],
) -> DeviceLimits:
    major, minor = int(arch[3:-1]), int(arch[-1])
    return DeviceLimits(
        arch=arch,
        name=name,
        compute_capability=(major, minor),
        sm_count=sms,
        max_threads_per_block=MAX_THREADS_PER_BLOCK,
        max_threads_per_sm=threads_per_sm,
        max_blocks_per_sm=blocks_per_sm,
        registers_per_sm=64 * _KB,
        registers_per_block=64 * _KB,
        max_registers_per_thread=255,
        shared_bytes_per_sm=shared_kb_per_sm * _KB,
        shared_bytes_per_block=48 * _KB,
        # the opt-in maximum is the SM's shared memory less the 1 KB the driver reserves
        shared_bytes_per_block_optin=(shared_kb_per_sm - 1) * _KB,
        reserved_shared_bytes_per_block=1 * _KB,
        shared_configs_kb=configs,
    )


_AMPERE_A100_CONFIGS = (0, 8, 16, 32, 64, 100, 132, 164)
_AMPERE_GA10X_CONFIGS = (0, 8, 16, 32, 64, 100)
_HOPPER_CONFIGS = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)

DEVICES: dict[str, DeviceLimits] = {
    d.arch: d
    for d in (
        _limits("sm_80", "A100", 108, 2048, 32, 164, _AMPERE_A100_CONFIGS),
        _limits("sm_86", "GeForce RTX 3090", 82, 1536, 16, 100, _AMPERE_GA10X_CONFIGS),
        _limits("sm_89", "L4", 58, 1536, 24, 100, _AMPERE_GA10X_CONFIGS),
        _limits("sm_90", "H100 SXM", 132, 2048, 32, 228, _HOPPER_CONFIGS),
    )
}


def arch_name(arch: str | int | tuple[int, int]) -> str:
    """``"sm_90"`` from ``"sm_90"``, ``"SM90"``, ``90``, ``"9.0"`` or ``(9, 0)``.

    >>> arch_name((8, 6)), arch_name("8.9"), arch_name(80)
    ('sm_86', 'sm_89', 'sm_80')
    """
    if isinstance(arch, tuple):
        text = f"{arch[0]}{arch[1]}"
    else:
        text = str(arch).strip().lower().removeprefix("sm_").removeprefix("sm").replace(".", "")
    if not text.isdigit() or len(text) < 2:
        raise TiValueError(
            f"{arch!r} is not a compute capability",
            hint=f"use one of {', '.join(DEVICES)} (or 90, '9.0', (9, 0))",
        )
    return f"sm_{text}"


def device_limits(arch: str | int | tuple[int, int] | DeviceLimits = "sm_90") -> DeviceLimits:
    """The :class:`DeviceLimits` of ``arch`` (a DeviceLimits is returned as it is)."""
    if isinstance(arch, DeviceLimits):
        return arch
    name = arch_name(arch)
    if name not in DEVICES:
        raise TiValueError(
            f"no device table for {name}",
            hint=f"the occupancy analysis knows {', '.join(DEVICES)}; pick the nearest",
        )
    return DEVICES[name]


DEFAULT_ARCH = "sm_90"  # what code is made for when nothing says otherwise (an H100)
_DEFAULT = DEVICES[DEFAULT_ARCH]


@dataclasses.dataclass(frozen=True)
class CudaDevice:
    """What code generation and a launcher need of a CUDA device: a view of a
    :class:`DeviceLimits` row (defaults: :data:`DEFAULT_ARCH`'s), or of the figures a
    driver reports for the GPU present.

        >>> CudaDevice.for_capability("sm_80").multiprocessors, CudaDevice().threads
        (108, 270336)
    """

    compute_capability: str = DEFAULT_ARCH
    multiprocessors: int = _DEFAULT.sm_count
    threads_per_multiprocessor: int = _DEFAULT.max_threads_per_sm
    blocks_per_multiprocessor: int = _DEFAULT.max_blocks_per_sm
    shared_memory_per_block: int = _DEFAULT.shared_bytes_per_block  # without the opt-in
    shared_memory_opt_in: int = _DEFAULT.shared_bytes_per_block_optin  # dynamic, opted in

    @classmethod
    def of(cls, limits: DeviceLimits, compute_capability: str | None = None) -> CudaDevice:
        """The view of one row of the table (``compute_capability``: the target named)."""
        return cls(
            compute_capability or limits.arch,
            limits.sm_count,
            limits.max_threads_per_sm,
            limits.max_blocks_per_sm,
            limits.shared_bytes_per_block,
            limits.shared_bytes_per_block_optin,
        )

    @classmethod
    def for_capability(cls, compute_capability: str) -> CudaDevice:
        """The usual device of ``compute_capability`` (:data:`DEFAULT_ARCH`'s figures
        when the table has no row for it)."""
        return cls.of(DEVICES.get(compute_capability, _DEFAULT), compute_capability)

    @property
    def threads(self) -> int:
        """Threads resident on the whole device at once."""
        return self.multiprocessors * self.threads_per_multiprocessor

    @property
    def saturating_grid(self) -> int:
        """Blocks that fill the device twice over: the grid of a loop whose length is
        not known while compiling (Taichi's choice)."""
        return self.multiprocessors * self.blocks_per_multiprocessor * 2

    @property
    def reduction_grid(self) -> int:
        """The grid of a loop with a thread-local reduction: a quarter of
        :attr:`saturating_grid`, so each thread accumulates more iterations and fewer
        blocks end in an atomic. Measured on an H100 (8M f32 sum, 128-thread blocks):
        1,331 GB/s with the saturating grid, 1,911 with this one (saxpy unchanged)."""
        return max(1, self.saturating_grid // 4)
