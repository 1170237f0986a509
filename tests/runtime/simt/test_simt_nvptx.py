"""The emulator's test IR is real NVPTX IR: llvmlite's NVPTX target turns it into PTX
that ptxas accepts (and refuses what a GPU refuses). libdevice's inline PTX is all known
to the emulator."""

import re

import pytest
import simt_error_kernels as bad
import simt_kernels as kernels
import simt_nvptx
import simt_warp_kernels as warp_kernels

from ti_notebook.runtime.simt.ptx_asm import asm_body

VALID_MODULES = {
    "saxpy": kernels.SAXPY,
    "reduction": kernels.REDUCTION,
    "stencil": kernels.STENCIL,
    "atomics": kernels.ATOMICS,
    "dynamic_shared": kernels.DYNAMIC_SHARED,
    "warp_ops": warp_kernels.WARP_OPS,
    "indices": warp_kernels.INDICES,
    "early_exit": warp_kernels.EARLY_EXIT,
    "printf": warp_kernels.PRINTF,
    "divergent_shuffle": bad.DIVERGENT_SHUFFLE,
    "shuffle_from_exited": bad.SHUFFLE_FROM_EXITED,
    "half_mask": bad.HALF_MASK,
    "named_barrier": bad.NAMED_BARRIER,
    "traps": bad.TRAPS,
    "unknown_intrinsic": bad.UNKNOWN_INTRINSIC,
}


@pytest.mark.ptx
@pytest.mark.needs_ptxas
@pytest.mark.parametrize("name", sorted(VALID_MODULES))
@pytest.mark.parametrize("form", ["as_written", "nvptx_o3"])
def test_test_modules_are_valid_ptx(name, form):
    ir = VALID_MODULES[name]
    if form == "nvptx_o3":
        ir = simt_nvptx.optimize_o3(ir)
    result = simt_nvptx.ptxas(simt_nvptx.to_ptx(ir))
    assert result.returncode == 0, result.stderr


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_ptxas_refuses_the_static_shared_memory_the_emulator_refuses():
    result = simt_nvptx.ptxas(simt_nvptx.to_ptx(bad.TOO_MUCH_SHARED))
    assert result.returncode != 0
    assert "too much shared data" in result.stderr


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_libdevice_math_module_is_valid_ptx(link_libdevice):
    ir = link_libdevice(warp_kernels.MATH, ("math", "sin_f64"))
    result = simt_nvptx.ptxas(simt_nvptx.to_ptx(simt_nvptx.optimize_o3(ir)))
    assert result.returncode == 0, result.stderr


_ASM_CALL = re.compile(r'asm (?:sideeffect )?"((?:[^"\\]|\\.)*)", "([^"]*)"')


@pytest.mark.cpu
def test_every_inline_asm_of_libdevice_has_a_cpu_version(libdevice_text):
    snippets = set(_ASM_CALL.findall(libdevice_text))
    assert len(snippets) >= 10
    missing = [asm for asm, constraints in snippets if asm_body(asm, constraints) is None]
    assert missing == []
