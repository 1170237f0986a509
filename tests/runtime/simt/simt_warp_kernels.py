"""More NVPTX-form test modules: warp operations, indices, early exits, printf, math."""

from simt_kernels import HEADER


def c_string(text: str) -> str:
    """An LLVM IR constant holding ``text`` and its terminating NUL."""
    data = text.encode() + b"\0"
    body = "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\{b:02X}" for b in data)
    return f'[{len(data)} x i8] c"{body}"'


# Each thread writes 12 words to out[gtid * 12 ...]: shuffles in every mode (one with
# an 8-lane segment), votes, lane masks, a barrier reduction, the active mask and a
# shuffle predicate. Block size a multiple of 32.
WARP_OPS = (
    HEADER
    + """
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32, i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.warpsize()
declare i32 @llvm.nvvm.barrier0.popc(i32)
declare i32 @llvm.nvvm.activemask()
declare void @llvm.nvvm.bar.warp.sync(i32)

define internal void @put(ptr addrspace(1) %out, i32 %base, i32 %k, i32 %v) {
  %i = add i32 %base, %k
  %i64 = zext i32 %i to i64
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i64
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

define ptx_kernel void @warp_ops(ptr %out_generic) {
  %out = addrspacecast ptr %out_generic to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bb = mul i32 %bid, %bdim
  %gtid = add i32 %bb, %tid
  %base = mul i32 %gtid, 12
  %up = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %tid, i32 1, i32 0)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 0, i32 %up)
  %idx = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %tid, i32 3, i32 31)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 1, i32 %idx)
  %down = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %tid, i32 5, i32 31)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 2, i32 %down)
  %seg = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %tid, i32 2, i32 6175)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 3, i32 %seg)
  %m3 = urem i32 %tid, 3
  %third = icmp eq i32 %m3, 0
  %ballot = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %third)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 4, i32 %ballot)
  %is5 = icmp eq i32 %tid, 5
  %any = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %is5)
  %any32 = zext i1 %any to i32
  call void @put(ptr addrspace(1) %out, i32 %base, i32 5, i32 %any32)
  %small = icmp ult i32 %tid, 40
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %small)
  %all32 = zext i1 %all to i32
  call void @put(ptr addrspace(1) %out, i32 %base, i32 6, i32 %all32)
  %lt = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  call void @put(ptr addrspace(1) %out, i32 %base, i32 7, i32 %lt)
  %odd = and i32 %tid, 1
  %popc = call i32 @llvm.nvvm.barrier0.popc(i32 %odd)
  call void @put(ptr addrspace(1) %out, i32 %base, i32 8, i32 %popc)
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  %active = call i32 @llvm.nvvm.activemask()
  call void @put(ptr addrspace(1) %out, i32 %base, i32 9, i32 %active)
  %pair = call { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32 -1, i32 %tid, i32 2, i32 0)
  %pred = extractvalue { i32, i1 } %pair, 1
  %pred32 = zext i1 %pred to i32
  call void @put(ptr addrspace(1) %out, i32 %base, i32 10, i32 %pred32)
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %ws = call i32 @llvm.nvvm.read.ptx.sreg.warpsize()
  %lw = mul i32 %lane, 100
  %lws = add i32 %lw, %ws
  call void @put(ptr addrspace(1) %out, i32 %base, i32 11, i32 %lws)
  ret void
}
"""
)

# Every index register for 3-D grids and blocks: 12 words per thread, at the thread's
# linear place in the grid (blocks in x, y, z order, threads in x, y, z order).
INDICES = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()

define ptx_kernel void @indices(ptr %out) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tz = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %nz = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %bz = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %gx = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %gy = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %gz = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
  %b1 = mul i32 %bz, %gy
  %b2 = add i32 %b1, %by
  %b3 = mul i32 %b2, %gx
  %block = add i32 %b3, %bx
  %t1 = mul i32 %tz, %ny
  %t2 = add i32 %t1, %ty
  %t3 = mul i32 %t2, %nx
  %thread = add i32 %t3, %tx
  %nxy = mul i32 %nx, %ny
  %per_block = mul i32 %nxy, %nz
  %g1 = mul i32 %block, %per_block
  %linear = add i32 %g1, %thread
  %base = mul i32 %linear, 12
  %b64 = zext i32 %base to i64
  %p = getelementptr i32, ptr %out, i64 %b64
  %values = insertelement <4 x i32> poison, i32 %tx, i32 0
  %v1 = insertelement <4 x i32> %values, i32 %ty, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %tz, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %bx, i32 3
  store <4 x i32> %v3, ptr %p, align 4
  %p4 = getelementptr i32, ptr %p, i64 4
  %w0 = insertelement <4 x i32> poison, i32 %by, i32 0
  %w1 = insertelement <4 x i32> %w0, i32 %bz, i32 1
  %w2 = insertelement <4 x i32> %w1, i32 %nx, i32 2
  %w3 = insertelement <4 x i32> %w2, i32 %ny, i32 3
  store <4 x i32> %w3, ptr %p4, align 4
  %p8 = getelementptr i32, ptr %p, i64 8
  %u0 = insertelement <4 x i32> poison, i32 %nz, i32 0
  %u1 = insertelement <4 x i32> %u0, i32 %gx, i32 1
  %u2 = insertelement <4 x i32> %u1, i32 %gy, i32 2
  %u3 = insertelement <4 x i32> %u2, i32 %gz, i32 3
  store <4 x i32> %u3, ptr %p8, align 4
  ret void
}
"""

# Threads at or past `active` return at once; the rest meet at two barriers, which must
# not wait for the ones that left. out[t] = t's right neighbour among the active ones.
EARLY_EXIT = (
    HEADER
    + """
@ring = internal addrspace(3) global [1024 x i32] undef, align 4

define ptx_kernel void @early_exit(ptr %out, i32 %active) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gone = icmp uge i32 %tid, %active
  br i1 %gone, label %exit, label %work
work:
  %t64 = zext i32 %tid to i64
  %s = getelementptr [1024 x i32], ptr addrspace(3) @ring, i64 0, i64 %t64
  store i32 %tid, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %next = add i32 %tid, 1
  %wrap = urem i32 %next, %active
  %w64 = zext i32 %wrap to i64
  %sw = getelementptr [1024 x i32], ptr addrspace(3) @ring, i64 0, i64 %w64
  %v = load i32, ptr addrspace(3) %sw, align 4
  call void @llvm.nvvm.barrier0()
  %p = getelementptr i32, ptr %out, i64 %t64
  store i32 %v, ptr %p, align 4
  br label %exit
exit:
  ret void
}
"""
)

# printf from two threads: vprintf with C's promoted arguments (int, int, double).
PRINTF = """
target triple = "nvptx64-nvidia-cuda"
@fmt = private unnamed_addr constant FORMAT, align 1
@word = private unnamed_addr constant WORD, align 1
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @vprintf(ptr, ptr)

define ptx_kernel void @hello() {
  %args = alloca { i32, i32, double, ptr, i32 }, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %f = uitofp i32 %tid to double
  %half = fmul double %f, 5.000000e-01
  %hex = add i32 %tid, 250
  store i32 %tid, ptr %args, align 8
  %p1 = getelementptr { i32, i32, double, ptr, i32 }, ptr %args, i32 0, i32 1
  store i32 %n, ptr %p1, align 4
  %p2 = getelementptr { i32, i32, double, ptr, i32 }, ptr %args, i32 0, i32 2
  store double %half, ptr %p2, align 8
  %p3 = getelementptr { i32, i32, double, ptr, i32 }, ptr %args, i32 0, i32 3
  store ptr @word, ptr %p3, align 8
  %p4 = getelementptr { i32, i32, double, ptr, i32 }, ptr %args, i32 0, i32 4
  store i32 %hex, ptr %p4, align 8
  %r = call i32 @vprintf(ptr @fmt, ptr %args)
  ret void
}
""".replace("FORMAT", c_string("thread %d of %d: %.2f [%5s] %x%%\n")).replace(
    "WORD", c_string("ok")
)

# libdevice functions, declared only (the emulator maps them to the C library):
# out[8 i + k] = f_k(x[i]) for sinf, expf, logf, sqrtf, tanhf, powf(x, 1.5), rsqrtf,
# and the f64 sin.
MATH = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @__nv_sinf(float)
declare float @__nv_expf(float)
declare float @__nv_logf(float)
declare float @__nv_sqrtf(float)
declare float @__nv_tanhf(float)
declare float @__nv_powf(float, float)
declare float @__nv_rsqrtf(float)
declare double @__nv_sin(double)

define internal void @put(ptr %out, i32 %i, i32 %k, float %v) {
  %base = mul i32 %i, 8
  %j = add i32 %base, %k
  %j64 = zext i32 %j to i64
  %p = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %p, align 4
  ret void
}

define ptx_kernel void @math(ptr %x, ptr %out) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i64 = zext i32 %i to i64
  %px = getelementptr float, ptr %x, i64 %i64
  %v = load float, ptr %px, align 4
  %r0 = call float @__nv_sinf(float %v)
  call void @put(ptr %out, i32 %i, i32 0, float %r0)
  %r1 = call float @__nv_expf(float %v)
  call void @put(ptr %out, i32 %i, i32 1, float %r1)
  %r2 = call float @__nv_logf(float %v)
  call void @put(ptr %out, i32 %i, i32 2, float %r2)
  %r3 = call float @__nv_sqrtf(float %v)
  call void @put(ptr %out, i32 %i, i32 3, float %r3)
  %r4 = call float @__nv_tanhf(float %v)
  call void @put(ptr %out, i32 %i, i32 4, float %r4)
  %r5 = call float @__nv_powf(float %v, float 1.5)
  call void @put(ptr %out, i32 %i, i32 5, float %r5)
  %r6 = call float @__nv_rsqrtf(float %v)
  call void @put(ptr %out, i32 %i, i32 6, float %r6)
  %d = fpext float %v to double
  %r7d = call double @__nv_sin(double %d)
  %r7 = fptrunc double %r7d to float
  call void @put(ptr %out, i32 %i, i32 7, float %r7)
  ret void
}

; out[i] = sin(x[i]) in f64 (libdevice takes a slow path, with 128-bit asm, for huge x)
define ptx_kernel void @sin_f64(ptr %x, ptr %out) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i64 = zext i32 %i to i64
  %px = getelementptr double, ptr %x, i64 %i64
  %v = load double, ptr %px, align 8
  %r = call double @__nv_sin(double %v)
  %po = getelementptr double, ptr %out, i64 %i64
  store double %r, ptr %po, align 8
  ret void
}
"""
