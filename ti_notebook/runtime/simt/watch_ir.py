"""LLVM IR of the emulator's poll points and of the launcher's watchdog.

Appended to ``sync_ir.SYNC_IR`` + ``warp_ir.WARP_IR`` (it uses their globals) and
before ``pool_ir.POOL_IR`` (whose launcher calls ``@watch``).

**Poll points.** ``polls.py`` puts a call of ``@tin_simt_poll`` at the head of every
loop of a kernel, and counts the thread's memory writes in its ``%Poll`` slot. The poll
leaves the kernel (as a failing barrier does) once the launch is aborted: SIGINT, a
trap or a deadlock elsewhere, so no emulated thread keeps running an endless loop. It
also remembers where the thread is and a hash of the loop's state there (see below).

**What "no progress" means.** The launcher wakes every ``$POLL_MS`` ms (at once on a
signal) and watches the block that runs. Progress is any of: a thread exits, a barrier
or warp operation completes (``@progress``), a store, or an atomic that changes memory
(the ``writes`` counters), or a poll whose (site, state hash) differs from the thread's
previous poll (``changes``). A poll that repeats the thread's previous one with no write
anywhere in between means the thread's whole state came back (the hash covers the loop
header's phis; ``polls.py`` says why nothing else can differ), so it is in a cycle that
only another block could break. The block *stalls* when, for ``stall_polls`` wakeups in
a row, nothing progressed and every live thread either repeats its last poll or waits
at a barrier that has not moved. A long loop that computes (its induction variable
changes) or writes memory is never flagged, however long it runs. Blocks run one after
another here, so a wait for a later block can never end: it is reported, not hung on.

    >>> "define void @tin_simt_poll(" in WATCH_IR
    True
"""

from __future__ import annotations

WATCH_IR = r"""
; writes (stores, changing atomics), site and hash of the last poll, polls that changed
; (site, hash), whether the last poll repeated the one before; a cache line each
%Poll = type { i64, i64, i64, i64, i32, [28 x i8] }
@polls = internal global [1024 x %Poll] zeroinitializer, align 64

; The calling thread's poll slot (constant for the thread: hoisted out of loops).
define ptr @tin_simt_poll_slot() {
  %s = call ptr @self()
  %i = call i32 @field(ptr %s, i32 0)
  %p = getelementptr [1024 x %Poll], ptr @polls, i64 0, i32 %i
  ret ptr %p
}

; A loop head: leave if the launch is aborted, else note (site, hash). Site 0 is a
; loop whose state cannot be hashed: it always counts as a change.
define void @tin_simt_poll(ptr %slot, i64 %site, i64 %hash) {
entry:
  %ab = load atomic i32, ptr @abort monotonic, align 4
  %stop = icmp ne i32 %ab, 0
  br i1 %stop, label %leave, label %go
leave:
  %st = call ptr @self()
  call void @escape(ptr %st)
  unreachable
go:
  %sp = getelementptr %Poll, ptr %slot, i32 0, i32 1
  %hp = getelementptr %Poll, ptr %slot, i32 0, i32 2
  %lp = getelementptr %Poll, ptr %slot, i32 0, i32 4
  %s0 = load i64, ptr %sp, align 8
  %h0 = load i64, ptr %hp, align 8
  %known = icmp ne i64 %site, 0
  %same_site = icmp eq i64 %s0, %site
  %same_hash = icmp eq i64 %h0, %hash
  %same1 = and i1 %known, %same_site
  %same = and i1 %same1, %same_hash
  br i1 %same, label %repeat, label %change
repeat:
  store atomic i32 1, ptr %lp monotonic, align 4
  ret void
change:
  store i64 %site, ptr %sp, align 8
  store i64 %hash, ptr %hp, align 8
  store atomic i32 0, ptr %lp monotonic, align 4
  %cp = getelementptr %Poll, ptr %slot, i32 0, i32 3
  %c = load atomic i64, ptr %cp monotonic, align 8
  %c1 = add i64 %c, 1
  store atomic i64 %c1, ptr %cp monotonic, align 8
  ret void
}

; A fresh block: no thread has polled yet (its block index is new state).
define internal void @reset_polls(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr [1024 x %Poll], ptr @polls, i64 0, i32 %i
  %sp = getelementptr %Poll, ptr %p, i32 0, i32 1
  store i64 0, ptr %sp, align 8
  %lp = getelementptr %Poll, ptr %p, i32 0, i32 4
  store atomic i32 0, ptr %lp monotonic, align 4
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; Everything that counts as progress, summed: it moves iff something progressed.
define internal i64 @activity(i32 %n) {
entry:
  %p32 = load atomic i32, ptr @progress monotonic, align 4
  %p = zext i32 %p32 to i64
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %sum = phi i64 [ %p, %entry ], [ %sum2, %loop ]
  %slot = getelementptr [1024 x %Poll], ptr @polls, i64 0, i32 %i
  %w = load atomic i64, ptr %slot monotonic, align 8
  %cp = getelementptr %Poll, ptr %slot, i32 0, i32 3
  %c = load atomic i64, ptr %cp monotonic, align 8
  %sum1 = add i64 %sum, %w
  %sum2 = add i64 %sum1, %c
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %sum2
}

; True if every live thread of the block waits on a generation that has not moved;
; counts them by kind into %counts (block barrier, warp exchange, warp sync). With
; %loops, a thread whose last poll repeated counts as stuck too (into %counts[3]).
define internal i1 @all_stuck(ptr %counts, i1 %loops) {
entry:
  %n = load i32, ptr @nthreads, align 4
  br label %scan
scan:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %live = phi i32 [ 0, %entry ], [ %live1, %next ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %look, label %end
look:
  %st = call ptr @state(i32 %i)
  %exp = getelementptr %State, ptr %st, i32 0, i32 10
  %ex = load atomic i32, ptr %exp acquire, align 4
  %gone = icmp ne i32 %ex, 0
  br i1 %gone, label %skip, label %live_thread
live_thread:
  %wk = getelementptr %State, ptr %st, i32 0, i32 7
  %kind = load atomic i32, ptr %wk acquire, align 4
  %running = icmp eq i32 %kind, 0
  br i1 %running, label %running_thread, label %waiting
running_thread:
  br i1 %loops, label %looping, label %no
looping:
  %slot = getelementptr [1024 x %Poll], ptr @polls, i64 0, i32 %i
  %lp = getelementptr %Poll, ptr %slot, i32 0, i32 4
  %repeats = load atomic i32, ptr %lp monotonic, align 4
  %spins = icmp ne i32 %repeats, 0
  br i1 %spins, label %spinning, label %no
spinning:
  br label %count
waiting:
  %ww = getelementptr %State, ptr %st, i32 0, i32 8
  %word = load ptr, ptr %ww, align 8
  %wg = getelementptr %State, ptr %st, i32 0, i32 9
  %g = load i32, ptr %wg, align 4
  %now = load atomic i32, ptr %word acquire, align 4
  %moved = icmp ne i32 %now, %g
  br i1 %moved, label %no, label %count
count:
  %k = phi i32 [ %kind, %waiting ], [ 4, %spinning ]
  %k0 = sub i32 %k, 1
  %cp = getelementptr [4 x i32], ptr %counts, i64 0, i32 %k0
  %c = load i32, ptr %cp, align 4
  %c1 = add i32 %c, 1
  store i32 %c1, ptr %cp, align 4
  br label %next
skip:
  br label %next
next:
  %live1 = phi i32 [ %live, %skip ], [ 1, %count ]
  %i1 = add i32 %i, 1
  br label %scan
end:
  %some = icmp ne i32 %live, 0
  ret i1 %some
no:
  ret i1 false
}

define internal i1 @interrupted(ptr %flag) {
  %f = load atomic i32, ptr %flag monotonic, align 4
  %up = icmp ne i32 %f, 0
  ret i1 %up
}

; The launcher's loop: returns when the %n workers are done. Each wakeup (every
; $POLL_MS ms, or a signal) it turns SIGINT (*%interrupt != 0) into an abort, and
; reports a deadlock (every live thread at an unmoved barrier for %quiet_polls wakeups
; with no progress) or a stall (the same, some threads repeating their last poll,
; for %stall_polls wakeups with no activity).
define internal void @watch(i32 %n, i32 %quiet_polls, i32 %stall_polls, ptr %interrupt) {
entry:
  %counts = alloca [4 x i32], align 4
  br label %watch
watch:
  %last_progress = phi i32 [ -1, %entry ], [ %p_now, %judged ]
  %quiet = phi i32 [ 0, %entry ], [ %quiet2, %judged ]
  %last_activity = phi i64 [ -1, %entry ], [ %a_now, %judged ]
  %still = phi i32 [ 0, %entry ], [ %still2, %judged ]
  %d = load atomic i32, ptr @done acquire, align 4
  %finished = icmp eq i32 %d, %n
  br i1 %finished, label %exit, label %sleep
sleep:
  call void @futex_wait_ms(ptr @done, i32 %d, i32 $POLL_MS)
  %ab = load atomic i32, ptr @abort acquire, align 4
  %live = icmp eq i32 %ab, 0
  %signal = call i1 @interrupted(ptr %interrupt)
  %stop = and i1 %signal, %live
  br i1 %stop, label %interrupt_now, label %look
interrupt_now:
  call void @fail(ptr null, i32 $ERROR_INTERRUPTED, i32 0, i32 0, i32 0)
  br label %look
look:
  %p_now = load atomic i32, ptr @progress acquire, align 4
  %a_now = call i64 @activity(i32 %n)
  call void @llvm.memset.p0.i64(ptr %counts, i8 0, i64 16, i1 false)
  %same = icmp eq i32 %p_now, %last_progress
  br i1 %same, label %deadlock_check, label %deadlock_done
deadlock_check:
  %stuck = call i1 @all_stuck(ptr %counts, i1 false)
  br label %deadlock_done
deadlock_done:
  %stuck_now = phi i1 [ false, %look ], [ %stuck, %deadlock_check ]
  %q = add i32 %quiet, 1
  %quiet1 = select i1 %stuck_now, i32 %q, i32 0
  %deadlocked = icmp uge i32 %quiet1, %quiet_polls
  %ab2 = load atomic i32, ptr @abort acquire, align 4
  %live2 = icmp eq i32 %ab2, 0
  %report = and i1 %deadlocked, %live2
  br i1 %report, label %deadlock, label %stall_look
deadlock:
  %cb = load i32, ptr %counts, align 4
  %cep = getelementptr [4 x i32], ptr %counts, i64 0, i64 1
  %ce = load i32, ptr %cep, align 4
  %csp = getelementptr [4 x i32], ptr %counts, i64 0, i64 2
  %cs = load i32, ptr %csp, align 4
  call void @fail(ptr null, i32 $ERROR_DEADLOCK, i32 %cb, i32 %ce, i32 %cs)
  br label %judged
stall_look:
  %calm = icmp eq i64 %a_now, %last_activity
  br i1 %calm, label %stall_check, label %stall_done
stall_check:
  call void @llvm.memset.p0.i64(ptr %counts, i8 0, i64 16, i1 false)
  %all = call i1 @all_stuck(ptr %counts, i1 true)
  %lcp = getelementptr [4 x i32], ptr %counts, i64 0, i64 3
  %looping = load i32, ptr %lcp, align 4
  %some_loop = icmp ne i32 %looping, 0
  %spin = and i1 %all, %some_loop
  br label %stall_done
stall_done:
  %spin_now = phi i1 [ false, %stall_look ], [ %spin, %stall_check ]
  %s1 = add i32 %still, 1
  %still1 = select i1 %spin_now, i32 %s1, i32 0
  %stalled = icmp uge i32 %still1, %stall_polls
  %report_stall = and i1 %stalled, %live2
  br i1 %report_stall, label %stall, label %judged
stall:
  %slp = getelementptr [4 x i32], ptr %counts, i64 0, i64 3
  %sl = load i32, ptr %slp, align 4
  %sb = load i32, ptr %counts, align 4
  %swp = getelementptr [4 x i32], ptr %counts, i64 0, i64 1
  %sw1 = load i32, ptr %swp, align 4
  %ssp = getelementptr [4 x i32], ptr %counts, i64 0, i64 2
  %sw2 = load i32, ptr %ssp, align 4
  %sw = add i32 %sw1, %sw2
  call void @fail(ptr null, i32 $ERROR_STALLED, i32 %sl, i32 %sb, i32 %sw)
  br label %judged
judged:
  %quiet2 = phi i32 [ 0, %deadlock ], [ %quiet1, %stall_done ], [ %quiet1, %stall ]
  %still2 = phi i32 [ 0, %deadlock ], [ %still1, %stall_done ], [ 0, %stall ]
  br label %watch
exit:
  ret void
}
"""
