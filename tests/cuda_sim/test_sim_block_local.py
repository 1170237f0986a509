"""Block-local storage in shared memory (``codegen/nvptx/shared_memory.py``): one CUDA block per
dense block, buffers filled between barriers, accumulated buffers written back with
atomics. Every result is compared with the CPU backend's and with NumPy.

The first test is the performance page's own example (``/work/shared/seeds/``, the
``bls_page`` fixture of ``tests/conftest.py``, with ``ti.block_local(a)`` before the
loop), run exactly as the page gives it.
"""

import numpy as np
import pytest
from sim_compare import assert_same, task_launches

import ti_notebook as ti

N = 32
PAGE_BLOCKS = [(1, 1), (1, 2), (3, 3), (5, 1)]  # (1, 1) and (1, 2) share a halo


def _cells(blocks, block=4, n=N) -> np.ndarray:
    """A mask of the cells of ``blocks`` (block coordinates)."""
    mask = np.zeros((n, n), bool)
    for bi, bj in blocks:
        mask[bi * block : (bi + 1) * block, bj * block : (bj + 1) * block] = True
    return mask


def _shifted(a: np.ndarray, di: int, dj: int) -> np.ndarray:
    """``a[i + di, j + dj]``, 0 outside."""
    out = np.zeros_like(a)
    n, m = a.shape
    src = a[max(di, 0) : n + min(di, 0), max(dj, 0) : m + min(dj, 0)]
    out[max(-di, 0) : n - max(di, 0), max(-dj, 0) : m - max(dj, 0)] = src
    return out


def _picture(n=N, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 100, size=(n, n)).astype(np.float32)


def test_the_performance_pages_example_prints_as_on_the_cpu(gpu, bls_page, capfd):
    picture = _picture()
    mask = _cells(PAGE_BLOCKS)

    def build():
        page = bls_page()  # the page's code, verbatim: a, b, foo
        a, foo = page["a"], page["foo"]
        for i, j in np.argwhere(mask):
            a[i, j] = picture[i, j]
        capfd.readouterr()
        foo()
        printed = sorted(line for line in capfd.readouterr().out.split("\n") if line)
        launches = task_launches(foo)
        return printed, launches

    (expected, _), (printed, launches) = gpu.against_cpu(build)
    values = np.where(mask, picture, 0)
    up, right = _shifted(values, -1, 0), _shifted(values, 0, 2)
    numpy_lines = sorted(f"{up[i, j]:.6f} {right[i, j]:.6f}" for i, j in np.argwhere(mask))
    assert printed == expected == numpy_lines
    (launch,) = launches
    assert launch["block_local"] and launch["kind"] == "struct_for"
    assert launch["block_dim"] == 32  # 16 cells: one whole warp


def _stencil(block_shape, grid_blocks, block_dim=0, sparse=True):
    """b = a's 5-point Laplacian over ``grid_blocks`` blocks of ``block_shape``, a cached
    in shared memory; returns a build() giving (b, picture, its launch)."""
    shape = tuple(s * g for s, g in zip(block_shape, grid_blocks, strict=True))
    picture = np.random.default_rng(sum(shape)).integers(0, 50, size=shape).astype(np.float32)
    configured = block_dim > 0
    rows, cols = shape

    def build():
        a, b = ti.field(ti.f32), ti.field(ti.f32)
        outer = ti.root.pointer if sparse else ti.root.dense
        outer(ti.ij, grid_blocks).dense(ti.ij, block_shape).place(a)
        outer(ti.ij, grid_blocks).dense(ti.ij, block_shape).place(b)

        @ti.kernel
        def load(src: ti.types.ndarray()):  # activates every block (from_numpy would not)
            for i, j in ti.ndrange(rows, cols):
                a[i, j] = src[i, j]
                b[i, j] = 0

        load(picture)

        @ti.kernel
        def laplacian():
            ti.block_local(a)
            if ti.static(configured):
                ti.loop_config(block_dim=block_dim)
            for i, j in b:
                if 0 < i < rows - 1 and 0 < j < cols - 1:
                    b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]

        laplacian()
        launches = task_launches(laplacian)
        report = laplacian.stages()["report"]["block_local"]
        return b.to_numpy(), launches, report

    expect = np.zeros(shape, np.float32)
    inner = (slice(1, -1), slice(1, -1))
    p = picture
    expect[inner] = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * p[1:-1, 1:-1]
    return build, expect


@pytest.mark.parametrize(
    "block_shape,grid_blocks",
    [((4, 4), (4, 4)), ((8, 8), (3, 3)), ((16, 4), (2, 5)), ((2, 32), (8, 1)), ((32, 32), (1, 2))],
    ids=lambda v: "x".join(map(str, v)),
)
def test_stencil_for_several_block_shapes(gpu, block_shape, grid_blocks):
    build, expect = _stencil(block_shape, grid_blocks)
    (b_cpu, _, _), (b_gpu, launches, report) = gpu.against_cpu(build)
    assert_same(b_cpu, b_gpu)
    assert_same(expect, b_gpu)
    (entry,) = report
    assert entry["buffer_shape"] == (block_shape[0] + 2, block_shape[1] + 2)
    (launch,) = launches
    cells = block_shape[0] * block_shape[1]
    assert launch["block_local"] and launch["block_dim"] == min(-(-cells // 32) * 32, 128)


@pytest.mark.parametrize("block_dim", [32, 64, 256])
def test_stencil_with_fewer_or_more_threads_than_cells(gpu, block_dim):
    build, expect = _stencil((8, 8), (3, 3), block_dim=block_dim)
    b, launches, _ = gpu.run(build)
    assert_same(expect, b)
    assert launches[0]["block_dim"] == block_dim


def test_stencil_over_a_dense_root(gpu):
    build, expect = _stencil((4, 8), (6, 3), sparse=False)
    b, launches, _ = gpu.run(build)
    assert_same(expect, b)
    assert launches[0]["block_local"]


def _scatter(blocks):
    """Every active cell of ``a`` adds into three neighbours of ``b``, cached in shared
    memory and accumulated there (atomics in the buffer, then into ``b``)."""
    picture = _picture(seed=4)
    mask = _cells(blocks)

    def build():
        a, b = ti.field(ti.f32), ti.field(ti.f32)
        ti.root.pointer(ti.ij, N // 4).dense(ti.ij, 4).place(a)
        ti.root.dense(ti.ij, N // 4).dense(ti.ij, 4).place(b)

        @ti.kernel
        def load(src: ti.types.ndarray(), on: ti.types.ndarray()):
            for i, j in ti.ndrange(N, N):
                if on[i, j]:
                    a[i, j] = src[i, j]

        @ti.kernel
        def scatter():
            ti.block_local(b)
            for i, j in a:
                if 1 <= i < N - 1 and 2 <= j < N:
                    b[i + 1, j] += a[i, j]
                    b[i - 1, j] += 0.5 * a[i, j]
                    ti.atomic_add(b[i, j - 2], a[i, j])

        load(picture, mask.astype(np.int32))
        scatter()
        return b.to_numpy(), scatter.stages()["report"]["block_local"]

    inside = np.zeros((N, N), np.float32)
    keep = mask.copy()
    keep[[0, N - 1], :] = False
    keep[:, :2] = False
    inside[keep] = picture[keep]
    expect = _shifted(inside, -1, 0) + 0.5 * _shifted(inside, 1, 0) + _shifted(inside, 0, 2)
    return build, expect


def test_accumulating_stencil_adds_through_the_shared_buffer(gpu):
    build, expect = _scatter(PAGE_BLOCKS + [(0, 0), (7, 7), (2, 2), (2, 3), (3, 2)])
    (b_cpu, _), (b_gpu, report) = gpu.against_cpu(build)
    (entry,) = report
    assert entry["mode"] == "accumulate" and entry["buffer_shape"] == (6, 6)
    assert_same(b_cpu, b_gpu)  # halves and integers: exact in any order
    assert_same(expect, b_gpu)


def test_accumulating_into_every_block_of_a_full_field(gpu):
    build, expect = _scatter([(bi, bj) for bi in range(N // 4) for bj in range(N // 4)])
    b, _ = gpu.run(build)
    assert_same(expect, b)


def test_one_dimensional_blocks(gpu):
    data = np.arange(16 * 64, dtype=np.float64) % 13

    def build():
        a, b = ti.field(ti.f64), ti.field(ti.f64)
        ti.root.pointer(ti.i, 16).dense(ti.i, 64).place(a, b)

        @ti.kernel
        def load(src: ti.types.ndarray()):
            for i in range(16 * 64):
                a[i] = src[i]

        load(data)

        @ti.kernel
        def smooth():
            ti.block_local(a)
            for i in a:
                if 2 <= i < 16 * 64 - 2:
                    b[i] = (a[i - 2] + a[i - 1] + a[i] + a[i + 1] + a[i + 2]) / 5

        smooth()
        return b.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-15)
    window = np.convolve(data, np.ones(5) / 5, mode="same")
    window[:2] = window[-2:] = 0
    assert_same(window, actual, rtol=1e-12)


def test_buffers_past_48_kb_live_in_dynamic_shared_memory(gpu):
    n = 160  # 2x2 blocks of 80x80 f64: a buffer of 84x84 doubles, 56,448 bytes

    def build():
        a, b = ti.field(ti.f64), ti.field(ti.f64)
        ti.root.pointer(ti.ij, 2).dense(ti.ij, 80).place(a)
        ti.root.pointer(ti.ij, 2).dense(ti.ij, 80).place(b)

        @ti.kernel
        def load():
            for i, j in ti.ndrange(n, n):
                a[i, j] = i * 1000 + j
                b[i, j] = 0

        @ti.kernel
        def cross():
            ti.block_local(a)
            for i, j in b:
                if 2 <= i < n - 2 and 2 <= j < n - 2:
                    b[i, j] = a[i - 2, j] + a[i + 2, j] + a[i, j - 2] + a[i, j + 2]

        load()
        cross()
        return b.to_numpy(), task_launches(cross)

    (b_cpu, _), (b_gpu, launches) = gpu.against_cpu(build)
    assert_same(b_cpu, b_gpu)
    i, j = np.indices((n, n)).astype(np.float64)
    expect = np.where((i >= 2) & (i < n - 2) & (j >= 2) & (j < n - 2), 4 * (i * 1000 + j), 0)
    assert_same(expect, b_gpu)
    assert launches[0]["shared_bytes"] == 84 * 84 * 8


def test_three_dimensional_blocks(gpu):
    def build():
        a, b = ti.field(ti.f32), ti.field(ti.f32)
        ti.root.pointer(ti.ijk, 2).dense(ti.ijk, 4).place(a, b)

        @ti.kernel
        def load():
            for i, j, k in ti.ndrange(8, 8, 8):
                a[i, j, k] = i * 100 + j * 10 + k

        @ti.kernel
        def stencil():
            ti.block_local(a)
            for i, j, k in b:
                if 0 < i < 7 and 0 < j < 7 and 0 < k < 7:
                    b[i, j, k] = a[i - 1, j, k] + a[i, j + 1, k] + a[i, j, k - 1]

        load()
        stencil()
        return b.to_numpy(), stencil.stages()["report"]["block_local"]

    (b_cpu, _), (b_gpu, report) = gpu.against_cpu(build)
    assert_same(b_cpu, b_gpu)
    assert report[0]["buffer_shape"] == (5, 5, 5)
    i, j, k = np.indices((8, 8, 8))
    inside = (i > 0) & (i < 7) & (j > 0) & (j < 7) & (k > 0) & (k < 7)
    value = 300 * i + 30 * j + 3 * k - 100 + 10 - 1
    assert_same(np.where(inside, value, 0).astype(np.float32), b_gpu)


def test_block_local_loop_with_thread_local_reductions(gpu):
    def build():
        a, b = ti.field(ti.f32), ti.field(ti.f32)
        ti.root.pointer(ti.ij, 4).dense(ti.ij, (6, 4)).place(a, b)  # 24 cells a block
        total, peak = ti.field(ti.f32, shape=()), ti.field(ti.f32, shape=())

        @ti.kernel
        def load():
            for i, j in ti.ndrange(24, 16):
                a[i, j] = (i * 7 + j * 3) % 11

        @ti.kernel
        def stencil():
            ti.block_local(a)
            for i, j in b:
                if 0 < i < 23 and 0 < j < 15:
                    v = a[i - 1, j] + a[i + 1, j] - a[i, j]
                    b[i, j] = v
                    total[None] += v
                    ti.atomic_max(peak[None], v)

        load()
        stencil()
        return (total[None], peak[None], b.to_numpy()), task_launches(stencil)

    (expected, _), (actual, launches) = gpu.against_cpu(build)
    assert_same(expected, actual)
    i, j = np.indices((24, 16))
    a = ((i * 7 + j * 3) % 11).astype(np.float32)
    v = np.zeros_like(a)
    v[1:23, 1:15] = a[:22, 1:15] + a[2:, 1:15] - a[1:23, 1:15]
    assert actual[0] == v.sum() and actual[1] == v.max()
    (launch,) = launches
    assert launch["block_local"] and launch["block_dim"] == 32 and launch["warp_reduction"]


def test_a_vector_field_cached_in_shared_memory(gpu):
    def build():
        v = ti.Vector.field(2, ti.f32)
        out = ti.field(ti.f32)
        ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(v, out)

        @ti.kernel
        def load():
            for i, j in ti.ndrange(16, 16):
                v[i, j] = ti.Vector([i, j])
                out[i, j] = 0

        @ti.kernel
        def mix():
            ti.block_local(v)
            for i, j in out:
                if 0 < i < 15:
                    out[i, j] = v[i - 1, j][0] * 100 + v[i + 1, j][1]

        load()
        mix()
        return out.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    i, j = np.indices((16, 16))
    assert_same(np.where((i > 0) & (i < 15), (i - 1) * 100 + j, 0).astype(np.float32), actual)
