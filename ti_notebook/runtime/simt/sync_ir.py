"""LLVM IR of the emulator's kernel-facing runtime: indices, barriers, shuffles, votes.

Rewritten kernels call these ``tin_simt_*`` functions where the NVPTX module called NVVM
intrinsics (``intrinsics.py`` makes the calls). They read the calling CUDA thread's state
through ``pthread_getspecific`` (one libc call, a few nanoseconds; the sreg reads keep
the intrinsics' ``memory(none)`` so LLVM hoists them out of loops anyway).

Barriers are a 64-bit word ``expected << 32 | arrived`` changed only by compare-and-swap,
plus a generation counter that waiters sleep on (futex). A thread that leaves the kernel
calls ``@leave``, which lowers ``expected`` and completes the barrier if everyone else
is already waiting: an exited thread counts as arrived, so early returns never hang the
rest of the block. Warp barriers are the same thing per warp.

Shuffles and votes exchange values through per-warp slots, double-buffered by the parity
of a per-thread exchange counter, so one warp barrier per exchange is enough: a lane
cannot write slot set ``p`` again before every lane has passed the next barrier, i.e.
finished reading it. Each slot also holds the writer's tag (block serial, exchange
count), so a lane that reads a lane which exited, or is busy elsewhere, is reported
instead of getting a stale value.

Errors (an unsupported mask, a shuffle from an absent lane, a trap, a deadlock found by
the watchdog in ``pool_ir.py``) set ``@abort``, bump every barrier generation so that
sleepers wake, and leave the kernel with ``longjmp`` to the block loop, which skips the
remaining blocks. The launcher then raises a Python exception that names the kernel.

    >>> "define i32 @tin_simt_shfl(" in SYNC_IR
    True
"""

from __future__ import annotations

# Error codes shared with ``runtime.py``.
ERROR_DEADLOCK = 1
ERROR_ABSENT_LANE = 2
ERROR_MASK = 3
ERROR_BARRIER = 4
ERROR_TRAP = 5
ERROR_THREADS = 6

SYNC_IR = r"""
; index, tid.x, tid.y, tid.z, lane, warp, go (futex), wait kind (watchdog), wait word,
; wait generation, exited (this block), exchange tag, jmp_buf (200 bytes in glibc)
%State = type { i32, i32, i32, i32, i32, i32, i32, i32, ptr, i32, i32, i64, [32 x i64] }
%Barrier = type { i64, i32, i32 }          ; expected << 32 | arrived, generation, pad
%Slot = type { i64, i32, i32 }             ; tag, value, pad

@key = internal global i32 0               ; pthread key of the thread's %State
@states = internal global [1024 x %State] zeroinitializer, align 64
@ntid = internal global [3 x i32] zeroinitializer
@nctaid = internal global [3 x i32] zeroinitializer
@nthreads = internal global i32 0
@ctaid = internal global [3 x i32] zeroinitializer
@bar = internal global %Barrier zeroinitializer, align 64
@warp_bars = internal global [32 x %Barrier] zeroinitializer, align 64
@slots = internal global [32 x [2 x [32 x %Slot]]] zeroinitializer, align 64
@reduce = internal global [2 x [2 x i32]] zeroinitializer, align 16  ; [parity][zeros, ones]
@progress = internal global i32 0          ; barrier completions and exits (watchdog)
@abort = internal global i32 0
@error = internal global [6 x i32] zeroinitializer  ; code, a, b, c, block, thread

declare ptr @pthread_getspecific(i32)
declare i64 @syscall(i64, ...)
declare void @longjmp(ptr, i32) noreturn
declare void @llvm.x86.sse2.pause()

define internal ptr @self() {
  %k = load i32, ptr @key, align 4
  %s = call ptr @pthread_getspecific(i32 %k)
  ret ptr %s
}

define internal i32 @field(ptr %st, i32 %i) alwaysinline {
  %p = getelementptr [13 x i32], ptr %st, i64 0, i32 %i
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

define i32 @tin_simt_tid_x() {
  %s = call ptr @self()
  %v = call i32 @field(ptr %s, i32 1)
  ret i32 %v
}
define i32 @tin_simt_tid_y() {
  %s = call ptr @self()
  %v = call i32 @field(ptr %s, i32 2)
  ret i32 %v
}
define i32 @tin_simt_tid_z() {
  %s = call ptr @self()
  %v = call i32 @field(ptr %s, i32 3)
  ret i32 %v
}
define i32 @tin_simt_laneid() {
  %s = call ptr @self()
  %v = call i32 @field(ptr %s, i32 4)
  ret i32 %v
}
define i32 @tin_simt_warpid() {
  %s = call ptr @self()
  %v = call i32 @field(ptr %s, i32 5)
  ret i32 %v
}
define i32 @tin_simt_ntid(i32 %axis) {
  %p = getelementptr [3 x i32], ptr @ntid, i64 0, i32 %axis
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
define i32 @tin_simt_nctaid(i32 %axis) {
  %p = getelementptr [3 x i32], ptr @nctaid, i64 0, i32 %axis
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
define i32 @tin_simt_ctaid(i32 %axis) {
  %p = getelementptr [3 x i32], ptr @ctaid, i64 0, i32 %axis
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

define internal void @futex_wait(ptr %addr, i32 %val) {
  %v = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 128, i64 %v)
  ret void
}

define internal void @futex_wake(ptr %addr) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 129, i64 2147483647)
  ret void
}

; Returns once *%word != %g: a short spin (the usual case when threads <= cores), then
; futex sleeps (the usual case with 128 threads on a few cores, where spinning would
; only keep the threads we wait for off the CPU).
define internal void @await(ptr %word, i32 %g) {
entry:
  br label %spin
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %pause ]
  %v = load atomic i32, ptr %word acquire, align 4
  %changed = icmp ne i32 %v, %g
  br i1 %changed, label %out, label %pause
pause:
  call void @llvm.x86.sse2.pause()
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, $SPIN
  br i1 %more, label %spin, label %sleep
sleep:
  call void @futex_wait(ptr %word, i32 %g)
  %v2 = load atomic i32, ptr %word acquire, align 4
  %changed2 = icmp ne i32 %v2, %g
  br i1 %changed2, label %out, label %sleep
out:
  ret void
}

; Back to the block loop's setjmp: the launch is failing, the kernel's frames are dropped.
define internal void @escape(ptr %st) noreturn {
  %jb = getelementptr %State, ptr %st, i32 0, i32 12
  call void @longjmp(ptr %jb, i32 1)
  unreachable
}

define internal void @check_abort(ptr %st) {
entry:
  %ab = load atomic i32, ptr @abort acquire, align 4
  %stop = icmp ne i32 %ab, 0
  br i1 %stop, label %leave, label %go
leave:
  call void @escape(ptr %st)
  unreachable
go:
  ret void
}

; Like @await, but visible to the watchdog (what the thread waits on) and aborting.
define internal void @wait_change(ptr %st, ptr %word, i32 %g, i32 %kind) {
  %ww = getelementptr %State, ptr %st, i32 0, i32 8
  store ptr %word, ptr %ww, align 8
  %wg = getelementptr %State, ptr %st, i32 0, i32 9
  store i32 %g, ptr %wg, align 4
  %wk = getelementptr %State, ptr %st, i32 0, i32 7
  store atomic i32 %kind, ptr %wk release, align 4
  call void @await(ptr %word, i32 %g)
  store atomic i32 0, ptr %wk release, align 4
  call void @check_abort(ptr %st)
  ret void
}

; Opens the barrier for its waiters. For the block barrier it first zeroes the reduction
; counts of the next generation's parity: every live thread has arrived, so none is still
; reading the counts of the generation before this one.
define internal void @release(ptr %bar) {
entry:
  %genp = getelementptr %Barrier, ptr %bar, i32 0, i32 1
  %is_block = icmp eq ptr %bar, @bar
  br i1 %is_block, label %reset, label %open
reset:
  %g = load atomic i32, ptr %genp monotonic, align 4
  %g1 = add i32 %g, 1
  %parity = and i32 %g1, 1
  %next = getelementptr [2 x [2 x i32]], ptr @reduce, i64 0, i32 %parity
  store <2 x i32> zeroinitializer, ptr %next, align 8
  br label %open
open:
  %p = atomicrmw add ptr @progress, i32 1 monotonic, align 4
  %old = atomicrmw add ptr %genp, i32 1 release, align 4
  call void @futex_wake(ptr %genp)
  ret void
}

; Arrives at %bar and returns when every live thread it counts has arrived.
define internal void @arrive(ptr %bar, ptr %st, i32 %kind) {
entry:
  call void @check_abort(ptr %st)
  %genp = getelementptr %Barrier, ptr %bar, i32 0, i32 1
  ; Read before arriving: the generation cannot move on without this thread.
  %g = load atomic i32, ptr %genp acquire, align 4
  %s0 = load atomic i64, ptr %bar monotonic, align 8
  br label %try
try:
  %s = phi i64 [ %s0, %entry ], [ %seen, %try ]
  %expected = lshr i64 %s, 32
  %arrived = and i64 %s, 4294967295
  %arrived1 = add i64 %arrived, 1
  %last = icmp uge i64 %arrived1, %expected
  %reset_word = shl i64 %expected, 32
  %plus = add i64 %s, 1
  %new = select i1 %last, i64 %reset_word, i64 %plus
  %pair = cmpxchg ptr %bar, i64 %s, i64 %new acq_rel monotonic, align 8
  %seen = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %arrived_ok, label %try
arrived_ok:
  br i1 %last, label %complete, label %wait
complete:
  call void @release(ptr %bar)
  ret void
wait:
  call void @wait_change(ptr %st, ptr %genp, i32 %g, i32 %kind)
  ret void
}

; A thread that exits no longer counts; completes the barrier if it was the last awaited.
define internal void @leave(ptr %bar) {
entry:
  %s0 = load atomic i64, ptr %bar monotonic, align 8
  br label %try
try:
  %s = phi i64 [ %s0, %entry ], [ %seen, %try ]
  %expected = lshr i64 %s, 32
  %arrived = and i64 %s, 4294967295
  %expected1 = sub i64 %expected, 1
  %someone = icmp ne i64 %arrived, 0
  %all = icmp uge i64 %arrived, %expected1
  %complete = and i1 %someone, %all
  %reset_word = shl i64 %expected1, 32
  %minus = sub i64 %s, 4294967296
  %new = select i1 %complete, i64 %reset_word, i64 %minus
  %pair = cmpxchg ptr %bar, i64 %s, i64 %new acq_rel monotonic, align 8
  %seen = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %done, label %try
done:
  br i1 %complete, label %open, label %exit
open:
  call void @release(ptr %bar)
  br label %exit
exit:
  ret void
}

; Records the first error, aborts the launch and wakes every sleeper (their generation
; moves, so none can miss the wakeup); the caller then escapes.
define internal void @fail(ptr %st, i32 %code, i32 %a, i32 %b, i32 %c) {
entry:
  %pair = cmpxchg ptr @error, i32 0, i32 %code seq_cst seq_cst, align 4
  %first = extractvalue { i32, i1 } %pair, 1
  br i1 %first, label %record, label %stop
record:
  %pa = getelementptr [6 x i32], ptr @error, i64 0, i64 1
  store i32 %a, ptr %pa, align 4
  %pb = getelementptr [6 x i32], ptr @error, i64 0, i64 2
  store i32 %b, ptr %pb, align 4
  %pc = getelementptr [6 x i32], ptr @error, i64 0, i64 3
  store i32 %c, ptr %pc, align 4
  %b64 = load i64, ptr @block, align 8
  %b32 = trunc i64 %b64 to i32
  %pblock = getelementptr [6 x i32], ptr @error, i64 0, i64 4
  store i32 %b32, ptr %pblock, align 4
  %is_thread = icmp ne ptr %st, null
  br i1 %is_thread, label %who, label %stop
who:
  %index = call i32 @field(ptr %st, i32 0)
  %pt = getelementptr [6 x i32], ptr @error, i64 0, i64 5
  store i32 %index, ptr %pt, align 4
  br label %stop
stop:
  store atomic i32 1, ptr @abort seq_cst, align 4
  call void @release(ptr @bar)
  br label %warps
warps:
  %w = phi i32 [ 0, %stop ], [ %w1, %warps ]
  %wb = getelementptr [32 x %Barrier], ptr @warp_bars, i64 0, i32 %w
  call void @release(ptr %wb)
  %w1 = add i32 %w, 1
  %more = icmp ult i32 %w1, 32
  br i1 %more, label %warps, label %exit
exit:
  ret void
}

define internal void @fail_here(ptr %st, i32 %code, i32 %a, i32 %b, i32 %c) noreturn {
  call void @fail(ptr %st, i32 %code, i32 %a, i32 %b, i32 %c)
  call void @escape(ptr %st)
  unreachable
}

define void @tin_simt_trap() noreturn {
  %st = call ptr @self()
  %index = call i32 @field(ptr %st, i32 0)
  call void @fail_here(ptr %st, i32 $ERROR_TRAP, i32 %index, i32 0, i32 0)
  unreachable
}

; Named barriers and partial counts are not emulated: only barrier 0 over the block.
define internal void @check_barrier(ptr %st, i32 %id, i32 %count) {
entry:
  %n = load i32, ptr @nthreads, align 4
  %id0 = icmp eq i32 %id, 0
  %all = icmp eq i32 %count, -1
  %same = icmp eq i32 %count, %n
  %count_ok = or i1 %all, %same
  %ok = and i1 %id0, %count_ok
  br i1 %ok, label %fine, label %bad
bad:
  call void @fail_here(ptr %st, i32 $ERROR_BARRIER, i32 %id, i32 %count, i32 %n)
  unreachable
fine:
  ret void
}

define void @tin_simt_barrier(i32 %id, i32 %count) {
  %st = call ptr @self()
  call void @check_barrier(ptr %st, i32 %id, i32 %count)
  call void @arrive(ptr @bar, ptr %st, i32 1)
  ret void
}

; __syncthreads_count/_and/_or: op 0 popc, 1 and, 2 or. Counts of zero and non-zero
; predicates go to the slot of this generation's parity (@release zeroes it in time).
define i32 @tin_simt_barrier_reduce(i32 %op, i32 %id, i32 %count, i32 %pred) {
entry:
  %st = call ptr @self()
  call void @check_barrier(ptr %st, i32 %id, i32 %count)
  call void @check_abort(ptr %st)
  %genp = getelementptr %Barrier, ptr @bar, i32 0, i32 1
  %g = load atomic i32, ptr %genp acquire, align 4
  %parity = and i32 %g, 1
  %nonzero = icmp ne i32 %pred, 0
  %which = zext i1 %nonzero to i32
  %mine = getelementptr [2 x [2 x i32]], ptr @reduce, i64 0, i32 %parity, i32 %which
  %old = atomicrmw add ptr %mine, i32 1 acq_rel, align 4
  call void @arrive(ptr @bar, ptr %st, i32 1)
  %zp = getelementptr [2 x [2 x i32]], ptr @reduce, i64 0, i32 %parity, i32 0
  %zeros = load atomic i32, ptr %zp acquire, align 4
  %op_ = getelementptr [2 x [2 x i32]], ptr @reduce, i64 0, i32 %parity, i32 1
  %ones = load atomic i32, ptr %op_ acquire, align 4
  %and = icmp eq i32 %zeros, 0
  %or = icmp ne i32 %ones, 0
  %and32 = zext i1 %and to i32
  %or32 = zext i1 %or to i32
  %is_and = icmp eq i32 %op, 1
  %is_or = icmp eq i32 %op, 2
  %r1 = select i1 %is_and, i32 %and32, i32 %ones
  %r = select i1 %is_or, i32 %or32, i32 %r1
  ret i32 %r
}

; Lanes in the caller's warp (32 except in a last, partial warp).
define internal i32 @warp_lanes(ptr %st) {
  %n = load i32, ptr @nthreads, align 4
  %w = call i32 @field(ptr %st, i32 5)
  %first = shl i32 %w, 5
  %rest = sub i32 %n, %first
  %small = icmp ult i32 %rest, 32
  %lanes = select i1 %small, i32 %rest, i32 32
  ret i32 %lanes
}

; Only whole-warp masks are emulated: -1, or every lane of a partial last warp.
define internal ptr @warp_barrier(ptr %st, i32 %mask) {
entry:
  %lanes = call i32 @warp_lanes(ptr %st)
  %bit = shl i32 1, %lanes
  %partial = sub i32 %bit, 1
  %full = icmp eq i32 %mask, -1
  %whole = icmp eq i32 %mask, %partial
  %ok = or i1 %full, %whole
  br i1 %ok, label %fine, label %bad
bad:
  %lane = call i32 @field(ptr %st, i32 4)
  %w = call i32 @field(ptr %st, i32 5)
  call void @fail_here(ptr %st, i32 $ERROR_MASK, i32 %mask, i32 %lane, i32 %w)
  unreachable
fine:
  %w2 = call i32 @field(ptr %st, i32 5)
  %wb = getelementptr [32 x %Barrier], ptr @warp_bars, i64 0, i32 %w2
  ret ptr %wb
}

define void @tin_simt_syncwarp(i32 %mask) {
  %st = call ptr @self()
  %wb = call ptr @warp_barrier(ptr %st, i32 %mask)
  call void @arrive(ptr %wb, ptr %st, i32 3)
  ret void
}

; Publishes %val in this lane's slot and waits for the warp; returns the slot row.
define internal ptr @exchange(ptr %st, i32 %mask, i32 %val) {
  %wb = call ptr @warp_barrier(ptr %st, i32 %mask)
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag0 = load i64, ptr %tagp, align 8
  %tag = add i64 %tag0, 1
  store i64 %tag, ptr %tagp, align 8
  %p64 = and i64 %tag, 1
  %parity = trunc i64 %p64 to i32
  %w = call i32 @field(ptr %st, i32 5)
  %lane = call i32 @field(ptr %st, i32 4)
  %row = getelementptr [32 x [2 x [32 x %Slot]]], ptr @slots, i64 0, i32 %w, i32 %parity
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %lane
  store i64 %tag, ptr %slot, align 8
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  store i32 %val, ptr %valp, align 4
  call void @arrive(ptr %wb, ptr %st, i32 2)
  ret ptr %row
}

; shfl.sync as PTX defines it; mode 0 up, 1 down, 2 bfly, 3 idx. *%pred (if not null)
; gets whether the source lane was in range.
define i32 @tin_simt_shfl(i32 %mode, i32 %mask, i32 %val, i32 %b, i32 %c, ptr %pred) {
entry:
  %st = call ptr @self()
  %row = call ptr @exchange(ptr %st, i32 %mask, i32 %val)
  %lane = call i32 @field(ptr %st, i32 4)
  %bval = and i32 %b, 31
  %cval = and i32 %c, 31
  %seg_hi = lshr i32 %c, 8
  %segmask = and i32 %seg_hi, 31
  %notseg = xor i32 %segmask, -1
  %lane_seg = and i32 %lane, %segmask
  %c_rest = and i32 %cval, %notseg
  %max_lane = or i32 %lane_seg, %c_rest
  %j_up = sub i32 %lane, %bval
  %p_up = icmp sge i32 %j_up, %max_lane
  %j_down = add i32 %lane, %bval
  %p_down = icmp sle i32 %j_down, %max_lane
  %j_bfly = xor i32 %lane, %bval
  %p_bfly = icmp sle i32 %j_bfly, %max_lane
  %b_rest = and i32 %bval, %notseg
  %j_idx = or i32 %lane_seg, %b_rest
  %p_idx = icmp sle i32 %j_idx, %max_lane
  %is_up = icmp eq i32 %mode, 0
  %is_down = icmp eq i32 %mode, 1
  %is_bfly = icmp eq i32 %mode, 2
  %j1 = select i1 %is_bfly, i32 %j_bfly, i32 %j_idx
  %p1 = select i1 %is_bfly, i1 %p_bfly, i1 %p_idx
  %j2 = select i1 %is_down, i32 %j_down, i32 %j1
  %p2 = select i1 %is_down, i1 %p_down, i1 %p1
  %j3 = select i1 %is_up, i32 %j_up, i32 %j2
  %in_range = select i1 %is_up, i1 %p_up, i1 %p2
  %src = select i1 %in_range, i32 %j3, i32 %lane
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %src
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag = load i64, ptr %tagp, align 8
  %seen = load i64, ptr %slot, align 8
  %present = icmp eq i64 %seen, %tag
  br i1 %present, label %read, label %absent
absent:
  %w = call i32 @field(ptr %st, i32 5)
  call void @fail_here(ptr %st, i32 $ERROR_ABSENT_LANE, i32 %lane, i32 %src, i32 %w)
  unreachable
read:
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  %v = load i32, ptr %valp, align 4
  %want_pred = icmp ne ptr %pred, null
  br i1 %want_pred, label %store_pred, label %exit
store_pred:
  %p8 = zext i1 %in_range to i8
  store i8 %p8, ptr %pred, align 1
  br label %exit
exit:
  ret i32 %v
}

; vote.sync: op 0 all, 1 any, 2 uni, 3 ballot, over the lanes that took part.
define i32 @tin_simt_vote(i32 %op, i32 %mask, i32 %pred) {
entry:
  %st = call ptr @self()
  %nonzero = icmp ne i32 %pred, 0
  %bit = zext i1 %nonzero to i32
  %row = call ptr @exchange(ptr %st, i32 %mask, i32 %bit)
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag = load i64, ptr %tagp, align 8
  br label %scan
scan:
  %l = phi i32 [ 0, %entry ], [ %l1, %scan ]
  %part = phi i32 [ 0, %entry ], [ %part1, %scan ]
  %ballot = phi i32 [ 0, %entry ], [ %ballot1, %scan ]
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %l
  %seen = load i64, ptr %slot, align 8
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  %v = load i32, ptr %valp, align 4
  %present = icmp eq i64 %seen, %tag
  %lanebit = shl i32 1, %l
  %pbit = select i1 %present, i32 %lanebit, i32 0
  %part1 = or i32 %part, %pbit
  %yes = icmp ne i32 %v, 0
  %vote = and i1 %present, %yes
  %vbit = select i1 %vote, i32 %lanebit, i32 0
  %ballot1 = or i32 %ballot, %vbit
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, 32
  br i1 %more, label %scan, label %done
done:
  %all = icmp eq i32 %ballot1, %part1
  %any = icmp ne i32 %ballot1, 0
  %none = icmp eq i32 %ballot1, 0
  %uni = or i1 %all, %none
  %all32 = zext i1 %all to i32
  %any32 = zext i1 %any to i32
  %uni32 = zext i1 %uni to i32
  %is_all = icmp eq i32 %op, 0
  %is_any = icmp eq i32 %op, 1
  %is_uni = icmp eq i32 %op, 2
  %r1 = select i1 %is_uni, i32 %uni32, i32 %ballot1
  %r2 = select i1 %is_any, i32 %any32, i32 %r1
  %r = select i1 %is_all, i32 %all32, i32 %r2
  ret i32 %r
}

; The lanes of the caller's warp that have not exited (which lanes are converged is
; not known to the emulator).
define i32 @tin_simt_activemask() {
entry:
  %st = call ptr @self()
  %lanes = call i32 @warp_lanes(ptr %st)
  %w = call i32 @field(ptr %st, i32 5)
  %first = shl i32 %w, 5
  br label %scan
scan:
  %l = phi i32 [ 0, %entry ], [ %l1, %scan ]
  %mask = phi i32 [ 0, %entry ], [ %mask1, %scan ]
  %i = add i32 %first, %l
  %other = getelementptr [1024 x %State], ptr @states, i64 0, i32 %i
  %ex = getelementptr %State, ptr %other, i32 0, i32 10
  %gone = load atomic i32, ptr %ex acquire, align 4
  %here = icmp eq i32 %gone, 0
  %bit = shl i32 1, %l
  %add = select i1 %here, i32 %bit, i32 0
  %mask1 = or i32 %mask, %add
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, %lanes
  br i1 %more, label %scan, label %done
done:
  ret i32 %mask1
}
"""
