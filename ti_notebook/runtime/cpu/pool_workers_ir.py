"""LLVM IR of the pool's worker threads, appended to the pool's module.

Part of the native thread pool's IR (``threadpool_ir.py`` puts the pieces together and
describes the protocol). The workers are spawned on the first parallel launch
(``@ensure_started``), with the asynchronous signals blocked so that Ctrl-C reaches the
interpreter's threads; each spins ``$WORKER_SPIN`` ``pause`` iterations on the job
generation, then sleeps on it, and claims chunks of every job it joins. A thread knows
its place in the pool by its ``pthread_self``, which is how a launch from inside a task
is recognised (and run inline). A forked child forgets the parent's workers.

    >>> "define internal ptr @worker_main(" in WORKERS_IR, "@tin_pool_size$SFX()" in WORKERS_IR
    (True, True)
    >>> hex(ASYNC_SIGNALS_WORD0 & 0xFFFF)  # SIGINT (bit 1) blocked; ILL..FPE, SEGV open
    '0xfb07'
"""

from __future__ import annotations

__all__ = ["ASYNC_SIGNALS_WORD0", "WORKERS_IR"]

# First 64-bit word of the workers' blocked-signal set (``$SIGMASK0``): all signals but
# the synchronous fault signals (signal s is bit s - 1).
_FAULT_SIGNALS = (4, 5, 6, 7, 8, 11, 31)  # ILL TRAP ABRT BUS FPE SEGV SYS
ASYNC_SIGNALS_WORD0 = ((1 << 64) - 1) ^ sum(1 << (s - 1) for s in _FAULT_SIGNALS)
ASYNC_SIGNALS_WORD0 -= 1 << 64  # as a signed i64 literal

WORKERS_IR = r"""
@started = internal global i32 0                      ; workers spawned (lazily)
@spawn_gen = internal global i32 0                    ; @gen when workers were spawned
@worker_self = internal global [$NTHREADS x i64] zeroinitializer

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_sigmask(i32, ptr, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define internal ptr @worker_main(ptr %arg) {
entry:
  %id64 = ptrtoint ptr %arg to i64
  %id = trunc i64 %id64 to i32
  %self = call i64 @pthread_self()
  %slot = getelementptr [$NTHREADS x i64], ptr @worker_self, i64 0, i64 %id64
  store atomic i64 %self, ptr %slot monotonic, align 8
  ; Start from the generation current at spawn time, not at thread start: the first job
  ; may already be published when this thread first runs.
  %g0 = load atomic i32, ptr @spawn_gen monotonic, align 4
  br label %wait
wait:
  %my = phi i32 [ %g0, %entry ], [ %g, %got ], [ %g, %work ]
  br label %spin
spin:
  %i = phi i32 [ 0, %wait ], [ %i1, %pause ]
  %g1 = load atomic i32, ptr @gen acquire, align 4
  %new1 = icmp ne i32 %g1, %my
  br i1 %new1, label %got, label %pause
pause:
  call void @llvm.x86.sse2.pause()
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, $WORKER_SPIN
  br i1 %more, label %spin, label %sleep
sleep:
  %s0 = atomicrmw add ptr @sleepers, i32 1 seq_cst, align 4
  br label %check
check:
  %g2 = load atomic i32, ptr @gen seq_cst, align 4
  %new2 = icmp ne i32 %g2, %my
  br i1 %new2, label %woke, label %block
block:
  call void @futex_wait(ptr @gen, i32 %my)
  br label %check
woke:
  %s1 = atomicrmw sub ptr @sleepers, i32 1 seq_cst, align 4
  br label %got
got:
  %g = phi i32 [ %g1, %spin ], [ %g2, %woke ]
  ; May read a newer job's value if this thread is late; then its claims for %g fail
  ; anyway, so max_threads is never exceeded.
  %nt = load atomic i32, ptr @job_threads monotonic, align 4
  %part = icmp slt i32 %id, %nt
  br i1 %part, label %work, label %wait
work:
  call void @run_chunks(i32 %g)
  br label %wait
}

; Spawns the workers on first use (called with @lock held).
define internal void @ensure_started() {
entry:
  %st = load atomic i32, ptr @started monotonic, align 4
  %done = icmp ne i32 %st, 0
  br i1 %done, label %exit, label %spawn
spawn:
  %g = load atomic i32, ptr @gen monotonic, align 4
  store atomic i32 %g, ptr @spawn_gen monotonic, align 4
  ; Workers inherit the signal mask: block the asynchronous signals so they (Ctrl-C)
  ; keep going to the interpreter's threads. Fault signals (SEGV, BUS, FPE, ILL, TRAP,
  ; ABRT, SYS) stay open so a crash in a task still reaches faulthandler; glibc never
  ; blocks its own internal signals.
  %all = alloca [16 x i64], align 8
  %saved = alloca [16 x i64], align 8
  %tid = alloca i64, align 8
  call void @llvm.memset.p0.i64(ptr %all, i8 -1, i64 128, i1 false)
  store i64 $SIGMASK0, ptr %all, align 8
  %m0 = call i32 @pthread_sigmask(i32 2, ptr %all, ptr %saved)
  %size = load atomic i32, ptr @size monotonic, align 4
  br label %loop
loop:
  %i = phi i32 [ 1, %spawn ], [ %i1, %created ]
  %todo = icmp slt i32 %i, %size
  br i1 %todo, label %create, label %finish
create:
  %i64 = zext i32 %i to i64
  %arg = inttoptr i64 %i64 to ptr
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker_main, ptr %arg)
  %ok = icmp eq i32 %rc, 0
  %i1 = add i32 %i, 1
  br i1 %ok, label %created, label %finish
created:
  br label %loop
finish:
  ; If the OS refused a thread, the pool is just smaller (down to the caller alone).
  %n = phi i32 [ %i, %loop ], [ %i, %create ]
  store atomic i32 %n, ptr @size monotonic, align 4
  %m1 = call i32 @pthread_sigmask(i32 2, ptr %saved, ptr null)
  store atomic i32 1, ptr @started monotonic, align 4
  br label %exit
exit:
  ret void
}

; k when thread %me is worker k of this pool (1 ..), else 0.
define internal i64 @worker_index(i64 %me) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 1, %entry ], [ %i1, %next ]
  %todo = icmp slt i64 %i, $NTHREADS
  br i1 %todo, label %test, label %no
test:
  %slot = getelementptr [$NTHREADS x i64], ptr @worker_self, i64 0, i64 %i
  %w = load atomic i64, ptr %slot monotonic, align 8
  %isw = icmp eq i64 %w, %me
  %i1 = add i64 %i, 1
  br i1 %isw, label %yes, label %next
next:
  br label %loop
yes:
  ret i64 %i
no:
  ret i64 0
}

; True when the calling thread is inside a job of this pool (launcher or worker).
define internal i1 @in_pool(i64 %me) {
entry:
  %own = load atomic i64, ptr @owner monotonic, align 8
  %isown = icmp eq i64 %own, %me
  br i1 %isown, label %yes, label %workers
workers:
  %k = call i64 @worker_index(i64 %me)
  %isworker = icmp ne i64 %k, 0
  ret i1 %isworker
yes:
  ret i1 true
}

; In a forked child only the forking thread exists: forget the parent's workers (they
; are respawned on the next launch) and any lock a parent thread held.
define void @tin_pool_after_fork$SFX() {
  store i32 $NTHREADS, ptr @size, align 4
  store i32 0, ptr @started, align 4
  store i32 0, ptr @lock, align 4
  store i64 0, ptr @owner, align 8
  store i32 0, ptr @sleepers, align 4
  store i32 0, ptr @caller_waiting, align 4
  call void @llvm.memset.p0.i64(ptr @worker_self, i8 0, i64 $SELF_BYTES, i1 false)
  ret void
}

; For tests and diagnostics: whether workers were spawned, and how many threads exist.
define i32 @tin_pool_started$SFX() {
  %s = load atomic i32, ptr @started monotonic, align 4
  ret i32 %s
}

; The calling thread's place in the pool: k for worker k (1 ..), 0 for any other thread
; (the launcher). The profiler's per-thread spans are kept by it.
define i32 @tin_thread_index$SFX() {
  %me = call i64 @pthread_self()
  %k = call i64 @worker_index(i64 %me)
  %index = trunc i64 %k to i32
  ret i32 %index
}

define i32 @tin_pool_size$SFX() {
  %s = load atomic i32, ptr @size monotonic, align 4
  ret i32 %s
}
"""
