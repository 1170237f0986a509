"""Hand-written NVPTX-form LLVM IR for the SIMT emulator's tests.

Each module is valid NVPTX IR (``test_simt_nvptx.py`` compiles every one to PTX with
llvmlite's NVPTX target and checks it with ``ptxas -arch=sm_80``), written the way the
CUDA backend emits it: ``define ptx_kernel``, global pointers through ``addrspacecast``
to ``addrspace(1)``, shared memory as ``addrspace(3)`` globals, ``syncscope("device")``
atomics.
"""

HEADER = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
"""

# y[i] = a * x[i] + y[i] over a grid-stride loop.
SAXPY = (
    HEADER
    + """
define ptx_kernel void @saxpy(i32 %n, float %a, ptr %x, ptr %y) {
entry:
  %gx = addrspacecast ptr %x to ptr addrspace(1)
  %gy = addrspacecast ptr %y to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %gdim = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %base = mul i32 %bid, %bdim
  %start = add i32 %base, %tid
  %stride = mul i32 %bdim, %gdim
  br label %loop
loop:
  %i = phi i32 [ %start, %entry ], [ %next, %body ]
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %i64 = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %gx, i64 %i64
  %py = getelementptr float, ptr addrspace(1) %gy, i64 %i64
  %vx = load float, ptr addrspace(1) %px, align 4, !invariant.load !0
  %vy = load float, ptr addrspace(1) %py, align 4
  %ax = fmul float %a, %vx
  %r = fadd float %ax, %vy
  store float %r, ptr addrspace(1) %py, align 4
  %next = add i32 %i, %stride
  br label %loop
done:
  ret void
}
!0 = !{}
"""
)

# Sum of x[0..n): grid-stride partial sums, partials through shared memory (each thread
# then reads another warp's partial: right only after the barrier), a warp shuffle
# reduction and one atomic per warp. The block size must be a multiple of 32.
REDUCTION = (
    HEADER
    + """
@partials = internal addrspace(3) global [1024 x i32] undef, align 4
@partials_f = internal addrspace(3) global [1024 x float] undef, align 4

define ptx_kernel void @block_sum(ptr %x, i32 %n, ptr %out) {
entry:
  %gx = addrspacecast ptr %x to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %gdim = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %base = mul i32 %bid, %bdim
  %start = add i32 %base, %tid
  %stride = mul i32 %bdim, %gdim
  br label %loop
loop:
  %i = phi i32 [ %start, %entry ], [ %next, %body ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %body ]
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %reduce
body:
  %i64 = sext i32 %i to i64
  %p = getelementptr i32, ptr addrspace(1) %gx, i64 %i64
  %v = load i32, ptr addrspace(1) %p, align 4
  %acc1 = add i32 %acc, %v
  %next = add i32 %i, %stride
  br label %loop
reduce:
  %tid64 = zext i32 %tid to i64
  %slot = getelementptr [1024 x i32], ptr addrspace(3) @partials, i64 0, i64 %tid64
  store i32 %acc, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %last = sub i32 %bdim, 1
  %mirror = sub i32 %last, %tid
  %m64 = zext i32 %mirror to i64
  %mslot = getelementptr [1024 x i32], ptr addrspace(3) @partials, i64 0, i64 %m64
  %s0 = load i32, ptr addrspace(3) %mslot, align 4
  %d16 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s0, i32 16, i32 31)
  %s1 = add i32 %s0, %d16
  %d8 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s1, i32 8, i32 31)
  %s2 = add i32 %s1, %d8
  %d4 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s2, i32 4, i32 31)
  %s3 = add i32 %s2, %d4
  %d2 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s3, i32 2, i32 31)
  %s4 = add i32 %s3, %d2
  %d1 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s4, i32 1, i32 31)
  %s5 = add i32 %s4, %d1
  %lane = and i32 %tid, 31
  %first = icmp eq i32 %lane, 0
  br i1 %first, label %atomic, label %exit
atomic:
  %gout = addrspacecast ptr %out to ptr addrspace(1)
  %old = atomicrmw add ptr addrspace(1) %gout, i32 %s5 syncscope("device") monotonic, align 4
  br label %exit
exit:
  ret void
}

; The same in f32 with a butterfly (xor) all-reduce and an atomic fadd.
define ptx_kernel void @block_sum_f32(ptr %x, i32 %n, ptr %out) {
entry:
  %gx = addrspacecast ptr %x to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %gdim = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %base = mul i32 %bid, %bdim
  %start = add i32 %base, %tid
  %stride = mul i32 %bdim, %gdim
  br label %loop
loop:
  %i = phi i32 [ %start, %entry ], [ %next, %body ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %body ]
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %reduce
body:
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr addrspace(1) %gx, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  %acc1 = fadd float %acc, %v
  %next = add i32 %i, %stride
  br label %loop
reduce:
  %tid64 = zext i32 %tid to i64
  %slot = getelementptr [1024 x float], ptr addrspace(3) @partials_f, i64 0, i64 %tid64
  store float %acc, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %last = sub i32 %bdim, 1
  %mirror = sub i32 %last, %tid
  %m64 = zext i32 %mirror to i64
  %mslot = getelementptr [1024 x float], ptr addrspace(3) @partials_f, i64 0, i64 %m64
  %s0 = load float, ptr addrspace(3) %mslot, align 4
  %x16 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s0, i32 16, i32 31)
  %s1 = fadd float %s0, %x16
  %x8 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s1, i32 8, i32 31)
  %s2 = fadd float %s1, %x8
  %x4 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s2, i32 4, i32 31)
  %s3 = fadd float %s2, %x4
  %x2 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s3, i32 2, i32 31)
  %s4 = fadd float %s3, %x2
  %x1 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %s4, i32 1, i32 31)
  %s5 = fadd float %s4, %x1
  %lane = and i32 %tid, 31
  %first = icmp eq i32 %lane, 0
  br i1 %first, label %atomic, label %exit
atomic:
  %gout = addrspacecast ptr %out to ptr addrspace(1)
  %old = atomicrmw fadd ptr addrspace(1) %gout, float %s5 syncscope("device") monotonic, align 4
  br label %exit
exit:
  ret void
}
"""
)

# out[i] = in[i-1] + in[i] + in[i+1] (0 outside) through a shared tile with halo cells.
# Odd threads sleep 0.5 ms before they write their cell, so a reader that does not wait
# at the barrier sees an old cell. Block size 128.
STENCIL = (
    HEADER
    + """
@tile = internal addrspace(3) global [130 x float] undef, align 4
declare void @llvm.nvvm.nanosleep(i32)

define internal float @load_or_zero(ptr addrspace(1) %in, i32 %i, i32 %n) {
entry:
  %lo = icmp sge i32 %i, 0
  %hi = icmp slt i32 %i, %n
  %ok = and i1 %lo, %hi
  br i1 %ok, label %load, label %zero
load:
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr addrspace(1) %in, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  ret float %v
zero:
  ret float 0.0
}

define internal void @tile_store(i32 %cell, float %v) {
  %c64 = zext i32 %cell to i64
  %p = getelementptr [130 x float], ptr addrspace(3) @tile, i64 0, i64 %c64
  store float %v, ptr addrspace(3) %p, align 4
  ret void
}

define internal float @tile_load(i32 %cell) {
  %c64 = zext i32 %cell to i64
  %p = getelementptr [130 x float], ptr addrspace(3) @tile, i64 0, i64 %c64
  %v = load float, ptr addrspace(3) %p, align 4
  ret float %v
}

define internal void @stencil(ptr %in_generic, ptr %out_generic, i32 %n, i1 %with_barrier) {
entry:
  %in = addrspacecast ptr %in_generic to ptr addrspace(1)
  %out = addrspacecast ptr %out_generic to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %gi = add i32 %base, %tid
  %odd = and i32 %tid, 1
  %late = icmp ne i32 %odd, 0
  br i1 %late, label %sleep, label %fill
sleep:
  call void @llvm.nvvm.nanosleep(i32 500000)
  br label %fill
fill:
  %mine = call float @load_or_zero(ptr addrspace(1) %in, i32 %gi, i32 %n)
  %cell = add i32 %tid, 1
  call void @tile_store(i32 %cell, float %mine)
  %is_first = icmp eq i32 %tid, 0
  br i1 %is_first, label %left, label %check_right
left:
  %gl = sub i32 %gi, 1
  %vl = call float @load_or_zero(ptr addrspace(1) %in, i32 %gl, i32 %n)
  call void @tile_store(i32 0, float %vl)
  br label %check_right
check_right:
  %last = sub i32 %bdim, 1
  %is_last = icmp eq i32 %tid, %last
  br i1 %is_last, label %right, label %sync
right:
  %gr = add i32 %gi, 1
  %vr = call float @load_or_zero(ptr addrspace(1) %in, i32 %gr, i32 %n)
  %rcell = add i32 %bdim, 1
  call void @tile_store(i32 %rcell, float %vr)
  br label %sync
sync:
  br i1 %with_barrier, label %barrier, label %compute
barrier:
  call void @llvm.nvvm.barrier0()
  br label %compute
compute:
  %inside = icmp slt i32 %gi, %n
  br i1 %inside, label %write, label %exit
write:
  %a = call float @tile_load(i32 %tid)
  %b = call float @tile_load(i32 %cell)
  %c1 = add i32 %tid, 2
  %c = call float @tile_load(i32 %c1)
  %ab = fadd float %a, %b
  %abc = fadd float %ab, %c
  %gi64 = sext i32 %gi to i64
  %po = getelementptr float, ptr addrspace(1) %out, i64 %gi64
  store float %abc, ptr addrspace(1) %po, align 4
  br label %exit
exit:
  ret void
}

define ptx_kernel void @stencil_sync(ptr %in, ptr %out, i32 %n) {
  call void @stencil(ptr %in, ptr %out, i32 %n, i1 true)
  ret void
}

define ptx_kernel void @stencil_nosync(ptr %in, ptr %out, i32 %n) {
  call void @stencil(ptr %in, ptr %out, i32 %n, i1 false)
  ret void
}
"""
)

# Contended atomics on one global counter (i32 add, f32 fadd, i32 max) and on a shared
# per-block counter.
ATOMICS = (
    HEADER
    + """
@block_count = internal addrspace(3) global i32 undef, align 4

define ptx_kernel void @contend(ptr %counter, ptr %fsum, ptr %maxv, ptr %per_block) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %gi = add i32 %base, %tid
  %is_first = icmp eq i32 %tid, 0
  br i1 %is_first, label %init, label %count
init:
  store i32 0, ptr addrspace(3) @block_count, align 4
  br label %count
count:
  call void @llvm.nvvm.barrier0()
  %gc = addrspacecast ptr %counter to ptr addrspace(1)
  %o1 = atomicrmw add ptr addrspace(1) %gc, i32 1 syncscope("device") monotonic, align 4
  %gf = addrspacecast ptr %fsum to ptr addrspace(1)
  %o2 = atomicrmw fadd ptr addrspace(1) %gf, float 1.0 syncscope("device") monotonic, align 4
  %gm = addrspacecast ptr %maxv to ptr addrspace(1)
  %o3 = atomicrmw max ptr addrspace(1) %gm, i32 %gi syncscope("device") monotonic, align 4
  %o4 = atomicrmw add ptr addrspace(3) @block_count, i32 1 syncscope("block") monotonic, align 4
  call void @llvm.nvvm.barrier0()
  br i1 %is_first, label %publish, label %exit
publish:
  %total = load i32, ptr addrspace(3) @block_count, align 4
  %gp = addrspacecast ptr %per_block to ptr addrspace(1)
  %b64 = zext i32 %bid to i64
  %pp = getelementptr i32, ptr addrspace(1) %gp, i64 %b64
  store i32 %total, ptr addrspace(1) %pp, align 4
  br label %exit
exit:
  ret void
}
"""
)

# Dynamic shared memory: each block reverses its chunk of data through the extern array;
# big_dynamic uses `words` i32 (more than the 48 KB of static shared memory).
DYNAMIC_SHARED = (
    HEADER
    + """
@dynamic = external addrspace(3) global [0 x i32], align 16

define ptx_kernel void @reverse_blocks(ptr %data) {
  %g = addrspacecast ptr %data to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %gi = add i32 %base, %tid
  %gi64 = zext i32 %gi to i64
  %p = getelementptr i32, ptr addrspace(1) %g, i64 %gi64
  %v = load i32, ptr addrspace(1) %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr [0 x i32], ptr addrspace(3) @dynamic, i64 0, i64 %t64
  store i32 %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %last = sub i32 %bdim, 1
  %m = sub i32 %last, %tid
  %m64 = zext i32 %m to i64
  %sm = getelementptr [0 x i32], ptr addrspace(3) @dynamic, i64 0, i64 %m64
  %w = load i32, ptr addrspace(3) %sm, align 4
  store i32 %w, ptr addrspace(1) %p, align 4
  ret void
}

define ptx_kernel void @big_dynamic(ptr %out, i32 %words) {
entry:
  %g = addrspacecast ptr %out to ptr addrspace(1)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %fill
fill:
  %k = phi i32 [ %tid, %entry ], [ %k1, %fill_body ]
  %more = icmp slt i32 %k, %words
  br i1 %more, label %fill_body, label %sync
fill_body:
  %k64 = zext i32 %k to i64
  %s = getelementptr [0 x i32], ptr addrspace(3) @dynamic, i64 0, i64 %k64
  store i32 %k, ptr addrspace(3) %s, align 4
  %k1 = add i32 %k, %bdim
  br label %fill
sync:
  call void @llvm.nvvm.barrier0()
  br label %copy
copy:
  %j = phi i32 [ %tid, %sync ], [ %j1, %copy_body ]
  %more2 = icmp slt i32 %j, %words
  br i1 %more2, label %copy_body, label %done
copy_body:
  %last = sub i32 %words, 1
  %src = sub i32 %last, %j
  %src64 = zext i32 %src to i64
  %ss = getelementptr [0 x i32], ptr addrspace(3) @dynamic, i64 0, i64 %src64
  %v = load i32, ptr addrspace(3) %ss, align 4
  %j64 = zext i32 %j to i64
  %po = getelementptr i32, ptr addrspace(1) %g, i64 %j64
  store i32 %v, ptr addrspace(1) %po, align 4
  %j1 = add i32 %j, %bdim
  br label %copy
done:
  ret void
}
"""
)
