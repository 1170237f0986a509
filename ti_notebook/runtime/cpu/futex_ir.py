"""LLVM IR of the futex calls and the launch mutex, appended to the pool's module.

Part of the native thread pool's IR (``threadpool_ir.py`` puts the pieces together and
describes the protocol). Linux futexes let a thread sleep on a 32-bit word until another
thread changes it and wakes it: the workers sleep on the job generation, the launcher on
the finished-chunk count, and a second launching thread on ``@lock``, a mutex built on a
futex word (0 free, 1 held, 2 held with waiters). ``$LOCK_SPIN`` is how many ``pause``
iterations a launching thread spins before it sleeps on the lock; ``@lock`` and the
``pause`` intrinsic are the module's (``threadpool_ir.LAUNCH_IR``).

    >>> "define internal void @lock_slow()" in FUTEX_IR, "$LOCK_SPIN" in FUTEX_IR
    (True, True)
"""

from __future__ import annotations

__all__ = ["FUTEX_IR"]

FUTEX_IR = r"""
declare i64 @syscall(i64, ...)

; FUTEX_WAIT_PRIVATE: sleeps while *addr == val (checked atomically by the kernel).
define internal void @futex_wait(ptr %addr, i32 %val) {
  %v = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 128, i64 %v, ptr null)
  ret void
}

; FUTEX_WAKE_PRIVATE: wakes up to n sleepers on addr.
define internal void @futex_wake(ptr %addr, i32 %n) {
  %v = zext i32 %n to i64
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %addr, i64 129, i64 %v)
  ret void
}

; Blocking part of the launch mutex (Drepper's "futexes are tricky", mutex 2).
define internal void @lock_slow() {
entry:
  br label %spin
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %pause ]
  %p = cmpxchg ptr @lock, i32 0, i32 1 acquire monotonic, align 4
  %ok = extractvalue { i32, i1 } %p, 1
  br i1 %ok, label %exit, label %pause
pause:
  call void @llvm.x86.sse2.pause()
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, $LOCK_SPIN
  br i1 %more, label %spin, label %contend
contend:
  %c = atomicrmw xchg ptr @lock, i32 2 acquire, align 4
  %free = icmp eq i32 %c, 0
  br i1 %free, label %exit, label %block
block:
  call void @futex_wait(ptr @lock, i32 2)
  br label %contend
exit:
  ret void
}

define internal void @unlock() {
  %old = atomicrmw sub ptr @lock, i32 1 release, align 4
  %alone = icmp eq i32 %old, 1
  br i1 %alone, label %exit, label %wake
wake:
  store atomic i32 0, ptr @lock release, align 4
  call void @futex_wake(ptr @lock, i32 1)
  br label %exit
exit:
  ret void
}
"""
