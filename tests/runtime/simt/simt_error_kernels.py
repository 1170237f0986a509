"""NVPTX-form modules that break a rule, for the emulator's error tests."""

from simt_kernels import HEADER
from simt_warp_kernels import c_string

# Lanes 0-15 shuffle (waiting for lanes 16-31) while lanes 16-31 wait at the block
# barrier (for lanes 0-15): a deadlock on a GPU too.
DIVERGENT_SHUFFLE = (
    HEADER
    + """
define ptx_kernel void @divergent_shuffle(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %low = icmp ult i32 %tid, 16
  br i1 %low, label %shuffle, label %barrier
shuffle:
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %tid, i32 1, i32 31)
  store i32 %v, ptr %out, align 4
  br label %exit
barrier:
  call void @llvm.nvvm.barrier0()
  br label %exit
exit:
  ret void
}
"""
)

# Lanes 16-31 return; lanes 0-15 then read them with a shuffle down by 16.
SHUFFLE_FROM_EXITED = (
    HEADER
    + """
define ptx_kernel void @shuffle_from_exited(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %high = icmp uge i32 %tid, 16
  br i1 %high, label %exit, label %shuffle
shuffle:
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %tid, i32 16, i32 31)
  %t64 = zext i32 %tid to i64
  %p = getelementptr i32, ptr %out, i64 %t64
  store i32 %v, ptr %p, align 4
  br label %exit
exit:
  ret void
}
"""
)

HALF_MASK = (
    HEADER
    + """
define ptx_kernel void @half_mask(ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 65535, i32 %tid, i32 1, i32 31)
  store i32 %v, ptr %out, align 4
  ret void
}
"""
)

NAMED_BARRIER = """
target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.barrier.sync(i32)
define ptx_kernel void @named_barrier() {
  call void @llvm.nvvm.barrier.sync(i32 1)
  ret void
}
"""

# Thread 5 of block 1 traps (as a failed bounds check would); thread 7 of block 0
# fails a CUDA assert().
TRAPS = (
    HEADER
    + """
@message = private unnamed_addr constant MESSAGE, align 1
@file = private unnamed_addr constant FILE, align 1
@function = private unnamed_addr constant FUNCTION, align 1
declare void @llvm.trap()
declare void @__assertfail(ptr, ptr, i32, ptr, i64)

define ptx_kernel void @trap_in_block_1() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t5 = icmp eq i32 %tid, 5
  %b1 = icmp eq i32 %bid, 1
  %both = and i1 %t5, %b1
  br i1 %both, label %trap, label %exit
trap:
  call void @llvm.trap()
  unreachable
exit:
  ret void
}

define ptx_kernel void @failed_assert() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t7 = icmp eq i32 %tid, 7
  br i1 %t7, label %fail, label %exit
fail:
  call void @__assertfail(ptr @message, ptr @file, i32 42, ptr @function, i64 1)
  unreachable
exit:
  ret void
}
""".replace("MESSAGE", c_string("x[i] >= 0"))
    .replace("FILE", c_string("kernel.cu"))
    .replace("FUNCTION", c_string("check"))
)

# 13,000 floats of static shared memory: 52,000 bytes, over the 48 KB a block may have.
TOO_MUCH_SHARED = """
target triple = "nvptx64-nvidia-cuda"
@big = internal addrspace(3) global [13000 x float] undef, align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define ptx_kernel void @too_much_shared(ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %p = getelementptr [13000 x float], ptr addrspace(3) @big, i64 0, i64 %t64
  %v = load float, ptr addrspace(3) %p, align 4
  store float %v, ptr %out, align 4
  ret void
}
"""

UNKNOWN_INTRINSIC = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)
define ptx_kernel void @match(ptr %out) {
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 7)
  store i32 %m, ptr %out, align 4
  ret void
}
"""

UNKNOWN_FUNCTION = """
target triple = "nvptx64-nvidia-cuda"
declare void @helper_from_elsewhere(ptr)
define ptx_kernel void @calls_helper(ptr %out) {
  call void @helper_from_elsewhere(ptr %out)
  ret void
}
"""

INLINE_ASM = """
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @uses_asm() {
  call void asm sideeffect "membar.gl;", ""()
  ret void
}
"""
