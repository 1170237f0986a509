"""The NVIDIA devices the CUDA analysis knows, as data: one :class:`DeviceLimits` per arch.

The numbers are what ``cudaGetDeviceProperties`` reports for one representative board of
each compute capability (CUDA C++ Programming Guide, "Compute Capabilities" table) plus
the per-SM block limit and the shared-memory carveout sizes that ``cuda_occupancy.h``
states for that capability. Only ``sm_count`` depends on the board; everything else is
the same for every GPU of the arch, so ``dataclasses.replace(limits, sm_count=...)``
describes another board.

    >>> h100 = device_limits("sm_90")
    >>> h100.name, h100.sm_count, h100.max_warps_per_sm, h100.shared_bytes_per_sm // 1024
    ('H100 SXM', 132, 64, 228)
    >>> device_limits(86).max_threads_per_sm
    1536
"""

from __future__ import annotations

import dataclasses

from ti_notebook.errors import TiValueError

__all__ = [
    "BANK_BYTES",
    "CACHE_LINE_BYTES",
    "DEVICES",
    "SECTOR_BYTES",
    "SHARED_BANKS",
    "WARP_SIZE",
    "PUBLISHED_PEAKS",
    "DeviceLimits",
    "PublishedPeaks",
    "arch_name",
    "device_limits",
    "published_peaks",
]

WARP_SIZE = 32
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
        max_threads_per_block=1024,
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


@dataclasses.dataclass(frozen=True)
class PublishedPeaks:
    """A board's published memory bandwidth and peak FLOP/s (GB/s = 1e9 B/s; GFLOP/s).

    These are the vendor's datasheet figures, not measurements: a roofline drawn with them
    shows what the board is sold as reaching. ``f64_gflops`` is None where the datasheet
    gives no FP64 figure.
    """

    name: str
    memory: str  # "HBM3", "GDDR6X", ...
    memory_gbps: float
    f32_gflops: float
    f64_gflops: float | None


# Published specifications (non-tensor-core FP32/FP64 rates, boost clocks):
# - H100 SXM5 80GB and H100 PCIe 80GB: NVIDIA H100 Tensor Core GPU datasheet
#   (3.35 TB/s HBM3, 67 / 34 TFLOPS; 2.0 TB/s HBM2e, 51 / 26 TFLOPS);
# - A100 SXM4 80GB: NVIDIA A100 datasheet (2,039 GB/s HBM2e, 19.5 / 9.7 TFLOPS);
# - GeForce RTX 3090: NVIDIA Ampere GA102 whitepaper (936 GB/s GDDR6X, 35.6 TFLOPS
#   FP32, FP64 at 1/64 of it: 0.556 TFLOPS);
# - L4: NVIDIA L4 datasheet (300 GB/s GDDR6, 30.3 TFLOPS FP32; no FP64 figure given).
PUBLISHED_PEAKS: dict[str, PublishedPeaks] = {
    p.name: p
    for p in (
        PublishedPeaks("H100 SXM", "HBM3", 3350.0, 67_000.0, 34_000.0),
        PublishedPeaks("H100 PCIe", "HBM2e", 2000.0, 51_000.0, 26_000.0),
        PublishedPeaks("A100", "HBM2e", 2039.0, 19_500.0, 9_700.0),
        PublishedPeaks("GeForce RTX 3090", "GDDR6X", 936.0, 35_600.0, 556.0),
        PublishedPeaks("L4", "GDDR6", 300.0, 30_300.0, None),
    )
}


def published_peaks(device: str | int | tuple[int, int] | DeviceLimits = "sm_90") -> PublishedPeaks:
    """The published figures of a board's name (``"H100 PCIe"``, also a CUDA device name
    such as ``"NVIDIA H100 PCIe"``) or of an arch's representative board.

        >>> published_peaks("sm_90").memory_gbps, published_peaks("NVIDIA H100 PCIe").name
        (3350.0, 'H100 PCIe')
    """
    if isinstance(device, str):
        wanted = device.lower().removeprefix("nvidia ").strip()
        for name, peaks in PUBLISHED_PEAKS.items():
            if wanted.startswith(name.lower()):
                return peaks
    name = device_limits(device).name
    return PUBLISHED_PEAKS[name]
