"""On a real CUDA device: the tests of ``test_device_kernel.py`` that matter most, on
the GPU, through ``ti.init(arch=ti.cuda)``. They skip, with the driver's reason,
where no device can be used (cuda_status().reason)."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiMemoryError, TiRuntimeError
from ti_notebook.lang.sparse import active_cells
from ti_notebook.runtime.cuda import driver as cuda_driver
from ti_notebook.runtime.cuda.driver import cuda_status

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_status().available, reason=cuda_status().reason),
]


@pytest.fixture
def gpu():
    ti.init(arch=ti.cuda, offline_cache=False)
    assert ti.current_arch() == "cuda"
    yield cuda_driver.context()
    ti.sync()


def test_status_describes_the_device():
    status = cuda_status()
    assert status.compute_capability.startswith("sm_") and status.multiprocessors > 0
    assert status.shared_memory_opt_in >= status.shared_memory_per_block >= 48 << 10


def test_fill_and_read_back(gpu):
    x = ti.field(ti.f32, shape=100_000)

    @ti.kernel
    def fill(scale: ti.f32):
        for i in x:
            x[i] = i * scale

    fill(0.5)
    assert (x.to_numpy() == np.arange(100_000, dtype=np.float32) * 0.5).all()
    assert x[99_999] == pytest.approx(49_999.5)


def test_reduction_returns_and_host_writes_go_up(gpu):
    x = ti.field(ti.i64, shape=1 << 20)

    @ti.kernel
    def total() -> ti.i64:
        s = ti.i64(0)  # `s = 0` is an i32, as in Taichi: the sum would wrap
        for i in x:
            s += x[i]
        return s

    x.from_numpy(np.arange(1 << 20, dtype=np.int64))
    assert total() == (1 << 20) * ((1 << 20) - 1) // 2
    x[0] = 1000
    assert total() == (1 << 20) * ((1 << 20) - 1) // 2 + 1000


def test_ndarray_arguments(gpu):
    @ti.kernel
    def axpy(a: ti.f32, x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in x:
            y[i] = a * x[i] + y[i]

    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    axpy(2.0, x, y)
    assert (y == 2 * np.arange(1000) + 1).all()


def test_sparse_struct_for(gpu):
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 64).dense(ti.i, 32)
    block.place(x)

    @ti.kernel
    def activate():
        for i in range(64 * 32):
            if i % 100 == 0:
                x[i] = 1.0

    @ti.kernel
    def count() -> ti.i32:
        n = 0
        for _i in x:
            n += 1
        return n

    activate()
    cells = active_cells(x.parent(2))
    assert cells == sorted({i // 32 for i in range(0, 64 * 32, 100)})
    assert count() == len(cells) * 32


def test_block_local_storage_past_48_kb(gpu):
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 128).place(a, b)

    @ti.kernel
    def ones():
        for i, j in ti.ndrange(512, 512):
            a[i, j] = 1.0

    @ti.kernel
    def blur():
        ti.block_local(a)
        for i, j in a:
            right = 0.0
            if j < 511:
                right = a[i, j + 1]
            b[i, j] = a[i, j] + right

    ones()
    blur()
    result = b.to_numpy()
    assert (result[:, :511] == 2.0).all() and (result[:, 511] == 1.0).all()


def test_bounds_checks_raise_and_the_context_stays_usable(gpu):
    x = ti.field(ti.i32, shape=10)

    @ti.kernel
    def write(n: ti.i32):
        for i in range(n):
            x[i] = i

    with pytest.raises(TiIndexError):
        write(11)
    write(10)
    assert x.to_numpy().tolist() == list(range(10))


def test_prints_appear_at_the_end_of_the_launch(gpu, capfd):
    @ti.kernel
    def hello(v: ti.i32):
        print("from the GPU", v)

    hello(42)
    assert "from the GPU 42" in capfd.readouterr().out


def test_profiler_times_tasks_with_events():
    ti.init(arch=ti.cuda, offline_cache=False, kernel_profiler=True)
    x = ti.field(ti.f32, shape=1 << 20)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    fill()
    (event,) = [e for e in ti.profiler.launches() if e.kernel == "fill"]
    assert event.device == "cuda:0" and len(event.tasks) == 1
    assert event.tasks[0].end_ns > event.tasks[0].start_ns


def test_a_field_larger_than_the_gpu_is_a_memory_error(gpu):
    # 8 GiB per f64 component (cells are counted in 31 bits); reserved lazily on the host
    components = (cuda_status().total_memory >> 33) + 2
    x = ti.Vector.field(components, ti.f64, shape=1 << 30)

    @ti.kernel
    def touch():
        x[0][0] = 1.0

    with pytest.raises(TiMemoryError, match="CUDA_ERROR_OUT_OF_MEMORY"):
        touch()


def test_bad_ptx_gives_the_jit_log(gpu):
    with pytest.raises(TiRuntimeError) as caught:
        gpu.load_module(b".version 7.8\n.target sm_80\n.address_size 64\nnonsense\n", "bad")
    assert "kernel 'bad': loading its PTX failed: CUDA_ERROR_" in caught.value.message
    assert "\n" in caught.value.message  # ptxas's own lines follow
