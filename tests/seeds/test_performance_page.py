# ruff: noqa: B007  (the verbatim examples have loops with unused indices)
"""The code examples of the performance-tuning page, verbatim except for the import
(``import ti_notebook as ti``) and the enclosing test function.

Sources: /work/shared/seeds/000_da46e1901cc129c4.txt (Taichi docs v1.3.0, the
``ti.loop_config`` examples and the TLS ``sum`` reduction) and
/work/shared/seeds/001_dccf38e4755dca17.txt (the older page with ``ti.block_dim(128)``).
Checked against real Taichi 1.7.4, which no longer has ``ti.block_dim``: those tests skip
there.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _is_taichi() -> bool:
    """True when ``ti_notebook`` is the test shim that re-exports real Taichi."""
    return ti.kernel.__module__.split(".")[0] == "taichi"


# --------------------------------------------------------------------------------------
# Seed 000: ti.loop_config
# --------------------------------------------------------------------------------------


def test_break_in_serial_for():
    @ti.kernel
    def break_in_serial_for() -> ti.i32:
        a = 0
        ti.loop_config(serialize=True)
        for i in range(100):  # This loop runs serially
            a += i
            if i == 10:
                break
        return a

    assert break_in_serial_for() == 55  # returns 55
    assert break_in_serial_for() == 55


def test_fill_with_parallelize_and_block_dim():
    n = 128
    val = ti.field(ti.i32, shape=n)

    @ti.kernel
    def fill():
        ti.loop_config(parallelize=8, block_dim=16)
        # If the kernel is run on the CPU backend, 8 threads will be used to run it
        # If the kernel is run on the CUDA backend, each block will have 16 threads.
        for i in range(n):
            val[i] = i

    fill()
    np.testing.assert_array_equal(val.to_numpy(), np.arange(n, dtype=np.int32))


# --------------------------------------------------------------------------------------
# Seeds 000 and 001: the thread-local-storage reduction
# --------------------------------------------------------------------------------------


def test_tls_sum_reduction():
    x = ti.field(ti.f32, shape=1000000)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def sum():
        for i in x:
            s[None] += x[i]

    sum()
    assert s[None] == 0.0  # fields start zeroed

    data = np.random.default_rng(1).random(1000000, dtype=np.float32)
    x.from_numpy(data)
    s[None] = 0.0
    sum()
    expect = float(data.astype(np.float64).sum())
    assert s[None] == pytest.approx(expect, rel=1e-4)

    # exactly representable partial sums: the result is exact whatever the order
    x.fill(0.5)
    s[None] = 0.0
    sum()
    assert s[None] == 500000.0


# --------------------------------------------------------------------------------------
# Seed 001: ti.block_dim
# --------------------------------------------------------------------------------------


def test_block_dim_verbatim():
    if _is_taichi():
        pytest.skip("Taichi 1.7.4 has no ti.block_dim; ti_notebook keeps it for seed 001")

    # fmt: off
    @ti.kernel
    def func():
        for i in range(8192):  # no decorator, use default settings
            ...

        ti.block_dim(128)      # change the property of next for-loop:
        for i in range(8192):  # will be parallelized with block_dim=128
            ...

        for i in range(8192):  # no decorator, use default settings
            ...
    # fmt: on

    func()


def test_block_dim_with_bodies():
    if _is_taichi():
        pytest.skip("Taichi 1.7.4 has no ti.block_dim; ti_notebook keeps it for seed 001")
    x = ti.field(ti.f32, shape=8192)

    @ti.kernel
    def func():
        for i in range(8192):  # no decorator, use default settings
            x[i] = i

        ti.block_dim(128)  # change the property of next for-loop:
        for i in range(8192):  # will be parallelized with block_dim=128
            x[i] = x[i] * 2

        for i in range(8192):  # no decorator, use default settings
            x[i] += 1

    func()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(8192, dtype=np.float32) * 2 + 1)


def test_offline_cache_options_of_the_page(tmp_path, monkeypatch):
    # "offline_cache ... offline_cache_file_path ... offline_cache_max_size_of_files ...
    # offline_cache_cleaning_policy: 'never' 'version' 'lru' 'fifo'. Default: 'lru'"
    ti.init(
        arch=ti.cpu,
        offline_cache=True,
        offline_cache_file_path=str(tmp_path),
        offline_cache_max_size_of_files=100 * 1024 * 1024,
        offline_cache_cleaning_policy="lru",
    )
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i

    fill()
    assert ti.cache.info()["path"] == str(tmp_path)
    assert any(e["kernel"] == "fill" for e in ti.cache.info()["entries"])
    assert ti.session.config.current().offline_cache_cleaning_policy == "lru"
    ti.init(arch=ti.cpu)
    assert ti.session.config.current().offline_cache_cleaning_policy == "lru"  # the default
    with pytest.raises(ValueError, match="never, version, lru, fifo"):
        ti.init(arch=ti.cpu, offline_cache_cleaning_policy="sometimes")
    # "disable offline cache by setting the environment variable TI_OFFLINE_CACHE=0"
    monkeypatch.setenv("TI_OFFLINE_CACHE", "0")
    ti.init(arch=ti.cpu)
    assert ti.cache.info()["enabled"] is False
