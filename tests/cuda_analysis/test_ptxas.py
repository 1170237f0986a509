"""``ti_notebook.cuda_analysis.ptxas``: ptxas's resource report, parsed, cached, and its errors.

The kernels are NVPTX-form LLVM IR turned into PTX by llvmlite (``conftest.py``); the
tests that run ptxas are skipped without it. The parser and the search for ptxas are
tested on their own, with canned logs and fake installations.
"""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from ti_notebook.cuda_analysis import ptxas as ptxas_module
from ti_notebook.cuda_analysis import theoretical_occupancy
from ti_notebook.cuda_analysis.ptxas import (
    find_ptxas,
    kernel_resources,
    parse_ptxas_log,
    ptx_target,
    ptxas_report,
)
from ti_notebook.errors import TiRuntimeError, TiValueError


@pytest.fixture(autouse=True)
def _fresh_cache():
    ptxas_module.clear_cache()
    yield
    ptxas_module.clear_cache()


# ---- with ptxas --------------------------------------------------------------------


@pytest.mark.ptx
@pytest.mark.needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
def test_shared_memory_and_barrier_are_reported(ptx_kernels, arch):
    tile = kernel_resources(ptx_kernels["reverse"], arch)
    assert tile.name == "reverse" and tile.arch == arch
    assert tile.shared_bytes == 256 * 4 and tile.barriers == 1
    assert 0 < tile.registers <= 32 and not tile.spills and tile.stack_frame_bytes == 0
    if arch != "sm_90":  # ptxas prints constant banks before sm_90 only
        assert tile.constant_bytes.get(0, 0) > 0


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_a_kernel_without_shared_memory(ptx_kernels):
    saxpy = kernel_resources(ptx_kernels["saxpy"], "sm_90")
    assert (saxpy.shared_bytes, saxpy.barriers, saxpy.spills) == (0, 0, False)
    assert saxpy.registers > 0


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_named_barriers_are_counted(ptx_kernels):
    assert kernel_resources(ptx_kernels["two_barriers"], "sm_90").barriers == 2


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_stack_frame_and_spills(ptx_kernels):
    local = kernel_resources(ptx_kernels["local_array"], "sm_80")
    assert local.stack_frame_bytes == 64 * 4 and not local.spills
    assert local.cumulative_stack_bytes >= 256
    report = ptxas_report(ptx_kernels["spiller"], "sm_80")
    spiller = report.kernels["spiller"]
    assert spiller.spills and spiller.spill_store_bytes > 0 and spiller.spill_load_bytes > 0
    assert spiller.stack_frame_bytes >= spiller.spill_store_bytes
    # ptxas raises the .maxnreg 16 the IR asked for to its lower bound, and says so
    assert any("spiller" in w and "register count" in w for w in report.warnings)


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_several_entries_and_choosing_one(ptx_kernels):
    both = ptx_kernels["saxpy"] + "\n"  # one PTX file, two kernels: join the bodies
    both = ptx_kernels["reverse"] + both[both.index(".visible .entry") :]
    report = ptxas_report(both, "sm_90")
    assert set(report.kernels) == {"reverse", "saxpy"}
    assert kernel_resources(both, "sm_90", kernel="saxpy").shared_bytes == 0
    with pytest.raises(TiValueError, match="reverse, saxpy|saxpy, reverse"):
        kernel_resources(both, "sm_90")


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_ptxas_errors_carry_its_message(ptx_kernels):
    with pytest.raises(TiRuntimeError) as error:
        ptxas_report(ptx_kernels["needs_expf"], "sm_80")
    assert "Unresolved extern function 'expf'" in str(error.value)
    assert "sm_80" in str(error.value) and "expf" in error.value.ptxas_log
    with pytest.raises(TiRuntimeError, match="Missing .version"):
        ptxas_report("this is not PTX", "sm_90")


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_results_are_cached_by_text_and_arch(ptx_kernels, monkeypatch):
    first = ptxas_report(ptx_kernels["reverse"], "sm_90")
    other_arch = ptxas_report(ptx_kernels["reverse"], "sm_80")
    assert other_arch is not first and other_arch.arch == "sm_80"

    def no_more_runs(*args, **kwargs):
        raise AssertionError("ptxas ran again")

    monkeypatch.setattr(subprocess, "run", no_more_runs)
    assert ptxas_report(ptx_kernels["reverse"], "sm_90") is first
    assert ptxas_report(ptx_kernels["reverse"], 90) is first
    with pytest.raises(AssertionError, match="ran again"):
        ptxas_report(ptx_kernels["reverse"] + "\n", "sm_90")  # other text: another run


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_resources_feed_the_occupancy(ptx_kernels):
    tile = kernel_resources(ptx_kernels["reverse"], "sm_90")
    result = theoretical_occupancy(
        "sm_90",
        block_size=256,
        registers=tile.registers,
        shared_bytes=tile.shared_bytes,
        barriers=tile.barriers,
    )
    assert result.occupancy == 1.0 and result.shared_bytes_per_block == 1024 + 1024


@pytest.mark.ptx
def test_ptx_for_a_newer_arch_is_refused_before_ptxas_runs(ptx_kernels, monkeypatch):
    ptx = ptx_kernels["saxpy_sm90"]
    assert ptx_target(ptx) == "sm_90"
    monkeypatch.setattr(subprocess, "run", None)  # ptxas must not be called
    with pytest.raises(TiValueError, match="targets sm_90") as error:
        ptxas_report(ptx, "sm_80")
    assert "sm_90 or newer" in str(error.value)


# ---- without ptxas -----------------------------------------------------------------

LOG = "\n".join(
    [
        "ptxas warning : For entry spiller adjusting per thread register count of 16 to "
        "lower bound of 24",
        "ptxas info    : 0 bytes gmem",
        "ptxas info    : Compiling entry function 'spiller' for 'sm_80'",
        "ptxas info    : Function properties for spiller",
        "    192 bytes stack frame, 184 bytes spill stores, 208 bytes spill loads",
        "ptxas info    : Used 24 registers, used 0 barriers, 192 bytes cumulative stack size, "
        "360 bytes cmem[0]",
        "ptxas info    : Compile time = 6.370 ms",
        "ptxas info    : Function properties for helper",
        "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads",
        "ptxas info    : Compiling entry function 'tile' for 'sm_80'",
        "ptxas info    : Function properties for tile",
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        "ptxas info    : Used 10 registers, used 3 barriers, 4096 bytes smem, 364 bytes cmem[0], "
        "8 bytes cmem[2]",
        "ptxas info    : Compile time = 1.395 ms",
    ]
)


@pytest.mark.unit
def test_the_parser_reads_every_field():
    report = parse_ptxas_log(LOG, "sm_80")
    assert set(report.kernels) == {"spiller", "tile"}
    spiller, tile = report.kernels["spiller"], report.kernels["tile"]
    assert (spiller.registers, spiller.stack_frame_bytes) == (24, 192)
    assert (spiller.spill_store_bytes, spiller.spill_load_bytes) == (184, 208)
    assert spiller.cumulative_stack_bytes == 192 and spiller.constant_bytes == {0: 360}
    assert spiller.spills and not tile.spills
    assert (tile.registers, tile.barriers, tile.shared_bytes) == (10, 3, 4096)
    assert tile.constant_bytes == {0: 364, 2: 8}
    assert report.device_functions["helper"].spill_store_bytes == 8
    assert report.warnings == (
        "For entry spiller adjusting per thread register count of 16 to lower bound of 24",
    )


@pytest.mark.unit
def test_an_older_log_without_barriers_parses():
    log = (
        "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
        "ptxas info    : Used 8 registers, 352 bytes cmem[0]\n"
    )
    k = parse_ptxas_log(log, "sm_80").kernels["k"]
    assert (k.registers, k.barriers, k.shared_bytes, k.stack_frame_bytes) == (8, 0, 0, 0)


def _fake_ptxas(folder) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "ptxas"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tool)


@pytest.mark.unit
def test_ptxas_is_found_on_path_then_cuda_home_then_the_wheel(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(ptxas_module, "_site_folders", lambda: [site])
    assert find_ptxas() is None

    wheel = _fake_ptxas(site / "nvidia" / "cu13" / "bin")
    assert find_ptxas() == wheel
    home = _fake_ptxas(tmp_path / "toolkit" / "bin")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "toolkit"))
    assert find_ptxas() == home
    on_path = _fake_ptxas(tmp_path / "path")
    monkeypatch.setenv("PATH", str(tmp_path / "path") + os.pathsep + str(empty))
    assert find_ptxas() == on_path


@pytest.mark.unit
def test_without_ptxas_the_error_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(ptxas_module, "find_ptxas", lambda: None)
    with pytest.raises(TiRuntimeError) as error:
        ptxas_report(".version 7.8\n.target sm_80\n", "sm_80")
    assert "ptxas was not found" in str(error.value)
    assert "nvidia-cuda-nvcc" in str(error.value) and "CUDA_HOME" in str(error.value)
