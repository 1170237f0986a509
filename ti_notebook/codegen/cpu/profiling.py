"""The kernel profiler's native half: timestamps written by the compiled code itself.

With ``ti.init(kernel_profiler=True)`` (``CompileOptions.kernel_profiler``) a kernel's
module writes into an event buffer of i64 words whose address the launcher puts at
``CTX_PROFILE``; Python reads it after the launch (``runtime/profiler_events.py``), so
nothing but native code runs between the timestamps. Without the option nothing here is
emitted and a launch costs what it did.

Times are ``CLOCK_MONOTONIC`` nanoseconds (``time.monotonic_ns()`` in Python reads the
same clock, so compile spans and launches share one time line). The buffer's layout is
part of the launch ABI (``ir/launch_abi.py``, :class:`ProfileLayout`):

    [launch start, launch end]
    per task k:   [start, end, counted iterations, 1 if it counts them]
                  per pool thread t: [first chunk start, last chunk end, busy ns, iterations]

A parallel task's chunk function runs inside a wrapper (:func:`profiled_chunk`) that
takes the two timestamps and adds the chunk to its thread's four words: each thread
writes only its own words, and the launcher reads them after the pool has joined, so
no atomics are needed. ``counted iterations`` is for struct-fors over sparse fields,
whose chunks span inactive cells: each active cell visited adds one
(``CountIterationStmt``, one atomic add per chunk).

    >>> module = ll.Module()
    >>> now_ns(module).name, now_ns(module) is now_ns(module)
    ('tin_now_ns', True)
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.llvm_types import I8, I32, I64, PTR, declare
from ti_notebook.ir import launch_abi as abi

_CLOCK_MONOTONIC = 1


def now_ns(module: ll.Module) -> ll.Function:
    """``tin_now_ns()``: CLOCK_MONOTONIC in ns (through libc's vDSO clock_gettime)."""
    existing = module.globals.get("tin_now_ns")
    if existing is not None:
        return existing
    fn = ll.Function(module, ll.FunctionType(I64, []), "tin_now_ns")
    fn.linkage = "internal"
    clock = declare(module, "clock_gettime", I32, [I32, PTR])
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    spec = b.alloca(ll.ArrayType(I64, 2))
    b.call(clock, [ll.Constant(I32, _CLOCK_MONOTONIC), spec])
    seconds = b.load(b.gep(spec, [ll.Constant(I64, 0)], source_etype=I64), typ=I64)
    nanos = b.load(b.gep(spec, [ll.Constant(I64, 1)], source_etype=I64), typ=I64)
    b.ret(b.add(b.mul(seconds, ll.Constant(I64, 1_000_000_000)), nanos))
    return fn


def word(b: ll.IRBuilder, buffer: ll.Value, index: ll.Value | int) -> ll.Value:
    """Pointer to word ``index`` of the event buffer."""
    if isinstance(index, int):
        index = ll.Constant(I64, index)
    return b.gep(buffer, [index], source_etype=I64)


def buffer_of(b: ll.IRBuilder, ctx: ll.Value) -> ll.Value:
    slot = b.gep(ctx, [ll.Constant(I64, abi.CTX_PROFILE)], source_etype=I8)
    return b.load(slot, typ=PTR)


def stamp(b: ll.IRBuilder, module: ll.Module, buffer: ll.Value, index: int) -> None:
    """Writes the time now into word ``index``."""
    b.store(b.call(now_ns(module), []), word(b, buffer, index))


def profiled_chunk(
    module: ll.Module, chunk: ll.Function, layout: abi.ProfileLayout, k: int
) -> ll.Function:
    """A function with ``chunk``'s signature that runs it and records the chunk on its
    thread's words of task ``k`` (what the pool calls instead of ``chunk``)."""
    fn = ll.Function(module, chunk.function_type, f"{chunk.name}_profiled")
    fn.linkage = "internal"
    ctx, begin, end = fn.args
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    clock = now_ns(module)
    started = b.call(clock, [])
    b.call(chunk, [ctx, begin, end])
    ended = b.call(clock, [])
    index = b.call(declare(module, "tin_thread_index", I32, []), [])
    # a pool larger than this kernel's thread count (a later ti.init asked for fewer)
    # folds the extra threads into the last slot rather than writing past the buffer
    last = ll.Constant(I32, layout.threads - 1)
    index = b.select(b.icmp_unsigned("<", index, last), index, last)
    base = b.add(
        ll.Constant(I64, layout.thread(k, 0)),
        b.mul(b.zext(index, I64), ll.Constant(I64, abi.THREAD_WORDS)),
    )
    buffer = buffer_of(b, ctx)
    first_ptr, last_ptr, busy_ptr, count_ptr = (
        word(b, buffer, b.add(base, ll.Constant(I64, n))) for n in range(abi.THREAD_WORDS)
    )
    first = b.load(first_ptr, typ=I64)
    unset = b.icmp_signed("==", first, ll.Constant(I64, 0))
    earlier = b.icmp_signed("<", started, first)
    b.store(b.select(b.or_(unset, earlier), started, first), first_ptr)
    latest = b.load(last_ptr, typ=I64)
    b.store(b.select(b.icmp_signed(">", ended, latest), ended, latest), last_ptr)
    busy = b.load(busy_ptr, typ=I64)
    b.store(b.add(busy, b.sub(ended, started)), busy_ptr)
    count = b.load(count_ptr, typ=I64)
    b.store(b.add(count, b.sub(end, begin)), count_ptr)
    b.ret_void()
    return fn


def add_counted(b: ll.IRBuilder, ctx: ll.Value, layout: abi.ProfileLayout, k: int, n) -> None:
    """Adds a chunk's count of visited active cells to task ``k``'s counted iterations."""
    buffer = buffer_of(b, ctx)
    b.atomic_rmw("add", word(b, buffer, layout.task(k) + 2), n, "monotonic")
    # every chunk writes the same 1: the race is harmless, and an atomic costs nothing here
    b.atomic_rmw("xchg", word(b, buffer, layout.task(k) + 3), ll.Constant(I64, 1), "monotonic")
