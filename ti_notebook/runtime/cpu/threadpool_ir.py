"""LLVM IR text of the native thread pool (see :mod:`ti_notebook.runtime.cpu.threadpool`).

The template is filled with :class:`string.Template` (``$NAME`` placeholders), because
LLVM IR is full of braces that ``str.format`` would need escaped:

- ``$SFX``: suffix of the exported symbols, so several pools can live in one JIT;
- ``$NTHREADS``: pool size, caller included (one more than the worker threads);
- ``$WORKER_SPIN`` / ``$CALLER_SPIN`` / ``$LOCK_SPIN``: ``pause`` iterations before a
  worker, a launching thread waiting for the stragglers, or a second launching thread
  falls back to a futex sleep.

One pool's module is four pieces, each a module: the launch, here (``LAUNCH_IR``: the
job descriptor, claiming and running chunks, waiting for them, ``tin_parallel_for``);
the futex calls and the launch mutex (``futex_ir.py``); the worker threads, spawned on
first use (``pool_workers_ir.py``); the interrupt state and handler (``interrupt_ir.py``).

Protocol, in short (the comments in the IR say why each step is ordered as it is):

- ``@gen`` (a futex word) is the job generation. Publishing job ``g`` means writing the
  job descriptor, then ``@claim = g << 32 | nchunks`` (release), then ``@gen = g``.
- Chunks are claimed by a compare-and-swap that decrements the low half of ``@claim``
  *only if the high half is still the generation the claimant saw*. A worker that
  observed an old generation therefore can never take a chunk of a newer job, and the
  descriptor is read only after a successful claim, when the launcher is still waiting
  for that chunk and so cannot overwrite the descriptor.
- ``@done`` counts finished chunks; the launcher returns once it equals ``nchunks``.
- ``@sleepers`` counts workers in (or about to enter) ``FUTEX_WAIT`` on ``@gen``; the
  launcher makes the wake syscall only when it is non-zero. Both sides use seq_cst
  (store gen / load sleepers vs. add sleepers / load gen), so one of them always sees
  the other: no lost wakeup.
- ``@lock`` is a futex mutex (0 free, 1 held, 2 held with waiters) serialising launches.
  A launch from inside a running task (the launcher itself or a worker) would deadlock
  on it, so such nested launches run inline instead.
"""

from __future__ import annotations

from string import Template

from ti_notebook.runtime.cpu.futex_ir import FUTEX_IR
from ti_notebook.runtime.cpu.interrupt_ir import INTERRUPT_IR
from ti_notebook.runtime.cpu.pool_workers_ir import ASYNC_SIGNALS_WORD0, WORKERS_IR

LAUNCH_IR = r"""
@size = internal global i32 $NTHREADS                 ; threads, caller included
@lock = internal global i32 0                         ; launch mutex (futex word)
@owner = internal global i64 0                        ; pthread_self of the launcher
@gen = internal global i32 0                          ; job generation (futex word)
@sleepers = internal global i32 0                     ; workers sleeping on @gen
@claim = internal global i64 0                        ; gen << 32 | chunks left
@done = internal global i32 0                         ; chunks finished (futex word)
@caller_waiting = internal global i32 0               ; launcher sleeps on @done
@job_task = internal global ptr null
@job_ctx = internal global ptr null
@job_begin = internal global i64 0
@job_end = internal global i64 0
@job_chunk = internal global i64 0
@job_nchunks = internal global i32 0
@job_threads = internal global i32 0                  ; workers with id < this join

declare i64 @pthread_self()
declare void @llvm.x86.sse2.pause()

; Claims and runs chunks of job %g until none is left (or a newer job replaced it).
define internal void @run_chunks(i32 %g) {
entry:
  %g64 = zext i32 %g to i64
  %tag = shl i64 %g64, 32
  br label %load
load:
  %w = load atomic i64, ptr @claim monotonic, align 8
  br label %try
try:
  %cur = phi i64 [ %w, %load ], [ %seen, %cas ]
  %hi = and i64 %cur, -4294967296
  %same = icmp eq i64 %hi, %tag
  %left = and i64 %cur, 4294967295
  %has = icmp ne i64 %left, 0
  %ok = and i1 %same, %has
  br i1 %ok, label %cas, label %exit
cas:
  %dec = sub i64 %cur, 1
  %pair = cmpxchg ptr @claim, i64 %cur, i64 %dec acq_rel monotonic, align 8
  %seen = extractvalue { i64, i1 } %pair, 0
  %won = extractvalue { i64, i1 } %pair, 1
  br i1 %won, label %run, label %try
run:
  ; The chunk is ours and job %g cannot finish before we count it done, so the
  ; descriptor (published before @claim with release) is stable until then.
  %nch = load i32, ptr @job_nchunks, align 4
  %nch64 = zext i32 %nch to i64
  %idx = sub i64 %nch64, %left
  %task = load ptr, ptr @job_task, align 8
  %ctx = load ptr, ptr @job_ctx, align 8
  %begin = load i64, ptr @job_begin, align 8
  %end = load i64, ptr @job_end, align 8
  %chunk = load i64, ptr @job_chunk, align 8
  %off = mul i64 %idx, %chunk
  %cb = add i64 %begin, %off
  %rest = sub i64 %end, %cb
  %full = icmp sgt i64 %rest, %chunk
  %cbc = add i64 %cb, %chunk
  %ce = select i1 %full, i64 %cbc, i64 %end
  ; After an interrupt the remaining chunks are counted done without running them.
  %stopped = load atomic i32, ptr @interrupt_state monotonic, align 4
  %skip = icmp ne i32 %stopped, 0
  br i1 %skip, label %count, label %call
call:
  call void %task(ptr %ctx, i64 %cb, i64 %ce)
  br label %count
count:
  %old = atomicrmw add ptr @done, i32 1 seq_cst, align 4
  %now = add i32 %old, 1
  %last = icmp eq i32 %now, %nch
  br i1 %last, label %notify, label %load
notify:
  ; Only the last chunk can release the launcher; wake it only if it went to sleep.
  %cw = load atomic i32, ptr @caller_waiting seq_cst, align 4
  %cwz = icmp eq i32 %cw, 0
  br i1 %cwz, label %exit, label %wake
wake:
  call void @futex_wake(ptr @done, i32 1)
  br label %exit
exit:
  ret void
}

; The launcher waits for the chunks other threads are still running.
define internal void @wait_done(i32 %nch) {
entry:
  br label %spin
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %pause ]
  %d = load atomic i32, ptr @done acquire, align 4
  %fin = icmp eq i32 %d, %nch
  br i1 %fin, label %exit, label %pause
pause:
  call void @llvm.x86.sse2.pause()
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, $CALLER_SPIN
  br i1 %more, label %spin, label %sleep
sleep:
  store atomic i32 1, ptr @caller_waiting seq_cst, align 4
  br label %check
check:
  %d2 = load atomic i32, ptr @done seq_cst, align 4
  %fin2 = icmp eq i32 %d2, %nch
  br i1 %fin2, label %woke, label %block
block:
  call void @futex_wait(ptr @done, i32 %d2)
  br label %check
woke:
  store atomic i32 0, ptr @caller_waiting monotonic, align 4
  br label %exit
exit:
  ret void
}

; ceil(n / d) for n >= 0, d > 0, without overflow.
define internal i64 @ceil_div(i64 %n, i64 %d) {
  %q = udiv i64 %n, %d
  %r = urem i64 %n, %d
  %nz = icmp ne i64 %r, 0
  %up = zext i1 %nz to i64
  %c = add i64 %q, %up
  ret i64 %c
}

define void @tin_parallel_for$SFX(ptr %task, ptr %ctx, i64 %begin, i64 %end, i64 %grain,
                                  i32 %max_threads) {
entry:
  %n = sub i64 %end, %begin
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %decide
decide:
  %gpos = icmp sgt i64 %grain, 0
  %small = icmp sle i64 %n, %grain
  %fits = and i1 %gpos, %small
  %size = load atomic i32, ptr @size monotonic, align 4
  %allt = icmp sle i32 %max_threads, 0
  %want = select i1 %allt, i32 %size, i32 %max_threads
  %less = icmp slt i32 %want, %size
  %threads = select i1 %less, i32 %want, i32 %size
  %one = icmp sle i32 %threads, 1
  %inl = or i1 %fits, %one
  br i1 %inl, label %inline, label %plan
plan:
  ; Automatic grain: about four chunks per thread, for load balance.
  %t64 = sext i32 %threads to i64
  %t4 = mul i64 %t64, 4
  %auto = call i64 @ceil_div(i64 %n, i64 %t4)
  %chunk0 = select i1 %gpos, i64 %grain, i64 %auto
  %nch0 = call i64 @ceil_div(i64 %n, i64 %chunk0)
  ; The chunk count lives in 32 bits of @claim: coarsen the chunks if needed.
  %toomany = icmp ugt i64 %nch0, 2147483647
  %chunk1 = call i64 @ceil_div(i64 %n, i64 2147483647)
  %chunk = select i1 %toomany, i64 %chunk1, i64 %chunk0
  %nch64 = call i64 @ceil_div(i64 %n, i64 %chunk)
  %single = icmp sle i64 %nch64, 1
  br i1 %single, label %inline, label %acquire
acquire:
  %p = cmpxchg ptr @lock, i32 0, i32 1 acquire monotonic, align 4
  %got = extractvalue { i32, i1 } %p, 1
  %me = call i64 @pthread_self()
  br i1 %got, label %locked, label %contended
contended:
  ; A task launching again from inside a job: the lock is ours (or our launcher's, who
  ; waits for us), so waiting would deadlock. Run the nested range inline instead.
  %nested = call i1 @in_pool(i64 %me)
  br i1 %nested, label %inline, label %slow
slow:
  call void @lock_slow()
  br label %locked
locked:
  store atomic i64 %me, ptr @owner monotonic, align 8
  call void @ensure_started()
  %size2 = load atomic i32, ptr @size monotonic, align 4
  %less2 = icmp slt i32 %threads, %size2
  %threads2 = select i1 %less2, i32 %threads, i32 %size2
  %nch = trunc i64 %nch64 to i32
  store ptr %task, ptr @job_task, align 8
  store ptr %ctx, ptr @job_ctx, align 8
  store i64 %begin, ptr @job_begin, align 8
  store i64 %end, ptr @job_end, align 8
  store i64 %chunk, ptr @job_chunk, align 8
  store i32 %nch, ptr @job_nchunks, align 4
  store atomic i32 %threads2, ptr @job_threads monotonic, align 4
  store atomic i32 0, ptr @done monotonic, align 4
  %g = load atomic i32, ptr @gen monotonic, align 4
  %g1 = add i32 %g, 1
  %g64 = zext i32 %g1 to i64
  %tag = shl i64 %g64, 32
  %word = or i64 %tag, %nch64
  ; Release: whoever claims a chunk sees the descriptor and @done = 0.
  store atomic i64 %word, ptr @claim release, align 8
  store atomic i32 %g1, ptr @gen seq_cst, align 4
  %sl = load atomic i32, ptr @sleepers seq_cst, align 4
  %nosl = icmp eq i32 %sl, 0
  br i1 %nosl, label %participate, label %wake
wake:
  call void @futex_wake(ptr @gen, i32 2147483647)
  br label %participate
participate:
  call void @run_chunks(i32 %g1)
  call void @wait_done(i32 %nch)
  store atomic i64 0, ptr @owner monotonic, align 8
  call void @unlock()
  br label %exit
inline:
  call void %task(ptr %ctx, i64 %begin, i64 %end)
  br label %exit
exit:
  ret void
}
"""


def pool_ir(
    suffix: str,
    num_threads: int,
    worker_spin: int = 4000,
    caller_spin: int = 4000,
    lock_spin: int = 200,
) -> str:
    """Returns the IR text of one pool instance (with its interrupt state and handler).

    >>> text = pool_ir("_demo", 4)
    >>> "define void @tin_parallel_for_demo(" in text, "[4 x i64]" in text
    (True, True)
    """
    pieces = LAUNCH_IR + FUTEX_IR + WORKERS_IR + INTERRUPT_IR
    return Template(pieces).substitute(
        SFX=suffix,
        NTHREADS=num_threads,
        SELF_BYTES=8 * num_threads,
        SIGMASK0=ASYNC_SIGNALS_WORD0,
        WORKER_SPIN=worker_spin,
        CALLER_SPIN=caller_spin,
        LOCK_SPIN=lock_spin,
    )
