"""What the GPU is, for the GPU report: name, compute capability, driver, memory bandwidth.

The peak DRAM bandwidth comes from the device's own attributes: memory clock (kHz) x bus
width (bits) / 8 x 2 (double data rate: HBM and GDDR move data on both clock edges), the
figure NVIDIA's ``deviceQuery`` and bandwidth samples use. ``nvidia-smi``, when present,
adds the kernel driver's release (the driver API only gives the CUDA version it supports).

Without a device, :func:`describe` returns the fake device's description: the SIMT
emulator standing in for a GPU, with no bandwidth (no figure is a GPU figure there).

    >>> info = describe(fake=True)
    >>> info.fake, info.peak_gbps
    (True, None)
    >>> lines = DeviceInfo(False, "X", "sm_90", memory_clock_khz=2619000,
    ...                    bus_width_bits=5120, peak_gbps=3352.3).lines()
    >>> print(lines[0]); print(lines[-1])
    - device: X (sm_90)
    - memory bandwidth (attributes): 3352 GB/s = 2 x 2619 MHz x 5120 bit / 8
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

FAKE_NAME = "fake device (SIMT emulator): no GPU figures"


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """The device the figures come from (``fake``: the emulator, no GPU)."""

    fake: bool
    name: str
    compute_capability: str = ""
    multiprocessors: int = 0
    total_memory: int = 0  # bytes
    cuda_version: str = ""  # the CUDA version the driver supports, "12.4"
    driver_release: str = ""  # nvidia-smi's driver_version, "550.54.15"
    memory_clock_khz: int = 0
    bus_width_bits: int = 0
    peak_gbps: float | None = None  # 1e9 bytes per second
    reason: str = ""  # why there is no GPU (fake) or what went wrong reading it

    def lines(self) -> list[str]:
        """Markdown bullet lines for the report's header."""
        cc = f" ({self.compute_capability})" if self.compute_capability else ""
        out = [f"- device: {self.name}{cc}"]
        if self.fake:
            out.append(f"- why: {self.reason}")
            return out
        gib = self.total_memory / 2**30
        out.append(f"- multiprocessors: {self.multiprocessors}, memory {gib:.1f} GiB")
        driver = self.driver_release or "unknown release (no nvidia-smi)"
        out.append(f"- driver: {driver}, CUDA {self.cuda_version or '?'} (driver API)")
        if self.peak_gbps and self.memory_clock_khz:
            out.append(
                f"- memory bandwidth (attributes): {self.peak_gbps:.0f} GB/s = 2 x "
                f"{self.memory_clock_khz / 1e3:.0f} MHz x {self.bus_width_bits} bit / 8"
            )
        elif self.peak_gbps:
            out.append(f"- memory bandwidth: {self.peak_gbps:.0f} GB/s, {self.reason}")
        else:
            out.append(f"- memory bandwidth: unknown ({self.reason or 'attributes not read'})")
        return out


def describe(fake: bool = False) -> DeviceInfo:
    """The CUDA device 0 of this machine, or the fake device when ``fake`` or when there
    is none (its ``reason`` then says why, in the driver's words)."""
    from ti_notebook.runtime.cuda.driver import cuda_status

    status = cuda_status()
    if fake or not status.available:
        why = "asked for the fake device" if status.available else status.reason
        return DeviceInfo(True, FAKE_NAME, reason=why)
    clock, width, problem = _memory_attributes()
    peak = 2 * clock * 1e3 * width / 8 / 1e9 if clock and width else None
    if peak is None and (published := published_gbps(status.name)) is not None:
        peak, problem = published, f"attributes not read ({problem}): published figure"
    version = status.driver_version
    return DeviceInfo(
        False,
        status.name,
        status.compute_capability,
        status.multiprocessors,
        status.total_memory,
        f"{version // 1000}.{version % 1000 // 10}",
        _driver_release(),
        clock,
        width,
        peak,
        problem,
    )


# Peak DRAM bandwidth NVIDIA publishes (GB/s), by name, most specific first: used only
# when the device's attributes cannot be read (a driver that no longer reports them).
PUBLISHED_GBPS = (
    ("H100 PCIe", 2039.0),
    ("H100 NVL", 3938.0),
    ("H100", 3352.0),
    ("H200", 4800.0),
    ("A100-SXM4-80GB", 2039.0),
    ("A100 80GB PCIe", 1935.0),
    ("A100", 1555.0),
)


def published_gbps(name: str) -> float | None:
    """NVIDIA's published bandwidth for a device named ``name``, or None.

    >>> published_gbps("NVIDIA H100 80GB HBM3"), published_gbps("NVIDIA H100 PCIe")
    (3352.0, 2039.0)
    """
    for key, gbps in PUBLISHED_GBPS:
        if key in name:
            return gbps
    return None


def _memory_attributes() -> tuple[int, int, str]:
    """(memory clock kHz, bus width bits, problem) of device 0; zeros and why on failure."""
    try:
        from cuda.bindings import driver

        attribute = driver.CUdevice_attribute
        result, device = driver.cuDeviceGet(0)
        values = []
        for which in ("MEMORY_CLOCK_RATE", "GLOBAL_MEMORY_BUS_WIDTH"):
            code = getattr(attribute, f"CU_DEVICE_ATTRIBUTE_{which}")
            result, value = driver.cuDeviceGetAttribute(code, device)
            if int(result) != 0:
                return 0, 0, f"reading {which}: CUresult {int(result)}"
            values.append(int(value))
        return values[0], values[1], ""
    except Exception as error:  # an attribute gone from a newer cuda-python, no driver
        return 0, 0, f"{type(error).__name__}: {error}"


def _driver_release() -> str:
    """``nvidia-smi``'s driver version, or "" (no nvidia-smi, or it failed)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    try:
        done = subprocess.run(
            [smi, "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else ""
