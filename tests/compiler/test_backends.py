"""Backends: capabilities are data the passes decide from, and ``ti.init`` selects one.

A fake second backend here is the CPU backend with another capabilities record (a
GPU-like thread count, no streaming stores) and its own cache folder: the passes and
codegen change their decisions from the record alone, with no language object involved
in the decision, and the driver and the offline cache handle it like any backend.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.cache.compile import compile_cached
from ti_notebook.compiler import backends
from ti_notebook.compiler.backends import backend_for, resolve_arch
from ti_notebook.compiler.backends.base import Backend
from ti_notebook.compiler.backends.cpu import CpuRuntime, CpuTarget
from ti_notebook.compiler.driver import compile_kernel
from ti_notebook.compiler.request import CacheSettings, CompileRequest
from ti_notebook.frontend.kernel_trace import trace_kernel
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import pipeline
from ti_notebook.runtime import devices

pytestmark = pytest.mark.cpu

CELLS = 1 << 18  # a 1 MiB grid of f32: 4 threads' copies fit the budget, 512 do not
PARTICLES = 3 * CELLS  # three adds per grid cell: enough for a private copy to pay


class FakeTarget(CpuTarget):
    """The CPU's code path under another target's capabilities."""

    arch = "fake"
    cache_subdir = "fake"

    def __init__(self, threads: int) -> None:
        super().__init__(threads)
        self.capabilities = dataclasses.replace(
            self.capabilities,
            arch="fake",
            warp_size=32,
            shared_memory_per_block=48 << 10,
            non_temporal_stores=False,
        )


def FakeBackend(threads: int) -> Backend:  # noqa: N802 - it stands for a backend class
    """:class:`FakeTarget` with the CPU's runtime."""
    return Backend(FakeTarget(threads), CpuRuntime())


def _scatter_kernel():
    keys = ti.field(ti.i32, PARTICLES)
    grid = ti.field(ti.f32, CELLS)
    keys.from_numpy(np.arange(PARTICLES, dtype=np.int32) % CELLS)

    def scatter():
        for p in keys:
            grid[keys[p]] += 1.0

    return scatter, grid


def _request(function, backend, cache: CacheSettings | None = None) -> CompileRequest:
    return CompileRequest(
        function.__name__,
        FunctionSource.of(function),
        params=[],
        template_values={},
        return_type=None,
        options=CompileOptions(),
        backend=backend,
        cache=cache or CacheSettings(enabled=False),
    )


def test_the_cpu_backend_states_its_capabilities_as_data():
    caps = backend_for("cpu", 4).capabilities
    assert (caps.arch, caps.threads, caps.warp_size, caps.shared_memory_per_block) == (
        "cpu",
        4,
        1,
        0,
    )
    assert caps.vector_width in (16, 32, 64) and caps.non_temporal_stores
    with pytest.raises(dataclasses.FrozenInstanceError):
        caps.threads = 8
    assert CpuTarget.stage_names == ("asm",) and CpuTarget.cache_subdir == "cpu"


def test_a_thread_count_changes_privatize_scatters_decision():
    scatter, _grid = _scatter_kernel()
    decisions = {}
    for threads in (4, 512):
        kernel, _inputs = trace_kernel(_request(scatter, FakeBackend(threads)))
        caps = FakeBackend(threads).capabilities
        pipeline.run(kernel, CompileOptions(), caps)
        decisions[threads] = [entry["fields"] for entry in kernel.report["privatized"]]
    assert decisions == {4: [["grid"]], 512: []}


def test_the_fake_backend_compiles_and_runs_through_the_driver():
    scatter, grid = _scatter_kernel()
    compiled, stages, _inputs = compile_kernel(_request(scatter, FakeBackend(512)))
    assert stages["report"].privatized == ()  # 512 copies of 1 MiB: over the budget
    assert "i32 512)" in stages["llvm"]  # the pool call asks for the backend's threads
    compiled.launch([])
    np.testing.assert_array_equal(grid.to_numpy(), np.full(CELLS, 3.0, np.float32))


def test_streaming_stores_follow_the_capability():
    big = ti.field(ti.f32, 1 << 24)  # 64 MiB, reserved lazily: compiled, never written

    def fill():
        for i in big:
            big[i] = 1.0

    marked = {}
    for backend in (backend_for("cpu", 4), FakeBackend(4)):
        kernel, _inputs = trace_kernel(_request(fill, backend))
        pipeline.run(kernel, CompileOptions(), backend.capabilities)
        stores = [s for s in kernel.block.walk() if isinstance(s, ir.GlobalStoreStmt)]
        marked[backend.arch] = any(s.nontemporal for s in stores)
    assert marked == {"cpu": True, "fake": False}


def test_each_backend_caches_in_its_own_folder(tmp_path):
    def answer():
        pass

    settings = CacheSettings(path=str(tmp_path))
    first = compile_cached(_request(answer, FakeBackend(2), settings))
    again = compile_cached(_request(answer, FakeBackend(2), settings))
    assert (first[1]["report"]["cache"], again[1]["report"]["cache"]) == ("miss", "hit")
    assert any((tmp_path / "fake").glob("*.tic")) and not (tmp_path / "cpu").exists()


@pytest.mark.parametrize("arch", ["cuda", "gpu"])
def test_cuda_without_a_device_falls_back_warning_once_with_the_reason(arch, monkeypatch):
    reason = f"no CUDA device (test reason for {arch})"
    monkeypatch.setattr(devices, "cuda_unavailable_reason", lambda: reason)
    monkeypatch.setattr(backends, "_warned", set())
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ti.init(arch=getattr(ti, arch))
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        if _ == 0:
            assert len(messages) == 1 and reason in messages[0] and "using ti.cpu" in messages[0]
            assert "cuda_sim=True" in messages[0]  # says what runs CUDA code here
        else:
            assert messages == []  # once per process
        assert ti.current_arch() == "cpu" and ti.is_initialized()


def test_cuda_sim_selects_the_cuda_backend_on_the_emulator(monkeypatch):
    monkeypatch.setattr(devices, "cuda_unavailable_reason", lambda: "no CUDA device (test)")
    ti.init(arch=ti.cuda, cuda_sim=True)
    assert ti.current_arch() == "cuda" and ti.session.config.current().cuda_sim
    assert ti.session.config.current().backend().cache_subdir == "cuda-sim-sm_80"
    monkeypatch.setenv("TI_CUDA_SIM", "1")
    ti.init(arch=ti.gpu)
    assert ti.current_arch() == "cuda" and ti.session.config.current().cuda_sim
    ti.init(arch=ti.cpu)  # TI_CUDA_SIM only matters for CUDA
    assert ti.current_arch() == "cpu" and not ti.session.config.current().cuda_sim


@pytest.mark.parametrize("arch", ["vulkan", "metal", "opengl"])
def test_an_arch_without_backend_falls_back_with_one_warning(arch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ti.init(arch=getattr(ti, arch))
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "using ti.cpu" in messages[0], messages
    assert ti.current_arch() == "cpu" and ti.is_initialized()


def test_cpu_aliases_resolve_silently_and_unknown_archs_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [resolve_arch(a) for a in ("cpu", "x64", "arm64")] == ["cpu"] * 3
    with pytest.raises(ti.errors.TiValueError, match="unknown arch"):
        resolve_arch("tpu")


def test_public_session_queries():
    ti.reset()
    assert not ti.is_initialized()
    ti.init(arch=ti.cpu, default_fp=ti.f64, cpu_max_num_threads=2)
    assert ti.is_initialized() and ti.current_arch() == "cpu"
    options = ti.init_options()
    assert options["default_fp"] is ti.f64 and "arch" not in options
    ti.init(arch=ti.x64, **options)  # the same session's options, another (alias) arch
    assert ti.session.config.current().cpu_max_num_threads == 2
