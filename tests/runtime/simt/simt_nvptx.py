"""NVPTX helpers for the emulator's tests: optimise test IR as the CUDA backend would
(llvmlite's NVPTX target, new pass manager at O3), emit PTX and check it with ptxas."""

import os
import shutil
import subprocess
import tempfile

import llvmlite.binding as llvm

TRIPLE = "nvptx64-nvidia-cuda"
_machine = None


def target_machine(cpu: str = "sm_80") -> llvm.TargetMachine:
    global _machine
    if _machine is None:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        target = llvm.Target.from_triple(TRIPLE)
        _machine = target.create_target_machine(cpu=cpu, features="+ptx78", opt=3)
    return _machine


def parse(ir: str) -> llvm.ModuleRef:
    module = llvm.parse_assembly(ir)
    module.triple = TRIPLE
    module.data_layout = str(target_machine().target_data)
    module.verify()
    return module


def optimize_o3(ir: str) -> str:
    """The module after NVPTX's O3 pipeline, as text."""
    module = parse(ir)
    options = llvm.create_pipeline_tuning_options(speed_level=3)
    builder = llvm.create_pass_builder(target_machine(), options)
    builder.getModulePassManager().run(module, builder)
    return str(module)


def to_ptx(ir: str) -> str:
    return target_machine().emit_assembly(parse(ir))


def ptxas(ptx: str, arch: str = "sm_80") -> subprocess.CompletedProcess:
    """Runs ``ptxas -arch=<arch>`` on ``ptx``; the result's returncode and stderr."""
    assert shutil.which("ptxas"), "ptxas is not on PATH"
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "kernel.ptx")
        with open(source, "w") as f:
            f.write(ptx)
        return subprocess.run(
            ["ptxas", f"-arch={arch}", "-o", os.path.join(tmp, "kernel.cubin"), source],
            capture_output=True,
            text=True,
            timeout=120,
        )
