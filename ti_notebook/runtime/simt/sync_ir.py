"""LLVM IR of the emulator's kernel-facing runtime: thread state, indices, barriers.

Rewritten kernels call these ``tin_simt_*`` functions where the NVPTX module called NVVM
intrinsics (``intrinsics.py`` makes the calls); warp operations are in ``warp_ir.py``.
They find the calling CUDA thread's state with ``pthread_getspecific`` (one libc call,
a few nanoseconds; the index reads keep the intrinsics' ``memory(none)``, so LLVM hoists
them out of loops anyway).

Barriers are a 64-bit word ``expected << 32 | arrived`` changed only by compare-and-swap,
plus a generation counter that waiters sleep on (futex). A thread that leaves the kernel
calls ``@leave``, which lowers ``expected`` and completes the barrier if everyone else
is already waiting: an exited thread counts as arrived, so early returns never hang the
rest of the block. Warp barriers are the same thing per warp.

Errors (an unsupported mask, a shuffle from an absent lane, a trap, a deadlock found by
the watchdog in ``pool_ir.py``) set ``@abort``, bump every barrier generation so that
sleepers wake, and leave the kernel with ``longjmp`` to the block loop, which skips the
remaining blocks. The launcher then raises a Python exception that names the kernel.

    >>> "define void @tin_simt_barrier(" in SYNC_IR
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
ERROR_INTERRUPTED = 7  # SIGINT
ERROR_STALLED = 8  # a block that can only wait for another block (watch_ir.py)

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
@spin = internal global i32 0              ; pause iterations before a futex sleep
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
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 128, i64 %v, ptr null)
  ret void
}

define internal void @futex_wake(ptr %addr) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 129, i64 2147483647)
  ret void
}

; Returns once *%word != %g: a short spin (@spin pauses), up to %yields sched_yield
; calls, then futex sleeps (see runtime.py for the numbers).
define internal void @await(ptr %word, i32 %g, i32 %yields) {
entry:
  %limit = load i32, ptr @spin, align 4
  br label %spin
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %pause ]
  %v = load atomic i32, ptr %word acquire, align 4
  %changed = icmp ne i32 %v, %g
  br i1 %changed, label %out, label %pause
pause:
  call void @llvm.x86.sse2.pause()
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %limit
  br i1 %more, label %spin, label %start_yield
start_yield:
  %no_yield = icmp eq i32 %yields, 0
  br i1 %no_yield, label %sleep, label %yield
yield:
  %y = phi i32 [ 0, %start_yield ], [ %y1, %yield_check ]
  %ry = call i64 (i64, ...) @syscall(i64 24)
  %vy = load atomic i32, ptr %word acquire, align 4
  %changedy = icmp ne i32 %vy, %g
  br i1 %changedy, label %out, label %yield_check
yield_check:
  %y1 = add i32 %y, 1
  %morey = icmp ult i32 %y1, %yields
  br i1 %morey, label %yield, label %sleep
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
  call void @await(ptr %word, i32 %g, i32 $YIELDS)
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
"""
