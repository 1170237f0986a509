"""What the occupancy view draws, as data: theoretical occupancy against block_dim.

The target is what the kernel uses per thread and per block, from one of three places:

- **resources**: ``registers=`` (per thread), ``shared_bytes=`` (static shared memory per
  block), ``barriers=``, given directly;
- **PTX text**: ``ptxas -v`` reports them for each entry function (one curve each), for
  the arch chosen; the archs offered are the PTX's ``.target`` and newer;
- **a kernel**: its PTX (``ti_notebook.cuda_analysis.ptx_of``: compiled for CUDA if the
  session is not).

Every point is :func:`ti_notebook.cuda_analysis.theoretical_occupancy` for one block_dim; nothing
is recomputed here (DESIGN.md sections 4, 6).

    >>> data = occupancy_data(registers=64, arch="sm_90")
    >>> [round(p.occupancy, 2) for p in data.series[0].points]
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    >>> data.series[0].at(128).limiting
    'registers'
"""

from __future__ import annotations

import dataclasses

from ti_notebook.cuda_analysis import (
    DEVICES,
    DeviceLimits,
    Occupancy,
    arch_name,
    device_limits,
    ptx_of,
    ptx_target,
    ptxas_report,
    theoretical_occupancy,
)
from ti_notebook.errors import TiTypeError, TiValueError

DEFAULT_BLOCK_DIMS = (32, 64, 128, 256, 512, 1024)
DEFAULT_BLOCK_DIM = 128  # the CUDA backend's block size unless loop_config sets one


@dataclasses.dataclass(frozen=True)
class KernelSeries:
    """One kernel's resources and its occupancy at each block_dim of the view."""

    name: str
    registers: int
    shared_bytes: int
    dynamic_shared_bytes: int
    barriers: int
    spill_bytes: int | None  # stores + loads ptxas reported; None for given resources
    points: tuple[Occupancy, ...]

    def at(self, block_dim: int) -> Occupancy:
        """The point of ``block_dim``."""
        for point in self.points:
            if point.block_size == block_dim:
                return point
        raise TiValueError(
            f"block_dim {block_dim} is not drawn",
            hint=f"choose one of {[p.block_size for p in self.points]}",
        )

    def resources_text(self) -> str:
        shared = f"{self.shared_bytes} B shared"
        if self.dynamic_shared_bytes:
            shared += f" + {self.dynamic_shared_bytes} B dynamic"
        barriers = f"{self.barriers} barrier{'s' * (self.barriers != 1)}"
        text = f"{self.name}: {self.registers} registers, {shared}, {barriers}"
        if self.spill_bytes:
            text += f", {self.spill_bytes} B spilled"
        return text


@dataclasses.dataclass(frozen=True)
class OccupancyData:
    """The whole picture: the arch, the block_dims, the current one, one series per kernel.

    ``archs`` are the archs this target can be shown for (the view's dropdown).
    """

    arch: str
    device: DeviceLimits
    source: str  # "resources", "ptx" or "kernel"
    block_dims: tuple[int, ...]
    block_dim: int
    series: tuple[KernelSeries, ...]
    archs: tuple[str, ...]

    def current(self) -> list[Occupancy]:
        """Each series' point at the current block_dim."""
        return [s.at(self.block_dim) for s in self.series]

    def describe(self) -> str:
        """One line per kernel: the occupancy at the current block_dim, and why."""
        return "\n".join(point.explain() for point in self.current())


def occupancy_data(
    target=None,
    arch: str | int = "sm_90",
    block_dims=DEFAULT_BLOCK_DIMS,
    *,
    block_dim: int | None = None,
    registers: int | None = None,
    shared_bytes: int = 0,
    dynamic_shared_bytes: int = 0,
    barriers: int = 1,
    name: str = "kernel",
    args: tuple = (),
) -> OccupancyData:
    """The :class:`OccupancyData` of ``target`` (None with ``registers=``, PTX text, or a
    kernel; ``args`` select a kernel's specialisation) on ``arch``.

    ``block_dim`` is the one marked (default 128, or the first of ``block_dims``);
    ``dynamic_shared_bytes`` is added to every kernel's static shared memory. For given
    resources, ``barriers`` defaults to 1, as the CUDA runtime assumes; for PTX, ptxas's
    count is used.

        >>> data = occupancy_data(registers=32, shared_bytes=24_000, arch="sm_80")
        >>> [(p.block_size, p.active_blocks, p.limiting) for p in data.series[0].points][3:]
        [(256, 6, 'shared memory'), (512, 4, 'warps'), (1024, 2, 'warps')]
    """
    dims = _block_dims(block_dims, block_dim)
    current = block_dim or (DEFAULT_BLOCK_DIM if DEFAULT_BLOCK_DIM in dims else dims[0])
    arch = arch_name(arch)
    if target is None:
        if registers is None:
            raise TiTypeError(
                "occupancy() needs a kernel, PTX text, or the kernel's resources",
                hint="e.g. occupancy(registers=32, shared_bytes=4096)",
            )
        device = device_limits(arch)
        usage = [(name, registers, shared_bytes, barriers, None)]
        source, archs = "resources", tuple(DEVICES)
    else:
        if registers is not None:
            raise TiTypeError(
                "registers= describes a kernel by its resources; here a kernel or PTX is given",
                hint="pass either the target or registers=..., not both",
            )
        source = "ptx" if isinstance(target, str) else "kernel"
        ptx = target if isinstance(target, str) else ptx_of(target, *args)
        archs = _archs_for(ptx)
        if arch not in archs:
            raise TiValueError(
                f"this PTX targets {ptx_target(ptx)}, so it cannot run on {arch}",
                hint=f"choose one of {', '.join(archs)}",
            )
        device = device_limits(arch)
        report = ptxas_report(ptx, arch)
        if not report.kernels:
            raise TiValueError("the PTX has no entry function", hint="pass a kernel's PTX")
        usage = [
            (
                k.name,
                k.registers,
                k.shared_bytes,
                k.barriers,
                k.spill_store_bytes + k.spill_load_bytes,
            )
            for k in report.kernels.values()
        ]
    series = tuple(
        KernelSeries(
            name=kernel,
            registers=regs,
            shared_bytes=shared,
            dynamic_shared_bytes=dynamic_shared_bytes,
            barriers=bars,
            spill_bytes=spills,
            points=tuple(
                theoretical_occupancy(
                    device,
                    block_size=dim,
                    registers=regs,
                    shared_bytes=shared,
                    dynamic_shared_bytes=dynamic_shared_bytes,
                    barriers=bars,
                )
                for dim in dims
            ),
        )
        for kernel, regs, shared, bars, spills in usage
    )
    return OccupancyData(arch, device, source, dims, current, series, archs)


def _block_dims(block_dims, block_dim) -> tuple[int, ...]:
    dims = sorted({int(d) for d in block_dims} | ({int(block_dim)} if block_dim else set()))
    if not dims or dims[0] < 1 or dims[-1] > 1024:
        raise TiValueError(
            f"block_dims {list(block_dims)} must be 1 .. 1024 threads",
            hint="e.g. block_dims=(32, 64, 128, 256, 512, 1024)",
        )
    return tuple(dims)


def _archs_for(ptx: str) -> tuple[str, ...]:
    """The known archs that can run PTX of its ``.target`` (that one and newer)."""
    target = ptx_target(ptx)
    if target is None:
        return tuple(DEVICES)
    floor = int(target[3:])
    return tuple(a for a in DEVICES if int(a[3:]) >= floor)
