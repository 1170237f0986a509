"""This machine's copy bandwidth, measured once per process with a ti_notebook kernel.

The kernel profiler divides the bytes a launch moves (``passes/memory_traffic.py``) by
its time, and that by :func:`memory_bandwidth` for the fraction of what the machine can
do. The figure is STREAM's *copy*: ``b[i] = a[i]`` over f32 arrays far larger than the
caches, 8 bytes per element (4 read, 4 written; the read-for-ownership of ``b``'s
lines is not counted, as STREAM does not), best of several runs after a warm-up.

It is measured with ti_notebook's own code (a parallel ``range_for`` over two NumPy
arrays), so it is what a ti_notebook kernel reaches, not ``memcpy``: ``memcpy``'s
non-temporal stores skip that read-for-ownership, so it can report more. The arrays are
NumPy arguments, not fields: fields stay allocated for the whole session, so measuring
with them would leave 256 MiB behind in the user's session.

    >>> import math
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> gbps = ti.profiler.memory_bandwidth()
    >>> gbps > 0 and math.isfinite(gbps), ti.profiler.memory_bandwidth() == gbps
    (True, True)
"""

from __future__ import annotations

import time

import numpy as np

from ti_notebook.lang import config as _config
from ti_notebook.lang.kernel import kernel
from ti_notebook.lang.ndarray import NdarrayType
from ti_notebook.runtime import profiler

# 32 Mi f32 elements: 128 MiB per array, larger than most machines' last-level cache
# (flat from 16 Mi up on a 2-core Xeon VM), and a copy of 256 MiB takes ~20 ms at
# 13 GB/s, so six copies and the arrays' first touch stay under half a second.
ELEMENTS = 32 << 20
RUNS = 5  # timed copies after the warm-up; the best one counts (least disturbed)
BYTES_PER_ELEMENT = 8  # one f32 read, one f32 written

_measured: float | None = None  # GB/s, once per process (sessions share the machine)


@kernel
def _stream_copy(src: NdarrayType, dst: NdarrayType):
    for i in range(src.shape[0]):
        dst[i] = src[i]


def memory_bandwidth(refresh: bool = False) -> float:
    """This machine's copy bandwidth in GB/s (1e9 bytes per second).

    Measured on the first call (about 0.4 s; it starts a default CPU session if none
    runs, as a kernel's first call does), then the same figure; ``refresh=True``
    measures again. The measuring copies are not recorded by the kernel profiler.

        >>> import ti_notebook as ti
        >>> ti.profiler.memory_bandwidth() == ti.profiler.memory_bandwidth()
        True
    """
    global _measured
    if _measured is None or refresh:
        _measured = _measure()
        profiler.set_bandwidth_ceiling(_measured)  # the profiler's tables compare with it
    return _measured


def print_kernel_profiler_info(mode: str = "count", file=None) -> None:
    """Taichi's ``ti.profiler.print_kernel_profiler_info``, with each row's fraction of
    this machine's copy bandwidth: measured first (once per process, ~0.2 s) when a
    recorded launch moved a known number of bytes."""
    if mode == "count" and any(e.bytes for e in profiler.launches()):
        memory_bandwidth()
    profiler.print_kernel_profiler_info(mode, file)


def _measure(elements: int = ELEMENTS, runs: int = RUNS) -> float:
    """GB/s of the best of ``runs`` copies of ``elements`` f32s, after one warm-up."""
    if not _config.is_initialized():
        _config.set_current(_config.make_config(_config.cpu))
    # np.ones writes every page: reading a never-touched (zero-mapped) array would
    # read one cached page; the warm-up copy faults dst's pages in
    src = np.ones(elements, np.float32)
    dst = np.empty(elements, np.float32)
    recording = profiler.enabled
    profiler.set_enabled(False)  # the user's profile is of the user's kernels
    try:
        _stream_copy(src, dst)  # compiles (or loads) and touches dst
        best = float("inf")
        for _ in range(runs):
            started = time.perf_counter()
            _stream_copy(src, dst)
            best = min(best, time.perf_counter() - started)
    finally:
        profiler.set_enabled(recording)
    return BYTES_PER_ELEMENT * elements / best / 1e9
