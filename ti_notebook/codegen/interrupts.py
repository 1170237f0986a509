"""Where generated code looks for an interrupt (``runtime/interrupt.py``), and at what cost.

A poll is one relaxed atomic load of the interrupt flag and a branch that is almost never
taken; when it is, the function returns (a task ends its chunk, the entry skips the rest
of the kernel). Polls sit where a loop can run long, and never inside a loop LLVM should
vectorise:

- at the start of each row of an N-D loop or struct-for (rows are at most ``STRIP``
  iterations long) and of each ``STRIP``-iteration strip of a 1-D loop;
- at the head of every ``while`` iteration;
- loops with constant bounds and at most ``STRIP`` iterations have none: their enclosing
  loop polls.

The thread pool also stops handing out chunks once the flag is up.

An emitter holds its target's polls part (``emitter.polls``): :class:`InterruptPolls`,
or :class:`NoPolls` where the host cannot signal running code (CUDA kernels).
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.llvm_types import I32, I64, PTR
from ti_notebook.ir import launch_abi as abi

STRIP = 1 << 16  # iterations between two polls of a long loop


def short_constant_range(begin: ll.Value, end: ll.Value) -> bool:
    """True for ``[begin, end)`` known at compile time and at most ``STRIP`` long."""
    if not (isinstance(begin, ll.Constant) and isinstance(end, ll.Constant)):
        return False
    return int(end.constant) - int(begin.constant) <= STRIP


class InterruptPolls:
    """Polls of the flag ``runtime/interrupt.py`` raises, emitted with ``emitter``'s
    builder; a long loop returns from the function once the flag is up."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter

    def interrupt_flag(self) -> ll.Value:
        e = self.emitter
        return e.invariant(("interrupt",), lambda: e.ctx_slot(abi.CTX_INTERRUPT, PTR))

    def poll(self) -> None:
        """Returns from the function when the interrupt flag is up."""
        e = self.emitter
        b = e.b
        flag = b.load_atomic(self.interrupt_flag(), "monotonic", 4, typ=I32)
        stop = b.icmp_unsigned("!=", flag, ll.Constant(I32, 0))
        leave = e.fn.append_basic_block("interrupted")
        go_on = e.fn.append_basic_block("not_interrupted")
        branch = b.cbranch(stop, leave, go_on)
        branch.set_weights([1, 1 << 20])
        b.position_at_end(leave)
        b.ret_void()
        b.position_at_end(go_on)

    def strip_mined_loop(self, begin, end, body, set_indices) -> None:
        """``for i in [begin, end)`` as strips of at most ``STRIP`` iterations, polling
        before each; the strip itself is a plain counted loop (vectorisable)."""
        e = self.emitter
        b = e.b
        start = e.alloca(I32, "strip")
        b.store(begin, start)
        header = e.fn.append_basic_block("strips")
        strip = e.fn.append_basic_block("strip")
        exit_block = e.fn.append_basic_block("endstrips")
        b.branch(header)
        b.position_at_end(header)
        first = b.load(start, typ=I32)
        b.cbranch(b.icmp_signed("<", first, end), strip, exit_block)
        b.position_at_end(strip)
        self.poll()
        # in 64 bits: end - first may not fit i32 when begin is negative
        left = b.sub(b.sext(end, I64), b.sext(first, I64))
        limit = ll.Constant(I64, STRIP)
        count = b.select(b.icmp_signed("<", left, limit), left, limit)
        stop = b.add(first, b.trunc(count, I32), flags=["nsw"])
        e.loops.simple_loop(first, stop, body, set_indices, exit_block)
        b.store(stop, start)
        b.branch(header)
        b.position_at_end(exit_block)


class NoPolls(InterruptPolls):
    """No polls: for a target whose running code the host cannot signal through host
    memory (a CUDA kernel runs to its end)."""

    def poll(self) -> None:
        pass

    def strip_mined_loop(self, begin, end, body, set_indices) -> None:
        self.emitter.loops.simple_loop(begin, end, body, set_indices)
