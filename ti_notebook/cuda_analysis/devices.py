"""The NVIDIA devices the CUDA analysis knows: the device table, and published peaks.

The limits of each arch are the project's one device table, :mod:`ti_notebook.ir.devices`
(code generation and the launchers read it too); this module is the analysis's face on
it, plus each board's published memory bandwidth and peak FLOP/s for the roofline.

    >>> h100 = device_limits("sm_90")
    >>> h100.name, h100.sm_count, h100.max_warps_per_sm, h100.shared_bytes_per_sm // 1024
    ('H100 SXM', 132, 64, 228)
    >>> device_limits(86).max_threads_per_sm
    1536
"""

from __future__ import annotations

import dataclasses

from ti_notebook.ir.devices import (
    BANK_BYTES,
    CACHE_LINE_BYTES,
    DEVICES,
    SECTOR_BYTES,
    SHARED_BANKS,
    WARP_SIZE,
    DeviceLimits,
    arch_name,
    device_limits,
)

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
