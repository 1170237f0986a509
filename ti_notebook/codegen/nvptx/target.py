"""The NVPTX target: its target machine, libdevice, and LLVM IR → optimised IR → PTX.

The target machine is made once per compute capability (``sm_80``, ``sm_90``...), with
PTX ISA 7.8 (``+ptx78``: loadable by every driver from CUDA 11.8 on). Transcendental
math calls libdevice's ``__nv_*`` functions (``codegen/nvptx/device_math.py``): a module that
calls any is linked with the part of libdevice those functions need (the bitcode is
parsed once per process, and the part for a set of functions cut out once: a kernel's
compile then costs tens of ms more, not 150), then everything but the kernels becomes
internal, and the O3 pipeline resolves ``__nvvm_reflect`` from the module flag
``nvvm-reflect-ftz``.

    >>> TRIPLE
    'nvptx64-nvidia-cuda'
    >>> "i64:64" in data_layout("sm_90")
    True
    >>> find_libdevice() is None or find_libdevice().endswith("libdevice.10.bc")
    True
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import shutil
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import llvmlite.binding as llvm

TRIPLE = "nvptx64-nvidia-cuda"
PTX_FEATURES = "+ptx78"
_LIBDEVICE = Path("nvvm", "libdevice", "libdevice.10.bc")
_CALLS_LIBDEVICE = re.compile(r'@"?(__nv_\w+)')
_lock = threading.Lock()


@functools.cache
def _initialised() -> bool:
    # llvm.initialize() raises in llvmlite 0.50; these two are what NVPTX needs
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return True


@functools.cache
def target_machine(compute_capability: str) -> llvm.TargetMachine:
    """The NVPTX target machine for ``compute_capability`` (``"sm_90"``), at O3."""
    _initialised()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=compute_capability, features=PTX_FEATURES, opt=3)


def data_layout(compute_capability: str) -> str:
    """The target's data layout, as LLVM states it (never hard-coded)."""
    return str(target_machine(compute_capability).target_data)


# -- libdevice -------------------------------------------------------------------------
def _candidate_toolkits() -> list[Path]:
    roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
    ptxas = shutil.which("ptxas")
    if ptxas is not None:  # <toolkit>/bin/ptxas
        roots.append(str(Path(ptxas).resolve().parent.parent))
    roots.append("/usr/local/cuda")
    spec = importlib.util.find_spec("nvidia")  # the nvidia-nvvm / nvidia-cuda-nvcc wheels
    for location in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cuda_nvcc", "nvvm", "cu13", "cu12", ""):
            roots.append(str(Path(location, sub)))
    return [Path(root) for root in roots if root]


@functools.cache
def find_libdevice() -> str | None:
    """The path of ``libdevice.10.bc``: from ``CUDA_HOME``/``CUDA_PATH``, the toolkit of
    the ``ptxas`` on PATH, ``/usr/local/cuda`` or an NVIDIA wheel; None when none has it."""
    for root in _candidate_toolkits():
        for path in (root / _LIBDEVICE, root.parent / _LIBDEVICE):
            if path.is_file():
                return str(path)
    return None


@functools.cache
def _libdevice_module(path: str, compute_capability: str) -> llvm.ModuleRef:
    """libdevice parsed once per process (~35 ms); subsets are cut from copies of it."""
    module = llvm.parse_bitcode(Path(path).read_bytes())
    module.triple = TRIPLE  # it says nvptx64-nvidia-gpulibs
    module.data_layout = data_layout(compute_capability)
    return module


@functools.lru_cache(maxsize=64)
def _libdevice_subset(path: str, compute_capability: str, names: frozenset) -> llvm.ModuleRef:
    """The part of libdevice that ``names`` need (what they call, transitively): a
    link of the whole library costs ~50 ms, and checking and optimising it more."""
    module = _libdevice_module(path, compute_capability).clone()
    for function in module.functions:
        if not function.is_declaration:
            public = function.name in names
            function.linkage = llvm.Linkage.external if public else llvm.Linkage.internal
    _drop_unused(module, compute_capability)
    return module


def _drop_unused(module: llvm.ModuleRef, compute_capability: str) -> None:
    options = llvm.create_pipeline_tuning_options(speed_level=0)
    builder = llvm.create_pass_builder(target_machine(compute_capability), options)
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.run(module, builder)


# -- compiling -------------------------------------------------------------------------
def _untimed(name: str) -> AbstractContextManager:
    return contextlib.nullcontext()


def compile_module(
    module_text: str,
    compute_capability: str,
    kernels: list[str],
    stage: Callable[[str], AbstractContextManager] = _untimed,
) -> tuple[str, str]:
    """Parses, links libdevice when the module calls it, optimises at O3 and emits PTX:
    returns (optimised IR, PTX). ``kernels`` are the symbols that stay external;
    ``stage(name)`` times each step (the compile driver's clock, given by the backend)."""
    with _lock:  # one LLVM context; llvmlite's binding is not meant for concurrent use
        tm = target_machine(compute_capability)
        with stage("llvm_parse"):
            module = llvm.parse_assembly(module_text)
            module.triple = TRIPLE
            module.data_layout = str(tm.target_data)
            module.verify()
        called = frozenset(_CALLS_LIBDEVICE.findall(module_text))
        path = find_libdevice()
        if called and path is not None:
            module.link_in(_libdevice_subset(path, compute_capability, called), preserve=True)
            keep = set(kernels)
            for function in module.functions:
                if not function.is_declaration and function.name not in keep:
                    function.linkage = llvm.Linkage.internal
        options = llvm.create_pipeline_tuning_options(speed_level=3)
        # A thread runs one iteration at a time, as Taichi's CUDA pipeline has it; and
        # LLVM 22's loop vectorizer aborts the process (an assertion: "VPlan cost model
        # and legacy cost model disagreed") on an f16 min/max reduction loop for NVPTX.
        options.loop_vectorization = False
        with stage("llvm_optimise"):
            builder = llvm.create_pass_builder(tm, options)
            builder.getModulePassManager().run(module, builder)
        with stage("machine_code"):
            return str(module), tm.emit_assembly(module)


def ptx_of(optimized_text: str, compute_capability: str) -> str:
    """PTX of an already optimised module (a cached kernel's stage, made on demand)."""
    with _lock:
        tm = target_machine(compute_capability)
        module = llvm.parse_assembly(optimized_text)
        module.triple = TRIPLE
        module.data_layout = str(tm.target_data)
        return tm.emit_assembly(module)
