"""Small NVPTX-form LLVM IR kernels, turned into PTX with llvmlite, for the gpu tests."""

from __future__ import annotations

import pytest

SHARED_TILE = """
@tile = internal addrspace(3) global [256 x float] zeroinitializer, align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

; a block reverses 256 floats through shared memory: 1 KB of smem, one barrier
define ptx_kernel void @reverse(ptr addrspace(1) %a) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ti = zext i32 %t to i64
  %p = getelementptr float, ptr addrspace(1) %a, i64 %ti
  %v = load float, ptr addrspace(1) %p
  %s = getelementptr [256 x float], ptr addrspace(3) @tile, i64 0, i64 %ti
  store float %v, ptr addrspace(3) %s
  call void @llvm.nvvm.barrier0()
  %r = sub i64 255, %ti
  %s2 = getelementptr [256 x float], ptr addrspace(3) @tile, i64 0, i64 %r
  %w = load float, ptr addrspace(3) %s2
  store float %w, ptr addrspace(1) %p
  ret void
}
"""

SAXPY = """
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @saxpy(ptr addrspace(1) %x, ptr addrspace(1) %y, float %a) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ti = zext i32 %t to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %ti
  %py = getelementptr float, ptr addrspace(1) %y, i64 %ti
  %vx = load float, ptr addrspace(1) %px
  %vy = load float, ptr addrspace(1) %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr addrspace(1) %py
  ret void
}
"""

TWO_BARRIERS = """
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @two_barriers() {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 1)
  ret void
}
"""

LOCAL_ARRAY = """
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; a 64-float array indexed at run time lives in local memory: a 256-byte stack frame
define ptx_kernel void @local_array(ptr addrspace(1) %a, i32 %n) {
entry:
  %buf = alloca [64 x float], align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = and i32 %t, 63
  %q = getelementptr [64 x float], ptr %buf, i32 0, i32 %i
  store volatile float 1.0, ptr %q
  %j = and i32 %n, 63
  %q2 = getelementptr [64 x float], ptr %buf, i32 0, i32 %j
  %v = load volatile float, ptr %q2
  store float %v, ptr addrspace(1) %a
  ret void
}
"""

UNRESOLVED_EXPF = """
declare float @expf(float)

define ptx_kernel void @needs_expf(ptr addrspace(1) %a) {
  %v = load float, ptr addrspace(1) %a
  %w = call float @expf(float %v)
  store float %w, ptr addrspace(1) %a
  ret void
}
"""


def _spiller(live_values: int = 40) -> str:
    """``live_values`` loads kept alive at once under ``.maxnreg 16``: ptxas spills."""
    n = live_values
    loads = [
        f"  %p{i} = getelementptr float, ptr addrspace(1) %a, i64 {i * 1024}\n"
        f"  %v{i} = load volatile float, ptr addrspace(1) %p{i}"
        for i in range(n)
    ]
    products = [f"  %s0 = fadd float %v0, %v{n - 1}"]
    products += [f"  %s{i} = fmul float %s{i - 1}, %v{i}" for i in range(1, n)]
    stores = [f"  store volatile float %v{i}, ptr addrspace(1) %p{(i + 1) % n}" for i in range(n)]
    body = "\n".join([*loads, *products, *stores])
    return f"""
define ptx_kernel void @spiller(ptr addrspace(1) %a) #0 {{
entry:
{body}
  store float %s{n - 1}, ptr addrspace(1) %a
  ret void
}}
attributes #0 = {{ "nvvm.maxnreg"="16" }}
"""


SPILLER = _spiller()


def nvptx(ir: str, arch: str = "sm_80") -> str:
    """PTX text for NVPTX-form LLVM IR (triple nvptx64-nvidia-cuda, +ptx78), at O3."""
    llvm = pytest.importorskip("llvmlite.binding")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu=arch, features="+ptx78", opt=3)
    module = llvm.parse_assembly('target triple = "nvptx64-nvidia-cuda"\n' + ir)
    module.data_layout = str(machine.target_data)
    module.verify()
    return machine.emit_assembly(module)


@pytest.fixture(scope="session")
def ptx_kernels() -> dict[str, str]:
    """PTX of each kernel above, for sm_80 so that every arch's ptxas accepts it (and
    ``saxpy_sm90``, for sm_90)."""
    sources = {
        "reverse": SHARED_TILE,
        "saxpy": SAXPY,
        "two_barriers": TWO_BARRIERS,
        "local_array": LOCAL_ARRAY,
        "spiller": SPILLER,
        "needs_expf": UNRESOLVED_EXPF,
    }
    kernels = {name: nvptx(ir) for name, ir in sources.items()}
    kernels["saxpy_sm90"] = nvptx(SAXPY, "sm_90")
    return kernels
