"""Cold compile: the first call of a fresh sum kernel, in a fresh process.

Measured from the kernel's definition to its first result (the 8M-f32 global sum),
with import and ``ti.init`` timed apart. Both ti modules run with
``offline_cache=False``, so nothing compiled by an earlier process is reused; the
fields are created, filled and read once before the clock starts, so Taichi's
field-accessor kernels are not counted. Numba's figure is its first-call JIT of an
``@njit(parallel=True)`` sum, its import time standing in for "import + init".

    python benchmarks/compare.py --peer taichi --cold   # one fresh process, one figure
"""

from __future__ import annotations

import importlib
import time

import numpy as np

from . import spec
from .measure import check


def cold_ti(module: str) -> dict:
    """{"import_init", "cold_compile"} seconds for ``ti_notebook`` or ``taichi``."""
    data = spec.flat_data()
    start = time.perf_counter()
    ti = importlib.import_module(module)
    note = ""
    try:
        ti.init(arch=ti.cpu, offline_cache=False)
    except Exception as exc:
        note = f"offline_cache=False refused ({type(exc).__name__}); default init"
        ti.init(arch=ti.cpu)
    initialised = time.perf_counter()
    sync = getattr(ti, "sync", lambda: None)
    x = ti.field(ti.f32, shape=spec.N_FLAT)
    s = ti.field(ti.f32, shape=())
    x.from_numpy(data)
    s[None] = 0.0
    _ = s[None]
    sync()

    defined = time.perf_counter()

    @ti.kernel
    def cold_sum():
        for i in x:
            s[None] += x[i]

    cold_sum()
    value = s[None]
    sync()
    done = time.perf_counter()
    check("cold sum", value, data.sum(dtype=np.float64), rtol=1e-3)
    return {"import_init": initialised - start, "cold_compile": done - defined, "note": note}


def cold_numba() -> dict:
    """{"import_init": import numba, "cold_compile": define + first call} seconds."""
    data = spec.flat_data()
    start = time.perf_counter()
    numba = importlib.import_module("numba")
    imported = time.perf_counter()

    @numba.njit(parallel=True)
    def cold_sum(x):
        s = np.float32(0.0)
        for i in numba.prange(x.shape[0]):
            s += x[i]
        return s

    value = cold_sum(data)
    done = time.perf_counter()
    check("cold sum", value, data.sum(dtype=np.float64), rtol=1e-3)
    return {"import_init": imported - start, "cold_compile": done - imported, "note": ""}


def cold(peer: str) -> dict:
    if peer == "numba":
        return cold_numba()
    return cold_ti(peer)
