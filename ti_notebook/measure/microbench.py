"""The micro-benchmark behind ``ti.profiler.machine_ceilings()``, in ti_notebook kernels.

It measures what code this compiler generates can reach, not what hand-written assembly
could: the figures are the fair ceiling for a ti_notebook kernel.

- **Bandwidth per level**: a sum over a 2-D f32 array, one row per thread (the parallel
  loop gives each row its own chunk), each row read ``reps`` times; the row is half of
  the level's capacity for that thread (half an L1d, half an L2; half the L3 shared out
  among the threads, at least twice an L2 so it does not stay there, and at most
  :data:`L3_CAP_BYTES`: a virtual machine reports its host's whole L3, of which one
  guest's cores see only a slice; for DRAM four times the L3, at most
  :data:`DRAM_CAP_BYTES`). The sum is vectorised (fast-math allows
  reassociation) and reads only. Caches and memory move reads and write-backs at the
  same time, so a loop that also writes moves more bytes per second than one that only
  reads (here 1.5x from L3 and DRAM): each level is also measured with an update
  ``y = y * 0.5 + x`` over two arrays of the same total size (two reads and a write per
  element, 12 bytes as the compiler counts them), and the faster of the two is the
  level's figure: the ceiling of bytes counted the way the kernel profiler counts them.
- **Peak FLOP/s**: each thread updates a row of 256 values that stays in L1, each value
  by 8 dependent multiply-adds per pass (``x = x * m + c``, fused into FMAs, 2 FLOPs
  each). The row's values are independent, so the vectorised loop keeps many FMA chains
  in flight; ``m`` and ``c`` are arguments, so the compiler cannot fold the chain.

Each figure is the best of :data:`RUNS` timed runs after one untimed run (which compiles
or loads the kernel and faults the pages in), each run repeated until it lasts about
:data:`RUN_S`; the whole set takes about two seconds. The measuring launches are not
recorded by the kernel profiler.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> gbps = read_gbps(1 << 12, threads=1, runs=1)
    >>> gbps > 0
    True
"""

from __future__ import annotations

import os
import time

import numpy as np

from ti_notebook.lang import types as _types
from ti_notebook.lang.ndarray import NdarrayType
from ti_notebook.lang.ops import cast, loop_config
from ti_notebook.measure import ceilings
from ti_notebook.runtime import profiler
from ti_notebook.session import config as _config
from ti_notebook.session.kernel import kernel

__all__ = [
    "fma_gflops",
    "level_gbps",
    "machine_ceilings",
    "measure_ceilings",
    "read_gbps",
    "update_gbps",
]

RUNS = 5  # timed runs per figure; the best counts (the least disturbed)
RUN_S = 2e-3  # each run repeats its pass until it lasts about this long
DRAM_CAP_BYTES = 256 << 20  # the DRAM set: 4 x L3, at most this (memory and time)
L3_CAP_BYTES = 16 << 20  # the L3 set: half the L3, at most this (unless 2 x L2 is more)
FMA_ROW = 256  # values per thread in the FLOP benchmark (1 KiB of f32: stays in L1)
FMA_CHAIN = 8  # dependent FMAs per value per pass


@kernel
def _read_rows(a: NdarrayType, out: NdarrayType, reps: _types.i32):
    loop_config(block_dim=1)  # one row per chunk: each thread reads its own row
    for t in range(a.shape[0]):
        s = 0.0
        for _ in range(reps):
            for i in range(a.shape[1]):
                s += a[t, i]
        out[t] = s


@kernel
def _update_rows(x: NdarrayType, y: NdarrayType, reps: _types.i32):
    loop_config(block_dim=1)  # one row per chunk: each thread updates its own row
    for t in range(x.shape[0]):
        for _ in range(reps):
            for i in range(x.shape[1]):
                y[t, i] = y[t, i] * 0.5 + x[t, i]


def _fma_kernel(dtype):
    @kernel
    def fma_rows(acc: NdarrayType, reps: _types.i32, m: _types.f64, c: _types.f64):
        loop_config(block_dim=1)
        for t in range(acc.shape[0]):
            mm, cc = cast(m, dtype), cast(c, dtype)
            for _ in range(reps):
                for j in range(acc.shape[1]):
                    x = acc[t, j]
                    for _k in range(FMA_CHAIN):  # a constant trip count: unrolled
                        x = x * mm + cc
                    acc[t, j] = x

    return fma_rows


_FMA = {"f32": (_fma_kernel(_types.f32), np.float32), "f64": (_fma_kernel(_types.f64), np.float64)}


def _best(run, work: float, runs: int) -> float:
    """``work`` / the best time of ``run(reps)``, reps chosen so a run lasts ~RUN_S."""
    started = time.perf_counter()
    run(1)  # compiles or loads; faults the pages in
    once = max(time.perf_counter() - started, 1e-7)
    started = time.perf_counter()
    run(1)
    once = min(once, max(time.perf_counter() - started, 1e-7))
    reps = max(1, min(1 << 20, round(RUN_S / once)))
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run(reps)
        best = min(best, time.perf_counter() - started)
    return work * reps / best


def read_gbps(row_bytes: int, threads: int, runs: int = RUNS) -> float:
    """GB/s of ``threads`` threads each summing its own ``row_bytes`` of f32s."""
    a = np.ones((threads, max(16, row_bytes // 4)), np.float32)  # np.ones writes every page
    out = np.zeros(threads, np.float32)
    return _best(lambda reps: _read_rows(a, out, reps), a.nbytes / 1e9, runs)


def update_gbps(row_bytes: int, threads: int, runs: int = RUNS) -> float:
    """GB/s of ``threads`` threads each updating ``y = y * 0.5 + x`` over its own rows of
    ``row_bytes`` in all (two reads and a write per element, as the compiler counts)."""
    x = np.ones((threads, max(16, row_bytes // 8)), np.float32)
    y = np.ones_like(x)
    return _best(lambda reps: _update_rows(x, y, reps), 3 * x.nbytes / 1e9, runs)


def level_gbps(row_bytes: int, threads: int, runs: int = RUNS) -> float:
    """The faster of reading and updating ``row_bytes`` per thread (module doc)."""
    return max(read_gbps(row_bytes, threads, runs), update_gbps(row_bytes, threads, runs))


def fma_gflops(dtype: str, threads: int, runs: int = RUNS) -> float:
    """Peak GFLOP/s of ``threads`` threads running independent FMA chains of ``dtype``."""
    fma, np_type = _FMA[dtype]
    acc = np.ones((threads, FMA_ROW), np_type)
    flops = 2 * FMA_CHAIN * acc.size
    # m * x + c with m < 1 stays finite and normal however many passes run
    return _best(lambda reps: fma(acc, reps, 0.999, 0.001), flops / 1e9, runs)


def _working_sets(caches: dict, threads: int) -> dict[str, tuple[int, int]]:
    """Level -> (bytes per thread alone, bytes per thread with ``threads`` threads)."""
    l1, l2, l3 = (caches[level][0] for level in ("L1", "L2", "L3"))
    l2_share = l2 // max(1, caches["L2"][1] if caches["L2"][1] else threads)
    dram = min(DRAM_CAP_BYTES, max(4 * l3, 64 << 20))
    return {
        "L1": (l1 // 2, l1 // 2),
        "L2": (max(l2 // 2, l1 * 2), max(l2_share // 2, l1 * 2)),
        "L3": (
            max(min(l3 // 2, L3_CAP_BYTES), 2 * l2),
            max(min(l3 // 2, L3_CAP_BYTES) // threads, 2 * l2_share),
        ),
        "DRAM": (dram, dram // threads),
    }


def _threads() -> int:
    if _config.is_initialized():
        return _config.current().num_threads
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def measure_ceilings(runs: int = RUNS) -> ceilings.Ceilings:
    """Runs the benchmark (module doc) and returns the record; about two seconds."""
    if not _config.is_initialized():
        _config.set_current(_config.make_config(_config.cpu))
    caches, source = ceilings.cache_geometry()
    threads = max(1, _threads())
    sets = _working_sets(caches, threads)
    recording = profiler.enabled
    profiler.set_enabled(False)  # the user's profile is of the user's kernels
    try:
        one = {level: level_gbps(sets[level][0], 1, runs) for level in ceilings.LEVELS}
        every = {level: level_gbps(sets[level][1], threads, runs) for level in ceilings.LEVELS}
        flops_one = {dtype: fma_gflops(dtype, 1, runs) for dtype in ("f32", "f64")}
        flops_all = {dtype: fma_gflops(dtype, threads, runs) for dtype in ("f32", "f64")}
    finally:
        profiler.set_enabled(recording)
    return ceilings.Ceilings(
        ceilings.cpu_model(),
        ceilings.now(),
        threads,
        caches,
        source,
        one,
        every,
        flops_one,
        flops_all,
        {level: sets[level][1] for level in ceilings.LEVELS},
        _notes(one, every, caches, sets),
    )


def _notes(one: dict, every: dict, caches: dict, sets: dict) -> tuple[str, ...]:
    """What a reader should know: the order broken by noise, a DRAM set near the L3."""
    notes = []
    for name, measured in (("one core", one), ("all cores", every)):
        levels = ceilings.LEVELS
        for near, far in zip(levels, levels[1:], strict=False):
            if measured[near] < measured[far]:
                notes.append(
                    f"{name}: {near} measured below {far} ({measured[near]:.1f} < "
                    f"{measured[far]:.1f} GB/s); its roof is taken as {far}'s"
                )
    dram, l3 = sets["DRAM"][0], caches["L3"][0]
    if dram < 2 * l3:
        notes.append(
            f"the DRAM working set ({dram >> 20} MiB) is less than twice the L3 "
            f"({l3 >> 20} MiB): part of it may have been read from the L3"
        )
    return tuple(notes)


def machine_ceilings(refresh: bool = False) -> ceilings.Ceilings:
    """This machine's ceilings: this process's record, else the cached file's (for this
    CPU model), else measured now (~1 s) and cached; ``refresh=True`` measures again.
    See :mod:`ti_notebook.measure.ceilings` for the record and the cache file.

        >>> import ti_notebook as ti
        >>> c = ti.profiler.machine_ceilings()
        >>> list(c.roofs()), c.roofs()["L1"] >= c.roofs()["DRAM"] > 0
        (['L1', 'L2', 'L3', 'DRAM'], True)
    """
    record = None if refresh else ceilings.current(read_file=False)
    if record is None and not refresh:
        record = ceilings.load(ceilings.cache_file(), ceilings.cpu_model())
    if record is None:
        record = measure_ceilings()
        ceilings.save(ceilings.cache_file(), record)
    ceilings.remember(record)
    return record
