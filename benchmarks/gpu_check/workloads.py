"""The GPU report's workloads, written once and run with ``ti_notebook`` and ``taichi``.

Each group function takes the ``ti`` module (a session already started on the GPU) and
the :class:`Sizes`, builds its fields and kernels, and returns its :class:`Row` s: what
to call, what to run untimed before a sample, and how to check the first call's result
against NumPy (a fast wrong answer is not a figure). ``benchmarks/gpu.py`` times them.

- ``sum``: an 8M f32 sum into a 0-D field (32 MiB read once: the bandwidth row);
- ``saxpy``: ``y = a * x + y`` (two reads and a write per element);
- ``stencil``: a 2-D 5-point stencil on dense fields;
- ``p2g``: the particle-to-grid scatter of a 3-D MPM step (Taichi's mpm3d) with
  ``ti.loop_config(block_dim=N)``, N in 32..512;
- ``launch``: an empty kernel (the call's own cost: it has no task to run), and the
  smallest kernel that launches (one serial write), per call batched and with a sync
  after each call;
- ``bls``: the seeds' block-local-storage example (``ti.block_local(a)`` over a pointer
  field of 4x4 dense blocks reading ``a[i - 1, j]`` and ``a[i, j + 2]``, written to a
  field instead of printed), and a 5-point stencil over 16x16 blocks, each with and
  without ``ti.block_local``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> rows = build_group(ti, "sum", FAKE_SIZES)
    >>> [r.key for r in rows]
    ['sum']
    >>> rows[0].prepare(); rows[0].call(); rows[0].check()
"""

# No `from __future__ import annotations` here: both Taichi and ti_notebook read kernel
# annotations such as `a: ti.f32` as objects, and `ti` is a parameter, not a global.
import dataclasses
from collections.abc import Callable
from types import ModuleType

import numpy as np

BLOCK_DIMS = (32, 64, 128, 256, 512)
GROUPS = ("sum", "saxpy", "stencil", "p2g", "launch", "bls")


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Problem sizes: :data:`GPU_SIZES` on a device, :data:`FAKE_SIZES` on the emulator."""

    n_sum: int
    n_saxpy: int
    n_stencil: int  # a square n x n
    n_particles: int
    n_grid: int  # an n^3 grid
    n_bls: int  # a square n x n, a multiple of 16


GPU_SIZES = Sizes(8 * 1024 * 1024, 8 * 1024 * 1024, 4096, 1 << 19, 128, 4096)
FAKE_SIZES = Sizes(4096, 4096, 48, 256, 16, 64)


@dataclasses.dataclass
class Row:
    """One figure: ``call()`` timed, ``prepare()`` untimed before each sample."""

    key: str
    title: str
    call: Callable[[], object]
    check: Callable[[], None]
    prepare: Callable[[], object] | None = None
    nbytes: int | None = None  # the bytes a call must move, for GB/s
    sync_each_call: bool = False  # a latency row: the sync is part of the call
    device_time: bool = True  # also timed by CUDA events (the kernel profiler)


class WrongResult(AssertionError):
    """A workload computed something other than NumPy's answer."""


def check_close(what: str, got, want, rtol: float = 1e-5, atol: float = 0.0) -> None:
    """Raises :class:`WrongResult` unless ``got`` matches ``want``."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        err = np.abs(got - want) if got.shape == want.shape else None
        where = np.unravel_index(int(np.argmax(err)), err.shape) if err is not None else ()
        detail = (
            f"at {tuple(int(i) for i in where)} got {got[where]:.6g}, expected {want[where]:.6g}"
            if err is not None
            else f"shape {got.shape}, expected {want.shape}"
        )
        raise WrongResult(f"wrong result ({what}): {detail}")


def build_group(ti: ModuleType, group: str, sizes: Sizes) -> list[Row]:
    """The rows of ``group`` (one of :data:`GROUPS`), built in ``ti``'s current session."""
    return {
        "sum": _sum,
        "saxpy": _saxpy,
        "stencil": _stencil,
        "p2g": _p2g,
        "launch": _launch,
        "bls": _bls,
    }[group](ti, sizes)


def row_keys(group: str) -> list[str]:
    """The keys ``group``'s rows have, without building them."""
    if group == "p2g":
        return [f"p2g_{b}" for b in BLOCK_DIMS]
    if group == "launch":
        return ["launch_empty", "launch", "launch_sync"]
    if group == "bls":
        return ["bls_seed", "bls_seed_cached", "bls_5pt", "bls_5pt_cached"]
    return [group]


def _sum(ti, sizes):
    n = sizes.n_sum
    data = (np.arange(n) % 7).astype(np.float32)
    values = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())
    values.from_numpy(data)

    @ti.kernel
    def reduce():
        for i in values:
            total[None] += values[i]

    def reset():
        total[None] = 0.0

    def check():
        check_close("sum", total[None], data.sum(dtype=np.float64), rtol=1e-4)

    title = f"sum of {n:,} f32 into a 0-D field"
    return [Row("sum", title, reduce, check, reset, nbytes=4 * n)]


def _saxpy(ti, sizes):
    n = sizes.n_saxpy
    rng = np.random.default_rng(1)
    x0 = rng.uniform(-1, 1, n).astype(np.float32)
    y0 = rng.uniform(-1, 1, n).astype(np.float32)
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    x.from_numpy(x0)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    def check():
        check_close("saxpy", y.to_numpy(), 2.0 * x0 + y0, rtol=1e-6, atol=1e-6)

    title = f"saxpy y = a*x + y, {n:,} f32"
    return [
        Row("saxpy", title, lambda: saxpy(2.0), check, lambda: y.from_numpy(y0), 12 * n),
    ]


def _stencil(ti, sizes):
    n = sizes.n_stencil
    a0 = np.random.default_rng(2).uniform(0, 1, (n, n)).astype(np.float32)
    a = ti.field(ti.f32, shape=(n, n))
    b = ti.field(ti.f32, shape=(n, n))
    a.from_numpy(a0)

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]

    def check():
        want = 0.25 * (a0[:-2, 1:-1] + a0[2:, 1:-1] + a0[1:-1, :-2] + a0[1:-1, 2:]) - a0[1:-1, 1:-1]
        check_close("stencil", b.to_numpy()[1:-1, 1:-1], want, rtol=1e-5, atol=1e-6)

    title = f"2-D 5-point stencil, {n}x{n} f32"
    return [Row("stencil", title, stencil, check, nbytes=8 * (n - 2) ** 2)]


def _p2g(ti, sizes):
    n, n_grid = sizes.n_particles, sizes.n_grid
    rng = np.random.default_rng(0)
    x = ti.Vector.field(3, ti.f32, shape=n)
    v = ti.Vector.field(3, ti.f32, shape=n)
    grid_m = ti.field(ti.f32, shape=(n_grid, n_grid, n_grid))
    grid_v = ti.Vector.field(3, ti.f32, shape=(n_grid, n_grid, n_grid))
    x.from_numpy(rng.uniform(0.2, 0.8, (n, 3)).astype(np.float32))
    v.from_numpy(rng.normal(0, 1, (n, 3)).astype(np.float32))
    dx = 1.0 / n_grid

    def p2g_with(block_dim):
        @ti.kernel
        def p2g():
            ti.loop_config(block_dim=block_dim)
            for p in x:
                base = ti.cast(x[p] / dx - 0.5, ti.i32)
                fx = x[p] / dx - ti.cast(base, ti.f32)
                w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
                for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
                    weight = w[i][0] * w[j][1] * w[k][2]
                    cell = base + ti.Vector([i, j, k])
                    grid_v[cell] += weight * v[p]
                    grid_m[cell] += weight

        return p2g

    def reset():
        grid_m.fill(0.0)
        grid_v.fill(0.0)

    def check():  # the quadratic B-spline weights of a particle sum to 1
        check_close("p2g grid mass", grid_m.to_numpy().sum(dtype=np.float64), n, rtol=1e-3)

    return [
        Row(
            f"p2g_{block}",
            f"MPM P2G, {n:,} particles, {n_grid}^3 grid, block_dim={block}",
            p2g_with(block),
            check,
            reset,
        )
        for block in BLOCK_DIMS
    ]


def _launch(ti, sizes):
    flag = ti.field(ti.i32, shape=())

    @ti.kernel
    def one():
        flag[None] = 1

    @ti.kernel
    def empty():
        pass

    def check():
        if flag[None] != 1:
            raise WrongResult(f"wrong result (launch): flag is {flag[None]}, expected 1")

    def launch_and_sync():
        one()
        ti.sync()

    title = "launch: one kernel writing one value, per call (calls queued, one sync)"
    return [
        Row(
            "launch_empty",
            "empty kernel: the call's own cost (no task to run), per call",
            empty,
            lambda: None,
            device_time=False,
        ),
        Row("launch", title, one, check, lambda: flag.fill(0), device_time=False),
        Row(
            "launch_sync",
            "launch + sync: the same kernel, then ti.sync(), per call",
            launch_and_sync,
            check,
            lambda: flag.fill(0),
            sync_each_call=True,
            device_time=False,
        ),
    ]


def _bls(ti, sizes):
    n = sizes.n_bls
    rows = []
    # the seed's offsets [-1, 0] and [0, 2] over 4x4 blocks; a 5-point stencil over 16x16
    for name, block, offsets in (
        ("bls_seed", 4, ((-1, 0), (0, 2))),
        ("bls_5pt", 16, ((-1, 0), (1, 0), (0, -1), (0, 1))),
    ):
        rows += _bls_pair(ti, n, name, block, offsets)
    return rows


def _bls_pair(ti, n, name, block, offsets):
    """Two rows over the same pointer fields: without and with ``ti.block_local(a)``.

    Only whole blocks of the interior ``[block, n - block)^2`` are active, so every
    neighbour read stays inside the field (an inactive cell reads 0): no bounds guards in
    the loop body, which would change what the block-local analysis sees.
    """
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, n // block).dense(ti.ij, block).place(a)
    ti.root.pointer(ti.ij, n // block).dense(ti.ij, block).place(b)
    five_point = len(offsets) == 4

    @ti.kernel
    def fill():
        for i, j in ti.ndrange((block, n - block), (block, n - block)):
            a[i, j] = ti.cast((i * 7 + j * 13) % 17, ti.f32)

    if five_point:

        @ti.kernel
        def plain():
            for i, j in a:
                b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]

        @ti.kernel
        def cached():
            ti.block_local(a)
            for i, j in a:
                b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]

    else:

        @ti.kernel
        def plain():
            for i, j in a:
                b[i, j] = a[i - 1, j] + a[i, j + 2]

        @ti.kernel
        def cached():
            ti.block_local(a)
            for i, j in a:
                b[i, j] = a[i - 1, j] + a[i, j + 2]

    @ti.kernel
    def clear():  # before each check and sample: a kernel that writes nothing fails
        for i, j in b:
            b[i, j] = 0.0

    fill()
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    inside = (ii >= block) & (ii < n - block) & (jj >= block) & (jj < n - block)
    a_ref = np.where(inside, (ii * 7 + jj * 13) % 17, 0).astype(np.float64)
    padded = np.pad(a_ref, 2)

    def shifted(di, dj):
        return padded[2 + di : 2 + di + n, 2 + dj : 2 + dj + n]

    want = sum(shifted(di, dj) for di, dj in offsets)
    if five_point:
        want = want - 4.0 * a_ref
    want = np.where(inside, want, 0.0)

    def check():
        check_close(name, b.to_numpy(), want)

    cells = (n - 2 * block) ** 2
    what = "seeds' example a[i-1,j] + a[i,j+2]" if not five_point else "5-point stencil"
    title = f"BLS {what}, {n}x{n} pointer field, {block}x{block} blocks"
    return [
        Row(name, f"{title}, global reads", plain, check, clear, nbytes=8 * cells),
        Row(f"{name}_cached", f"{title}, ti.block_local(a)", cached, check, clear, 8 * cells),
    ]
