"""A compiled kernel's GPU resources: what ``ptxas -v`` says of each of its CUDA kernels
and the theoretical occupancy that follows, for every candidate block_dim.

With the kernel's warp accesses (``passes/analysis/warp_accesses.py``: sectors per global
access, bank conflicts per shared one), each kernel's lines list them too.

This is the CUDA part of a kernel's report (DESIGN.md section 3), made on demand as the
``resources`` stage (``kernel.stages(arch="cuda")["resources"]``): ptxas takes some 30 ms
a run, which most compiles do not need. The occupancy is computed for the PTX's own
arch from ptxas's figures, and for the other archs in ``archs`` from the same figures
(ptxas for another arch allocates about the same registers; the table says which arch
ptxas ran for).

    >>> import shutil
    >>> ptx = '''
    ... .version 7.8
    ... .target sm_80
    ... .address_size 64
    ... .visible .entry k(.param .u64 p) { ret; }
    ... '''
    >>> report = gpu_resources(ptx, [{"kernel": "k", "block_dim": 128, "shared_bytes": 0}])
    >>> report is None or report.kernels[0].occupancy["sm_80"][128].occupancy
    1.0
"""

from __future__ import annotations

import dataclasses

from ti_notebook.cuda_analysis.occupancy import Occupancy, theoretical_occupancy
from ti_notebook.cuda_analysis.ptxas import KernelResources, find_ptxas, ptx_target, ptxas_report

BLOCK_DIMS = (32, 64, 128, 256, 512, 1024)
ARCHS = ("sm_80", "sm_90")


@dataclasses.dataclass(frozen=True)
class KernelGpuResources:
    """One CUDA kernel of a compiled ti kernel (one task): ptxas's figures, the launch's
    block_dim, and occupancy by arch, then by candidate block_dim."""

    task: int
    kernel: str
    block_dim: int
    dynamic_shared_bytes: int
    resources: KernelResources
    occupancy: dict[str, dict[int, Occupancy]]
    # what one warp's memory accesses cost, one printable entry each (the report's)
    accesses: tuple = ()

    def line(self) -> str:
        r = self.resources
        parts = [
            f"task {self.task} ({self.kernel}): {r.registers} registers",
            f"{r.shared_bytes + self.dynamic_shared_bytes} B shared",
            f"{r.barriers} barrier(s)",
        ]
        if r.spills:
            parts.append(f"spills {r.spill_store_bytes} B stored / {r.spill_load_bytes} B loaded")
        for arch, table in self.occupancy.items():
            now = table.get(self.block_dim)
            if now is not None:
                parts.append(
                    f"{arch} occupancy at block_dim {self.block_dim}: {now.occupancy:.0%} "
                    f"({now.limiting})"
                )
        return ", ".join(parts)


@dataclasses.dataclass(frozen=True)
class GpuResources:
    """Every CUDA kernel of a compiled kernel, as ptxas assembled it for ``ptxas_arch``."""

    ptxas_arch: str
    kernels: tuple[KernelGpuResources, ...]

    def __str__(self) -> str:
        head = f"ptxas -v for {self.ptxas_arch}; occupancy: block_dim -> fraction (limit)"
        lines = [head]
        for k in self.kernels:
            lines.append(k.line())
            for arch, table in k.occupancy.items():
                row = "  ".join(f"{b}: {o.occupancy:.0%} ({o.limiting})" for b, o in table.items())
                lines.append(f"    {arch}  {row}")
            if k.accesses:
                lines.append("    warp accesses:")
                lines.extend(f"      {access}" for access in k.accesses)
        return "\n".join(lines)


def gpu_resources(
    ptx: str, launches, archs=ARCHS, block_dims=BLOCK_DIMS, warp_accesses=None
) -> GpuResources | None:
    """The resources of the kernels ``launches`` names (``codegen/nvptx/module.py``'s launch
    table), from ``ptx``; None when no ptxas can be found. ``warp_accesses``: kernel
    name -> its accesses (anything printable), listed under the kernel."""
    if find_ptxas() is None:
        return None
    arch = ptx_target(ptx) or "sm_90"
    report = ptxas_report(ptx, arch)
    kernels = []
    for task, launch in enumerate(launches):
        resources = report.kernels.get(launch["kernel"])
        if resources is None:
            continue
        dynamic = int(launch.get("shared_bytes") or 0)
        table = {
            target: {
                block: theoretical_occupancy(
                    target,
                    block_size=block,
                    registers=resources.registers,
                    shared_bytes=resources.shared_bytes,
                    dynamic_shared_bytes=dynamic,
                    barriers=max(resources.barriers, 1),
                )
                for block in block_dims
            }
            for target in dict.fromkeys((arch, *archs))
        }
        kernels.append(
            KernelGpuResources(
                task,
                launch["kernel"],
                int(launch["block_dim"]),
                dynamic,
                resources,
                table,
                tuple((warp_accesses or {}).get(launch["kernel"], ())),
            )
        )
    return GpuResources(arch, tuple(kernels))
