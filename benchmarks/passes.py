"""Local storage passes (not a test): the "Local Storage Optimizations" page's examples.

Times, in one run on this machine, each kernel with its pass on and off (``ti.init`` in
between, kernels defined after it):
  1. make_thread_local: the page's global sum and global max over 8M f32 into a 0-D
     field (the page: 5.2e3 µs off, 57 µs on for the max on an RTX 3090), with NumPy's
     ``sum``/``max`` of the same data for scale;
  2. make_block_local: a 5-point stencil ``for i, j in b: ti.block_local(a)`` over
     2048² fields placed as ``ti.root.pointer(ti.ij, N // 4).dense(ti.ij, 4)``.

    python benchmarks/passes.py
"""

from __future__ import annotations

import os
import platform

import numpy as np

import ti_notebook as ti

N_REDUCE = 8 * 1024 * 1024
N_STENCIL = 2048
BLOCK = 4


def timed(fn, repeats: int = 15) -> tuple[float, float]:
    """(median, interquartile range) in ms, by the timing protocol (first call apart)."""
    timing = ti.profiler.time_call(fn, rounds=repeats)
    return timing.median_s * 1e3, timing.summary.iqr * 1e3


# -- part 1: make_thread_local ------------------------------------------------------------
def reductions(data: np.ndarray, thread_local: bool) -> dict:
    """{"sum": (median, min, value, fired), "max": ...} with the pass on or off."""
    ti.init(arch=ti.cpu, make_thread_local=thread_local)
    x = ti.field(ti.f32, shape=N_REDUCE)
    s = ti.field(ti.f32, shape=())
    m = ti.field(ti.f32, shape=())
    x.from_numpy(data)

    @ti.kernel
    def global_sum():
        for i in x:
            s[None] += x[i]

    @ti.kernel
    def global_max():
        for i in x:
            ti.atomic_max(m[None], x[i])

    def run_sum():
        s[None] = 0
        global_sum()

    def run_max():
        m[None] = -np.inf
        global_max()

    out = {}
    for name, run, kernel, dest in (
        ("sum", run_sum, global_sum, s),
        ("max", run_max, global_max, m),
    ):
        med, low = timed(run)
        fired = bool(kernel.stages()["report"]["thread_local"])
        out[name] = (med, low, dest[None], fired)
    return out


def part1() -> None:
    data = np.random.default_rng(0).random(N_REDUCE, dtype=np.float32)
    on = reductions(data, True)
    off = reductions(data, False)
    numpy_rows = {"sum": timed(data.sum), "max": timed(data.max)}
    expected = {"sum": float(data.sum(dtype=np.float64)), "max": float(data.max())}
    head = f"{'make_thread_local, 8M f32':40s} {'median ms':>10s} {'IQR ms':>10s}"
    print(f"{head} {'value':>12s} {'rewritten':>9s}")
    for name in ("sum", "max"):
        for label, result in (("on", on[name]), ("off", off[name])):
            med, low, value, fired = result
            row = f"{'global ' + name + ', TLS ' + label:40s} {med:10.3f} {low:10.3f}"
            print(f"{row} {value:12.1f} {'yes' if fired else 'no':>9s}")
        med, low = numpy_rows[name]
        print(f"{'numpy ' + name:40s} {med:10.3f} {low:10.3f} {expected[name]:12.1f}")
    for name in ("sum", "max"):
        ratio = off[name][0] / on[name][0]
        vs_numpy = on[name][0] / numpy_rows[name][0]
        print(f"global {name}: TLS off / on = {ratio:.1f}x; TLS on / numpy = {vs_numpy:.2f}")


# -- part 2: make_block_local -------------------------------------------------------------
def stencil(block_local: bool) -> tuple[float, float, np.ndarray, list]:
    """(median, min, result, report) of the 5-point stencil with the pass on or off."""
    ti.init(arch=ti.cpu, make_block_local=block_local)
    n = N_STENCIL
    a = ti.field(ti.f32)
    b = ti.field(ti.f32)
    ti.root.pointer(ti.ij, n // BLOCK).dense(ti.ij, BLOCK).place(a)
    ti.root.pointer(ti.ij, n // BLOCK).dense(ti.ij, BLOCK).place(b)

    @ti.kernel
    def setup():
        for i, j in ti.ndrange(n, n):
            a[i, j] = ti.sin(i * 0.01) + ti.cos(j * 0.02)
        # b's active blocks stay one block off the edges: a[i - 1, j] etc. are in range
        for i, j in ti.ndrange((BLOCK, n - BLOCK), (BLOCK, n - BLOCK)):
            b[i, j] = 0.0

    @ti.kernel
    def laplace():
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]

    setup()
    med, low = timed(laplace)
    return med, low, b.to_numpy(), laplace.stages()["report"]["block_local"]


def part2() -> None:
    if not hasattr(ti, "block_local"):
        print("make_block_local: not available yet")
        return
    on_med, on_low, on_result, report = stencil(True)
    off_med, off_low, off_result, _ = stencil(False)
    print(f"{'make_block_local, 2048² 5-point stencil':40s} {'median ms':>10s} {'IQR ms':>10s}")
    print(f"{'stencil, BLS on':40s} {on_med:10.3f} {on_low:10.3f}")
    print(f"{'stencil, BLS off':40s} {off_med:10.3f} {off_low:10.3f}")
    buffers = ", ".join(f"{r['field']} {r['buffer_shape']}" for r in report) or "none"
    same = np.allclose(on_result, off_result, rtol=1e-5, atol=1e-5)
    print(
        f"stencil: BLS off / on = {off_med / on_med:.2f}x; buffers: {buffers}; same result: {same}"
    )


def main() -> None:
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    part1()
    print()
    part2()


if __name__ == "__main__":
    main()
