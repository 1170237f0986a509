"""Loop directives: ti.loop_config(serialize/parallelize/block_dim), ti.block_dim, and
ti.init(cpu_max_num_threads=...).

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``),
except ``ti.block_dim``, which Taichi 1.7.4 no longer has (ti_notebook keeps it for the
older performance page, seed 001).
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _is_taichi() -> bool:
    """True when ``ti_notebook`` is the test shim that re-exports real Taichi."""
    return ti.kernel.__module__.split(".")[0] == "taichi"


def test_serialize_prefix_sum():
    n = 1000
    x = ti.field(ti.i32, shape=n)
    y = ti.field(ti.i32, shape=n)
    src = ((np.arange(n) * 7919) % 23 - 11).astype(np.int32)
    x.from_numpy(src)

    @ti.kernel
    def prefix_sum():
        y[0] = x[0]
        ti.loop_config(serialize=True)
        for i in range(1, n):
            y[i] = y[i - 1] + x[i]

    prefix_sum()
    np.testing.assert_array_equal(y.to_numpy(), np.cumsum(src))


def test_serialize_ndrange_runs_in_row_major_order():
    x = ti.field(ti.i32, shape=(6, 7))

    @ti.kernel
    def number_cells(a: ti.i32, b: ti.i32):
        c = 0
        ti.loop_config(serialize=True)
        for i, j in ti.ndrange((a, 6), (b, 7)):
            x[i, j] = c
            c += 1  # noqa: SIM113

    number_cells(0, 0)
    np.testing.assert_array_equal(x.to_numpy(), np.arange(42).reshape(6, 7))
    x.fill(-1)
    number_cells(2, 3)
    expect = np.full((6, 7), -1, dtype=np.int32)
    expect[2:, 3:] = np.arange(16).reshape(4, 4)
    np.testing.assert_array_equal(x.to_numpy(), expect)


def test_serialize_applies_to_next_loop_only():
    n = 256
    x = ti.field(ti.i32, shape=n)
    y = ti.field(ti.i32, shape=n)

    @ti.kernel
    def two_loops():
        ti.loop_config(serialize=True)
        for i in range(1, n):
            x[i] = x[i - 1] + 2
        for i in range(n):  # back to a parallel loop: independent iterations only
            y[i] = x[i] * 3

    two_loops()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(n) * 2)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(n) * 6)


def test_serial_loop_with_break_and_return():
    @ti.kernel
    def first_index_over(limit: ti.f32) -> ti.i32:
        r = -1
        acc = 0.0
        ti.loop_config(serialize=True)
        for i in range(1000):
            acc += i * 0.5
            if acc > limit:
                r = i
                break
        return r

    def ref(limit):
        acc = 0.0
        for i in range(1000):
            acc += i * 0.5
            if acc > limit:
                return i
        return -1

    for limit in [-1.0, 0.0, 10.0, 1000.5, 1e9]:
        assert first_index_over(limit) == ref(limit)


def test_parallelize_and_block_dim_accepted():
    n = 1000
    val = ti.field(ti.i32, shape=n)
    s = ti.field(ti.i64, shape=())

    @ti.kernel
    def fill_and_sum():
        ti.loop_config(parallelize=8, block_dim=16)
        for i in range(n):
            val[i] = i * 3 - 1
        ti.loop_config(block_dim=128)
        for i in range(n):
            s[None] += val[i]
        ti.loop_config(parallelize=2)
        for i in val:
            val[i] += 1

    fill_and_sum()
    np.testing.assert_array_equal(val.to_numpy(), np.arange(n) * 3)
    assert s[None] == int((np.arange(n) * 3 - 1).sum())


@pytest.mark.cpu_only(
    reason="parallelize sets CPU threads; CUDA ignores it (as Taichi does), so this "
    "loop-carried chain races there"
)
def test_parallelize_one_is_sequential():
    n = 5000
    y = ti.field(ti.i32, shape=n)

    @ti.kernel
    def chain():
        ti.loop_config(parallelize=1)
        for i in range(1, n):
            y[i] = y[i - 1] + 1

    chain()
    np.testing.assert_array_equal(y.to_numpy(), np.arange(n))


def test_block_dim_accepted():
    if _is_taichi():
        pytest.skip("Taichi 1.7.4 has no ti.block_dim; ti_notebook keeps it for seed 001")
    n = 8192
    x = ti.field(ti.i32, shape=n)

    @ti.kernel
    def func():
        for i in range(n):  # no decorator, use default settings
            x[i] = i

        ti.block_dim(128)  # change the property of next for-loop:
        for i in range(n):  # will be parallelized with block_dim=128
            x[i] += 1

        for i in range(n):  # no decorator, use default settings
            x[i] *= 2

    func()
    np.testing.assert_array_equal(x.to_numpy(), (np.arange(n) + 1) * 2)


def test_cpu_max_num_threads_one():
    ti.init(arch=ti.cpu, cpu_max_num_threads=1)
    n = 10000
    x = ti.field(ti.f32, shape=n)
    s = ti.field(ti.f64, shape=())

    @ti.kernel
    def work():
        for i in x:
            x[i] = i * 0.5
        for i in x:
            s[None] += x[i]

    work()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(n, dtype=np.float32) * 0.5)
    assert s[None] == float((np.arange(n) * 0.5).sum())


def test_cpu_max_num_threads_two():
    ti.init(arch=ti.cpu, cpu_max_num_threads=2)
    n = 4096
    hist = ti.field(ti.i32, shape=4)

    @ti.kernel
    def count():
        for i in range(n):
            hist[i % 4] += 1

    count()
    assert hist.to_numpy().tolist() == [n // 4] * 4


def test_configure_serialize_and_configuration_round_trip():
    x = ti.field(ti.i32, shape=16)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i

    if _is_taichi():
        pytest.skip("Kernel.configure is ti_notebook's own")
    assert fill.configure(serialize=True).report.tasks[-1].kind == "serial"
    assert fill.configuration == {"serialize": True}
    saved = fill.configure(block_dim=8, offline_cache=False).configuration
    assert saved == {"block_dim": 8, "offline_cache": False}
    fill.configure()
    assert fill.configure(**saved).report.tasks[-1].loop_config == {"block_dim": 8}
    fill()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(16))
