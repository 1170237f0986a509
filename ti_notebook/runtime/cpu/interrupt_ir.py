"""LLVM IR of the interrupt state and the SIGINT handler, appended to the pool's module.

Jupyter's interrupt button sends SIGINT. CPython's own handler only notes the signal for
the interpreter, which cannot act while the main thread is inside native kernel code, so
a ``while True:`` kernel could never be stopped. This handler is installed in front of
CPython's (``runtime/interrupt.py``):

- while a launch runs (``@state[1] != 0``) it sets ``@state[0]``: the pool stops handing
  out chunks and compiled loops leave at their next poll (``codegen/interrupts.py``);
  the launch then raises ``KeyboardInterrupt`` in Python;
- otherwise it calls the handler it replaced, so Python code is interrupted as usual.

Only async-signal-safe work happens here: two atomic accesses and a call.
"""

from __future__ import annotations

INTERRUPT_IR = r"""
; [0]: a launch was interrupted; [1]: a launch is running (set by each kernel's entry)
@interrupt_state = internal global [2 x i32] zeroinitializer, align 8
@previous_sigint = internal global ptr null

define ptr @tin_interrupt_state$SFX() {
  ret ptr @interrupt_state
}

define ptr @tin_previous_sigint$SFX() {
  ret ptr @previous_sigint
}

define void @tin_on_sigint$SFX(i32 %sig, ptr %info, ptr %uctx) {
entry:
  %active_ptr = getelementptr [2 x i32], ptr @interrupt_state, i64 0, i64 1
  %active = load atomic i32, ptr %active_ptr seq_cst, align 4
  %running = icmp ne i32 %active, 0
  br i1 %running, label %stop, label %chain
stop:
  store atomic i32 1, ptr @interrupt_state seq_cst, align 4
  ret void
chain:
  ; SIG_DFL (0) and SIG_IGN (1) are not functions; the installer never chains to them.
  %prev = load atomic ptr, ptr @previous_sigint seq_cst, align 8
  %bits = ptrtoint ptr %prev to i64
  %real = icmp ugt i64 %bits, 1
  br i1 %real, label %call, label %done
call:
  ; a handler without SA_SIGINFO takes one argument; the extra two are harmless
  call void %prev(i32 %sig, ptr %info, ptr %uctx)
  br label %done
done:
  ret void
}
"""
