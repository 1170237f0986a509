"""%%kernel options: --show, --no-cache, --parallelize, --block-dim, --arch.

``--profile`` has its own file, test_profile_view.py."""

import re

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

SUM = """%%kernel {flags}
x = ti.field(ti.f32, shape=256)
def total() -> ti.f32:
    s = 0.0
    for i in x:
        s += x[i]
    return s
"""


def _cell(flags: str = "") -> str:
    return SUM.format(flags=flags)


KERNEL_ONLY = """%%kernel {flags}
def total() -> ti.f32:
    s = 0.0
    for i in x:
        s += x[i]
    return s
"""


@pytest.fixture
def cache_dir(tmp_path, run):
    """An offline cache of the test's own; ``x`` made once, so the kernel's key is stable."""
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    run("x = ti.field(ti.f32, shape=256)")
    return tmp_path


def _kernel_cell(flags: str = "") -> str:
    return KERNEL_ONLY.format(flags=flags)


def test_show_renders_highlighted_html_and_plain_text(run):
    cell = run(_cell("--show ir --show llvm_optimized --show report-json"))
    assert cell.result.success, cell.stdout
    assert len(cell.outputs) == 3
    ir_out, llvm_out, report_out = cell.outputs
    for bundle in cell.outputs:
        assert set(bundle) == {"text/html", "text/plain"}
        assert "<span style=" in bundle["text/html"]  # pygments, inline styles
    assert "struct_for x" in ir_out["text/plain"]
    assert "total" in ir_out["text/html"] and "ir" in ir_out["text/html"]
    assert "define" in llvm_out["text/plain"]
    assert '"tasks"' in report_out["text/plain"] and '"passes"' in report_out["text/plain"]


@pytest.mark.parametrize("stage", ["ast", "ir_optimized", "llvm", "asm"])
def test_show_each_stage(run, stage):
    cell = run(_cell(f"--quiet --show {stage}"))
    assert len(cell.outputs) == 1
    plain = cell.outputs[0]["text/plain"]
    expected = {"ast": "FunctionDef", "ir_optimized": "offloaded", "llvm": "define", "asm": "ret"}
    assert expected[stage] in plain


def test_show_ptx_on_cpu_compiles_the_kernel_for_cuda_too(run):
    cell = run(_cell("--quiet --show ptx"))
    assert cell.result.success
    (bundle,) = cell.outputs
    text = bundle["text/plain"]
    assert text.startswith("--- total · ptx ---") and ".entry" in text


def test_cache_miss_then_hit(run, cache_dir):
    first = run(_kernel_cell())
    assert "(cache miss)" in first.stdout, first.stdout
    again = run(_kernel_cell())
    assert re.match(r"total: loaded in \d+\.\d ms \(cache hit\)", again.stdout), again.stdout


def test_no_cache_compiles_without_the_offline_cache(shell, run, cache_dir):
    run(_kernel_cell())
    cell = run(_kernel_cell("--no-cache"))
    assert "(cache off)" in cell.stdout
    assert shell.user_ns["total"].report["cache"] == "off"
    assert "(cache hit)" in run(_kernel_cell()).stdout  # other cells still use the cache


def test_parallelize_and_block_dim_become_loop_defaults(shell, run):
    cell = run(_cell("--parallelize 2 --block-dim 32"))
    assert "cells of x (dense 256) [block_dim=32, parallelize=2]" in cell.stdout, cell.stdout
    tasks = shell.user_ns["total"].report["tasks"]
    assert tasks[1]["loop_config"] == {"block_dim": 32, "parallelize": 2}
    run("x.fill(1.0)")
    assert run("total()").result.result == 256.0


def test_loop_config_in_the_kernel_wins_over_the_cell_default(shell, run):
    code = _cell("--parallelize 2 --block-dim 32").replace(
        "    for i in x:", "    ti.loop_config(block_dim=8)\n    for i in x:"
    )
    run(code)
    config = shell.user_ns["total"].report["tasks"][1]["loop_config"]
    assert config == {"block_dim": 8, "parallelize": 2}


def test_loop_defaults_are_part_of_the_cache_key(shell, run, cache_dir):
    assert "(cache miss)" in run(_kernel_cell()).stdout
    cell = run(_kernel_cell("--parallelize 2"))
    assert "(cache miss)" in cell.stdout
    assert "parallelize=2" in cell.stdout
    plain = run(_kernel_cell())
    assert "(cache hit)" in plain.stdout
    assert "parallelize" not in plain.stdout


def test_kernel_configure_is_public_and_validated():
    x = ti.field(ti.i32, shape=16)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i

    assert fill.configure(parallelize=3).report["tasks"][-1]["loop_config"] == {"parallelize": 3}
    fill()
    assert x.to_numpy().tolist() == list(range(16))
    assert fill.configure().report["tasks"][-1]["loop_config"] == {}
    with pytest.raises(ti.errors.TiValueError):
        fill.configure(block_dim=0)


def test_arch_cuda_falls_back_to_cpu_with_a_warning(shell, run, monkeypatch):
    from ti_notebook.runtime import devices

    monkeypatch.setattr(devices, "cuda_unavailable_reason", lambda: "no CUDA device (cell test)")
    run("%%kernel\nkeep = ti.field(ti.i32, shape=2)\n")
    cell = run(_cell("--arch cuda"))
    assert cell.result.success, cell.stdout
    assert "warning:" in cell.stderr
    assert "using ti.cpu" in cell.stderr or "the cell runs on the CPU" in cell.stderr
    assert ti.session.config.current().arch == "cpu"
    assert cell.stdout.startswith("total: compiled")
    run("keep[1] = 5")  # same arch: no new session, earlier fields live on
    assert shell.user_ns["keep"][1] == 5
    assert "warning:" in run(_cell("--arch cuda")).stderr  # every time, not once


def test_arch_cpu_keeps_the_session(shell, run):
    run("%%kernel\nkeep = ti.field(ti.i32, shape=2)\n")
    cell = run(_cell("--arch cpu"))
    assert cell.stderr == ""
    run("keep[0] = 1")
    assert shell.user_ns["keep"][0] == 1
