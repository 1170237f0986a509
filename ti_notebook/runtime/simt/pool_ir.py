"""LLVM IR of the emulator's thread pool, block loop and launcher.

It is appended to ``sync_ir.SYNC_IR`` (the two share the globals declared there) and
compiled once per process into the JIT by ``runtime.py``.

- Worker ``i`` is a native thread (``pthread_create``) that runs CUDA thread ``i`` of
  every block; workers are made when a launch first needs them and then sleep on their
  own futex word (``go``) between launches, so a launch wakes only the threads it uses.
- Blocks run one after another: each worker runs its thread of block ``b``, leaves the
  barriers (an exited thread counts as arrived), then waits at an end-of-block barrier
  whose last arriver prepares block ``b + 1`` (indices, barrier counts, exchange tags).
  One copy of shared memory is therefore enough.
- ``setjmp`` before each kernel call is where a failing thread lands (``@escape``).
- The launcher (the Python thread, inside a ctypes call that released the GIL) sleeps on
  ``@done`` and wakes every ``$POLL_MS`` ms (``watch_ir.py``): it turns SIGINT into an
  abort, and looks for a deadlock (every live thread of the block waiting on a barrier
  generation that has not moved, and no progress, barrier completions or exits, for
  ``quiet_polls`` polls in a row: exact, no time limit on slow kernels) or a stall (a
  block whose threads spin in loops that cannot end, for ``stall_polls`` polls).

    >>> "define i32 @tin_simt_launch(" in POOL_IR
    True
"""

from __future__ import annotations

POOL_IR = r"""
@pool_size = internal global i32 0
@launch_gen = internal global i32 0
@entry = internal global ptr null
@args = internal global ptr null
@nblocks = internal global i64 0
@block = internal global i64 0             ; linear index of the block being run
@block_serial = internal global i64 0      ; blocks over all launches: exchange tags
@end_arrived = internal global i32 0
@end_gen = internal global i32 0           ; end-of-block barrier generation (futex)
@done = internal global i32 0              ; workers finished with the launch (futex)

declare i32 @pthread_key_create(ptr, ptr)
declare i32 @pthread_setspecific(i32, ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(i64)
declare i32 @pthread_attr_init(ptr)
declare i32 @pthread_attr_setstacksize(ptr, i64)
declare i32 @pthread_attr_destroy(ptr)
declare i32 @pthread_sigmask(i32, ptr, ptr)
declare i32 @_setjmp(ptr) returns_twice
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define i32 @tin_simt_init() {
  %rc = call i32 @pthread_key_create(ptr @key, ptr null)
  ret i32 %rc
}

; A forked child has none of the workers: forget them (their states restart at zero).
define void @tin_simt_after_fork() {
  store i32 0, ptr @pool_size, align 4
  %end = getelementptr [1024 x %State], ptr null, i64 1
  %bytes = ptrtoint ptr %end to i64
  call void @llvm.memset.p0.i64(ptr @states, i8 0, i64 %bytes, i1 false)
  ret void
}

define ptr @tin_simt_error_info() {
  ret ptr @error
}

define internal ptr @state(i32 %i) {
  %p = getelementptr [1024 x %State], ptr @states, i64 0, i32 %i
  ret ptr %p
}

; Sets up block %b: its indices, full barrier counts, fresh thread states.
define internal void @setup_block(i64 %b) {
entry:
  store i64 %b, ptr @block, align 8
  %gx = load i32, ptr @nctaid, align 4
  %gyp = getelementptr [3 x i32], ptr @nctaid, i64 0, i64 1
  %gy = load i32, ptr %gyp, align 4
  %gx64 = zext i32 %gx to i64
  %gy64 = zext i32 %gy to i64
  %x = urem i64 %b, %gx64
  %bx = udiv i64 %b, %gx64
  %y = urem i64 %bx, %gy64
  %z = udiv i64 %bx, %gy64
  %x32 = trunc i64 %x to i32
  %y32 = trunc i64 %y to i32
  %z32 = trunc i64 %z to i32
  store i32 %x32, ptr @ctaid, align 4
  %cy = getelementptr [3 x i32], ptr @ctaid, i64 0, i64 1
  store i32 %y32, ptr %cy, align 4
  %cz = getelementptr [3 x i32], ptr @ctaid, i64 0, i64 2
  store i32 %z32, ptr %cz, align 4
  %n = load i32, ptr @nthreads, align 4
  %n64 = zext i32 %n to i64
  %full = shl i64 %n64, 32
  store atomic i64 %full, ptr @bar monotonic, align 8
  call void @llvm.memset.p0.i64(ptr @reduce, i8 0, i64 16, i1 false)
  %serial = atomicrmw add ptr @block_serial, i64 1 monotonic, align 8
  call void @reset_polls(i32 %n)
  br label %warps
warps:
  %w = phi i32 [ 0, %entry ], [ %w1, %warps ]
  %first = shl i32 %w, 5
  %rest = sub i32 %n, %first
  %small = icmp ult i32 %rest, 32
  %lanes = select i1 %small, i32 %rest, i32 32
  %lanes64 = zext i32 %lanes to i64
  %wfull = shl i64 %lanes64, 32
  %wb = getelementptr [32 x %Barrier], ptr @warp_bars, i64 0, i32 %w
  store atomic i64 %wfull, ptr %wb monotonic, align 8
  %w1 = add i32 %w, 1
  %more = icmp ult i32 %w1, 32
  br i1 %more, label %warps, label %threads
threads:
  %i = phi i32 [ 0, %warps ], [ %i1, %threads ]
  %st = call ptr @state(i32 %i)
  %ex = getelementptr %State, ptr %st, i32 0, i32 10
  store atomic i32 0, ptr %ex monotonic, align 4
  %wk = getelementptr %State, ptr %st, i32 0, i32 7
  store atomic i32 0, ptr %wk monotonic, align 4
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag = shl i64 %serial, 32
  store i64 %tag, ptr %tagp, align 8
  %i1 = add i32 %i, 1
  %more_threads = icmp ult i32 %i1, %n
  br i1 %more_threads, label %threads, label %exit
exit:
  ret void
}

; The end-of-block barrier over all the launch's threads; its last arriver sets up the
; next block before it lets the others go.
define internal void @end_block() {
entry:
  %g = load atomic i32, ptr @end_gen acquire, align 4
  %n = load i32, ptr @nthreads, align 4
  %old = atomicrmw add ptr @end_arrived, i32 1 acq_rel, align 4
  %now = add i32 %old, 1
  %last = icmp eq i32 %now, %n
  br i1 %last, label %next, label %wait
next:
  store i32 0, ptr @end_arrived, align 4
  %b = load i64, ptr @block, align 8
  %b1 = add i64 %b, 1
  call void @setup_block(i64 %b1)
  %p = atomicrmw add ptr @progress, i32 1 monotonic, align 4
  %g0 = atomicrmw add ptr @end_gen, i32 1 release, align 4
  call void @futex_wake(ptr @end_gen)
  ret void
wait:
  call void @await(ptr @end_gen, i32 %g, i32 $YIELDS)
  ret void
}

define internal void @run_blocks(ptr %st) {
entry:
  %wp = getelementptr %State, ptr %st, i32 0, i32 5
  %w = load i32, ptr %wp, align 4
  %wb = getelementptr [32 x %Barrier], ptr @warp_bars, i64 0, i32 %w
  %ex = getelementptr %State, ptr %st, i32 0, i32 10
  %jb = getelementptr %State, ptr %st, i32 0, i32 12
  %nb = load i64, ptr @nblocks, align 8
  br label %block
block:
  %b = load i64, ptr @block, align 8
  %more = icmp ult i64 %b, %nb
  br i1 %more, label %check, label %exit
check:
  %ab = load atomic i32, ptr @abort acquire, align 4
  %stop = icmp ne i32 %ab, 0
  br i1 %stop, label %finish, label %run
run:
  %r = call i32 @_setjmp(ptr %jb)
  %first = icmp eq i32 %r, 0
  br i1 %first, label %call, label %finish
call:
  %f = load ptr, ptr @entry, align 8
  %a = load ptr, ptr @args, align 8
  call void %f(ptr %a)
  br label %finish
finish:
  store atomic i32 1, ptr %ex release, align 4
  call void @leave(ptr @bar)
  call void @leave(ptr %wb)
  %p = atomicrmw add ptr @progress, i32 1 monotonic, align 4
  call void @end_block()
  br label %block
exit:
  ret void
}

define internal ptr @worker_main(ptr %st) {
entry:
  %k = load i32, ptr @key, align 4
  %rc = call i32 @pthread_setspecific(i32 %k, ptr %st)
  %go = getelementptr %State, ptr %st, i32 0, i32 6
  br label %wait
wait:
  %seen = phi i32 [ 0, %entry ], [ %gen, %wait ], [ %gen, %wake ]
  call void @await(ptr %go, i32 %seen, i32 0)
  %gen = load atomic i32, ptr %go acquire, align 4
  call void @run_blocks(ptr %st)
  %n = load i32, ptr @nthreads, align 4
  %old = atomicrmw add ptr @done, i32 1 acq_rel, align 4
  %now = add i32 %old, 1
  %last = icmp eq i32 %now, %n
  br i1 %last, label %wake, label %wait
wake:
  call void @futex_wake(ptr @done)
  br label %wait
}

; Makes workers up to %n; returns false if the OS refuses a thread. Workers block
; asynchronous signals, so SIGINT still reaches the Python thread.
define internal i1 @grow_pool(i32 %n) {
entry:
  %have = load i32, ptr @pool_size, align 4
  %enough = icmp uge i32 %have, %n
  br i1 %enough, label %ok, label %spawn
spawn:
  %all = alloca [16 x i64], align 8
  %saved = alloca [16 x i64], align 8
  %attr = alloca [8 x i64], align 8
  %tid = alloca i64, align 8
  call void @llvm.memset.p0.i64(ptr %all, i8 -1, i64 128, i1 false)
  %m0 = call i32 @pthread_sigmask(i32 0, ptr %all, ptr %saved)
  %a0 = call i32 @pthread_attr_init(ptr %attr)
  %a1 = call i32 @pthread_attr_setstacksize(ptr %attr, i64 $STACK_BYTES)
  br label %loop
loop:
  %i = phi i32 [ %have, %spawn ], [ %i1, %made ]
  %todo = icmp ult i32 %i, %n
  br i1 %todo, label %create, label %finish
create:
  %st = call ptr @state(i32 %i)
  store i32 %i, ptr %st, align 4
  %rc = call i32 @pthread_create(ptr %tid, ptr %attr, ptr @worker_main, ptr %st)
  %made_ok = icmp eq i32 %rc, 0
  br i1 %made_ok, label %made, label %finish
made:
  %t = load i64, ptr %tid, align 8
  %d = call i32 @pthread_detach(i64 %t)
  %i1 = add i32 %i, 1
  store i32 %i1, ptr @pool_size, align 4
  br label %loop
finish:
  %count = phi i32 [ %i, %loop ], [ %i, %create ]
  %a2 = call i32 @pthread_attr_destroy(ptr %attr)
  %m1 = call i32 @pthread_sigmask(i32 2, ptr %saved, ptr null)
  %got = icmp uge i32 %count, %n
  ret i1 %got
ok:
  ret i1 true
}

define internal void @futex_wait_ms(ptr %addr, i32 %val, i32 %ms) {
  %ts = alloca [2 x i64], align 8
  %sec = udiv i32 %ms, 1000
  %rest = urem i32 %ms, 1000
  %sec64 = zext i32 %sec to i64
  %ns32 = mul i32 %rest, 1000000
  %ns = zext i32 %ns32 to i64
  store i64 %sec64, ptr %ts, align 8
  %nsp = getelementptr [2 x i64], ptr %ts, i64 0, i64 1
  store i64 %ns, ptr %nsp, align 8
  %v = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 128, i64 %v, ptr %ts)
  ret void
}

; Runs a launch: %dims = block x, y, z, grid x, y, z; %spin: see @await; %interrupt:
; the SIGINT state [interrupted, launch running]. Returns 0 or an error code (details
; in tin_simt_error_info()).
define i32 @tin_simt_launch(ptr %entry_fn, ptr %args_ptr, ptr %dims, i32 %quiet_polls,
                            i32 %spin, i32 %stall_polls, ptr %interrupt) {
entry:
  store atomic i32 0, ptr %interrupt monotonic, align 4
  %running = getelementptr i32, ptr %interrupt, i64 1
  store atomic i32 1, ptr %running seq_cst, align 4
  store i32 %spin, ptr @spin, align 4
  store ptr %entry_fn, ptr @entry, align 8
  store ptr %args_ptr, ptr @args, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr @ntid, ptr %dims, i64 12, i1 false)
  %gdims = getelementptr [6 x i32], ptr %dims, i64 0, i64 3
  call void @llvm.memcpy.p0.p0.i64(ptr @nctaid, ptr %gdims, i64 12, i1 false)
  %bx = load i32, ptr @ntid, align 4
  %byp = getelementptr [3 x i32], ptr @ntid, i64 0, i64 1
  %by = load i32, ptr %byp, align 4
  %bzp = getelementptr [3 x i32], ptr @ntid, i64 0, i64 2
  %bz = load i32, ptr %bzp, align 4
  %bxy = mul i32 %bx, %by
  %n = mul i32 %bxy, %bz
  store i32 %n, ptr @nthreads, align 4
  %gx = load i32, ptr @nctaid, align 4
  %gyp = getelementptr [3 x i32], ptr @nctaid, i64 0, i64 1
  %gy = load i32, ptr %gyp, align 4
  %gzp = getelementptr [3 x i32], ptr @nctaid, i64 0, i64 2
  %gz = load i32, ptr %gzp, align 4
  %gx64 = zext i32 %gx to i64
  %gy64 = zext i32 %gy to i64
  %gz64 = zext i32 %gz to i64
  %gxy = mul i64 %gx64, %gy64
  %nb = mul i64 %gxy, %gz64
  store i64 %nb, ptr @nblocks, align 8
  call void @llvm.memset.p0.i64(ptr @error, i8 0, i64 24, i1 false)
  store atomic i32 0, ptr @abort seq_cst, align 4
  %grown = call i1 @grow_pool(i32 %n)
  br i1 %grown, label %entry_ok, label %no_threads
no_threads:
  %have = load i32, ptr @pool_size, align 4
  call void @fail(ptr null, i32 $ERROR_THREADS, i32 %n, i32 %have, i32 0)
  %running_off = getelementptr i32, ptr %interrupt, i64 1
  store atomic i32 0, ptr %running_off seq_cst, align 4
  ret i32 $ERROR_THREADS
coords:
  %i = phi i32 [ 0, %entry_ok ], [ %i1, %coords ]
  %st = call ptr @state(i32 %i)
  %tx = urem i32 %i, %bx
  %rest = udiv i32 %i, %bx
  %ty = urem i32 %rest, %by
  %tz = udiv i32 %rest, %by
  %lane = and i32 %i, 31
  %warp = lshr i32 %i, 5
  %p1 = getelementptr [13 x i32], ptr %st, i64 0, i64 1
  store i32 %tx, ptr %p1, align 4
  %p2 = getelementptr [13 x i32], ptr %st, i64 0, i64 2
  store i32 %ty, ptr %p2, align 4
  %p3 = getelementptr [13 x i32], ptr %st, i64 0, i64 3
  store i32 %tz, ptr %p3, align 4
  %p4 = getelementptr [13 x i32], ptr %st, i64 0, i64 4
  store i32 %lane, ptr %p4, align 4
  %p5 = getelementptr [13 x i32], ptr %st, i64 0, i64 5
  store i32 %warp, ptr %p5, align 4
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %coords, label %start
entry_ok:
  br label %coords
start:
  store i32 0, ptr @end_arrived, align 4
  store i32 0, ptr @done, align 4
  call void @setup_block(i64 0)
  %gen0 = load i32, ptr @launch_gen, align 4
  %gen = add i32 %gen0, 1
  store i32 %gen, ptr @launch_gen, align 4
  br label %wake
wake:
  %j = phi i32 [ 0, %start ], [ %j1, %wake ]
  %sj = call ptr @state(i32 %j)
  %go = getelementptr %State, ptr %sj, i32 0, i32 6
  store atomic i32 %gen, ptr %go release, align 4
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %go, i64 129, i64 1)
  %j1 = add i32 %j, 1
  %more_wake = icmp ult i32 %j1, %n
  br i1 %more_wake, label %wake, label %watch
watch:
  call void @watch(i32 %n, i32 %quiet_polls, i32 %stall_polls, ptr %interrupt)
  ; the interrupt handler raises the flag only while this is set (interrupt_ir.py)
  %running_end = getelementptr i32, ptr %interrupt, i64 1
  store atomic i32 0, ptr %running_end seq_cst, align 4
  br label %exit
exit:
  %code = load i32, ptr @error, align 4
  ret i32 %code
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"""
