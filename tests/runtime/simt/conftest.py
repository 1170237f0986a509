"""Fixtures of the SIMT emulator's tests: the two forms of test IR, and libdevice."""

import glob
import os

import llvmlite.binding as llvm
import pytest
import simt_nvptx


@pytest.fixture(params=["as_written", "nvptx_o3"])
def nvptx_form(request):
    """Turns test IR into the form under test: as written, or after NVPTX's O3 pipeline
    (what the CUDA backend hands over: inlined, address spaces inferred)."""
    if request.param == "as_written":
        return lambda ir: ir
    return simt_nvptx.optimize_o3


def _libdevice_path() -> str | None:
    roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
    roots += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for root in filter(None, roots):
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.exists(path):
            return path
    return None


@pytest.fixture
def link_libdevice():
    """Links libdevice into test IR as the CUDA backend does (non-kernels internal, the
    nvvm-reflect-ftz flag set); skips without a CUDA toolkit's libdevice."""
    path = _libdevice_path()
    if path is None:
        pytest.skip("libdevice.10.bc not found (set CUDA_HOME)")

    def link(ir: str, kernels: tuple[str, ...]) -> str:
        module = simt_nvptx.parse(ir)
        with open(path, "rb") as f:
            library = llvm.parse_bitcode(f.read())
        library.triple = module.triple
        library.data_layout = module.data_layout
        module.link_in(library)
        for fn in module.functions:
            if not fn.is_declaration and fn.name not in kernels:
                fn.linkage = llvm.Linkage.internal
        flag = '\n!llvm.module.flags = !{!900}\n!900 = !{i32 4, !"nvvm-reflect-ftz", i32 0}\n'
        return str(module) + flag

    return link


@pytest.fixture
def libdevice_text():
    """libdevice as LLVM IR text; skips without it."""
    path = _libdevice_path()
    if path is None:
        pytest.skip("libdevice.10.bc not found (set CUDA_HOME)")
    with open(path, "rb") as f:
        return str(llvm.parse_bitcode(f.read()))
