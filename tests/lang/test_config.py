"""ti.init options, ti.reset, ti.gpu's fallback and the environment variables."""

import warnings

import pytest

import ti_notebook as ti
from ti_notebook.runtime import devices
from ti_notebook.session import config

pytestmark = pytest.mark.cpu


def test_documented_options_are_accepted_and_stored(tmp_path):
    ti.init(
        arch=ti.cpu,
        default_fp=ti.f64,
        default_ip=ti.i64,
        debug=True,
        kernel_profiler=True,
        offline_cache=False,
        offline_cache_file_path=str(tmp_path),
        offline_cache_max_size_of_files=1024,
        offline_cache_cleaning_policy="lru",
        make_thread_local=False,
        make_block_local=False,
        cpu_max_num_threads=1,
    )
    cfg = config.current()
    assert (cfg.default_fp, cfg.default_ip) == (ti.f64, ti.i64)
    assert cfg.debug and cfg.kernel_profiler and not cfg.offline_cache
    assert cfg.offline_cache_file_path == str(tmp_path)
    assert cfg.offline_cache_cleaning_policy == "lru"
    assert not cfg.make_thread_local and not cfg.make_block_local
    assert cfg.num_threads == 1


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="no_such_option"):
        ti.init(arch=ti.cpu, no_such_option=1)
    ti.init(arch=ti.cpu)  # and the process goes on


@pytest.mark.skipif(devices.cuda_available(), reason="a CUDA device is present")
@pytest.mark.cpu_only(reason="TI_CUDA_SIM=1 makes arch=gpu the emulator, not the CPU fallback")
def test_gpu_falls_back_to_cpu_with_one_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ti.init(arch=ti.gpu)
    assert config.current().arch == "cpu"
    messages = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "CPU" in str(messages[0].message).upper()

    @ti.kernel
    def seven() -> ti.i32:
        return 7

    assert seven() == 7


def test_ti_arch_environment_variable(monkeypatch):
    monkeypatch.setenv("TI_ARCH", "cpu")
    ti.init(arch=ti.gpu)
    assert config.current().arch == "cpu"


def test_ti_offline_cache_environment_variable(monkeypatch):
    monkeypatch.setenv("TI_OFFLINE_CACHE", "0")
    ti.init(arch=ti.cpu)
    assert config.current().offline_cache is False


def test_reset_frees_fields_and_recompiles_kernels():
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def answer() -> ti.i32:
        return 42

    assert answer() == 42
    ti.reset()
    with pytest.raises(RuntimeError, match="destroyed"):
        x[0]
    ti.init(arch=ti.cpu, default_ip=ti.i64)
    assert answer() == 42
    assert "i64" in answer.stages()["ir"]


@pytest.mark.cpu_only(reason="checks the CPU thread pool's call in the CPU's LLVM IR")
def test_parallelize_and_max_threads_reach_the_pool_call():
    ti.init(arch=ti.cpu, cpu_max_num_threads=1)
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i

    fill()
    assert x.to_numpy().tolist() == list(range(64))
    llvm = fill.stages()["llvm"]
    assert "tin_parallel_for" in llvm and "i32 1)" in llvm

    ti.init(arch=ti.cpu)
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def fill_two(n: ti.i32):
        ti.loop_config(parallelize=2, block_dim=8)
        for i in range(n):
            x[i] = 2 * i

    fill_two(64)
    assert x.to_numpy().tolist() == [2 * i for i in range(64)]
    llvm = fill_two.stages()["llvm"]
    assert "i64 8, i32" in llvm
