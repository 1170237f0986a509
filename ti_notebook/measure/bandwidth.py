"""This machine's memory bandwidth, as ``ti.profiler.memory_bandwidth()`` has always said.

The figure now comes from ``ti.profiler.machine_ceilings()`` (``ti_notebook/measure``):
the DRAM read bandwidth of all cores, measured by ti_notebook kernels once per CPU model
and cached. The kernel profiler no longer divides every row by this one figure: each row
is compared with the ceiling of the memory level its working set fits in (L1, L2, L3 or
DRAM; ``ti_notebook/measure/levels.py``), so a kernel whose data stays in a cache is not
shown at 200 % of a DRAM figure.

    >>> import math
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> gbps = ti.profiler.memory_bandwidth()
    >>> gbps > 0 and math.isfinite(gbps), ti.profiler.memory_bandwidth() == gbps
    (True, True)
"""

from __future__ import annotations

from ti_notebook.measure import microbench, profile_rows
from ti_notebook.runtime import profiler

__all__ = ["machine_ceilings", "memory_bandwidth", "print_kernel_profiler_info"]


def machine_ceilings(refresh: bool = False):
    """This machine's ceilings (:class:`~ti_notebook.measure.ceilings.Ceilings`): GB/s of
    each memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"DRAM"``) for one core and for all
    cores, peak f32 and f64 GFLOP/s, the cache sizes, the CPU model and when measured.

    Measured by ti_notebook kernels (``ti_notebook/measure/microbench.py``; about a
    second, starting a default CPU session if none runs) the first time on a CPU model,
    then read from the cache file; ``refresh=True`` measures again.

        >>> import ti_notebook as ti
        >>> c = ti.profiler.machine_ceilings()
        >>> sorted(c.caches), c.peak_gflops("f32") > 0
        (['L1', 'L2', 'L3'], True)
    """
    return microbench.machine_ceilings(refresh)


def memory_bandwidth(refresh: bool = False) -> float:
    """This machine's DRAM bandwidth in GB/s (1e9 bytes per second), all cores reading:
    ``machine_ceilings(refresh).roofs()["DRAM"]``.

        >>> import ti_notebook as ti
        >>> ti.profiler.memory_bandwidth() == ti.profiler.memory_bandwidth()
        True
    """
    return machine_ceilings(refresh).roofs()["DRAM"]


def print_kernel_profiler_info(mode: str = "count", file=None) -> None:
    """Taichi's ``ti.profiler.print_kernel_profiler_info``: one row per specialisation,
    its first call apart, the median and IQR of the warm launches, GB/s from the counted
    bytes and the fraction of the ceiling of the level the working set fits in (the
    ceilings measured first, once per CPU model, when a launch moved a known number of
    bytes)."""
    if mode == "count" and any(e.bytes for e in profiler.launches()):
        machine_ceilings()
    profile_rows.print_kernel_profiler_info(mode, file)
