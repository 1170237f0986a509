"""A persistent native thread pool for compiled CPU kernels.

The pool is LLVM IR (:mod:`ti_notebook.runtime.cpu.threadpool_ir`) compiled into the
process JIT: native threads made with ``pthread_create`` that spin briefly and then
sleep on Linux futexes. No Python thread is involved, so kernels run in parallel with
the GIL released and a launch costs a few microseconds, not a Python round trip.

Compiled kernels call the exported C function::

    void tin_parallel_for(void (*task)(i8 *ctx, i64 begin, i64 end), i8 *ctx,
                          i64 begin, i64 end, i64 grain, i32 max_threads);

It calls ``task(ctx, b, e)`` on disjoint chunks that cover ``[begin, end)`` exactly once
and returns when all have finished. The calling thread works too. ``grain <= 0`` picks
``ceil(n / (threads * 4))``; ``max_threads <= 0`` means the whole pool. A range no larger
than ``grain``, ``max_threads == 1`` or a one-thread pool runs inline on the caller, and
an empty range calls nothing. Launches from several OS threads are serialised; a launch
from inside a running task (nested parallelism) runs inline.

Example:
    >>> import ctypes
    >>> from ti_notebook.runtime.cpu.jit import jit
    >>> from ti_notebook.runtime.cpu.threadpool import get_pool
    >>> pool = get_pool()
    >>> ir = '''
    ... define void @add_one(ptr %ctx, i64 %b, i64 %e) {
    ... entry:
    ...   br label %loop
    ... loop:
    ...   %i = phi i64 [ %b, %entry ], [ %i1, %loop ]
    ...   %p = getelementptr i32, ptr %ctx, i64 %i
    ...   %o = atomicrmw add ptr %p, i32 1 monotonic
    ...   %i1 = add i64 %i, 1
    ...   %more = icmp slt i64 %i1, %e
    ...   br i1 %more, label %loop, label %out
    ... out:
    ...   ret void
    ... }'''
    >>> task = jit().add_ir(ir, ["add_one"])["add_one"]
    >>> cells = (ctypes.c_int32 * 1000)()
    >>> pool.parallel_for(task, ctypes.addressof(cells), 0, 1000, grain=10)
    >>> sum(cells)
    1000

A kernel module just declares ``tin_parallel_for`` and calls it: :func:`get_pool`
registers the symbol with the JIT.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import platform
import sys
import threading

import llvmlite.binding as llvm

from ti_notebook.runtime import interrupt
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.cpu.threadpool_ir import pool_ir

__all__ = ["ThreadPool", "get_pool"]

# void (*)(task, ctx, begin, end, grain, max_threads). A CFUNCTYPE call releases the
# GIL, so Python threads calling the pool concurrently really are concurrent.
_PARALLEL_FOR = ctypes.CFUNCTYPE(
    None,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int32,
)
_NO_ARGS = ctypes.CFUNCTYPE(None)
_INT_RESULT = ctypes.CFUNCTYPE(ctypes.c_int32)
_PTR_RESULT = ctypes.CFUNCTYPE(ctypes.c_void_p)

# Each pool is its own module (its own globals); exported names get a unique suffix.
_instance_ids = itertools.count()
_singleton: ThreadPool | None = None
_singleton_lock = threading.Lock()
# libc functions the pool IR (and a profiled kernel: clock_gettime) calls. They normally
# resolve in-process; registering them explicitly covers a JIT whose process-symbol
# search does not find them.
_LIBC_SYMBOLS = (
    "syscall",
    "pthread_create",
    "pthread_self",
    "pthread_sigmask",
    "clock_gettime",
)


def _check_platform() -> None:
    # The IR hard-codes x86-64 Linux syscall numbers and the x86 `pause` intrinsic.
    if not sys.platform.startswith("linux") or platform.machine().lower() not in (
        "x86_64",
        "amd64",
    ):
        raise RuntimeError(
            "the native thread pool needs x86-64 Linux "
            f"(this is {sys.platform}/{platform.machine()})"
        )


def _register_libc_symbols() -> None:
    libc = ctypes.CDLL(None)
    for name in _LIBC_SYMBOLS:
        if llvm.address_of_symbol(name) is None:
            jit().add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)


def _keep_engine_alive() -> None:
    # Worker threads run JIT code until the process dies. If the execution engine were
    # ever freed (someone drops the jit() singleton), a spinning or woken worker would
    # execute unmapped memory. Leak one reference so the code outlives every worker.
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(jit().engine))


class ThreadPool:
    """One native pool of ``num_threads`` threads, the launching thread included.

    ``num_threads - 1`` worker threads are created on the first parallel launch and live
    for the rest of the process (they sleep on a futex when idle; process exit kills
    them, so they never delay interpreter shutdown). With an offline-cache ``store``
    (``cache/store.py``) the pool's IR is compiled once and loaded from there after.
    """

    def __init__(self, num_threads: int, store=None) -> None:
        num_threads = int(num_threads)
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        _check_platform()
        engine = jit()
        _register_libc_symbols()
        _keep_engine_alive()
        suffix = f"_{next(_instance_ids)}"
        names = {
            "parallel_for": f"tin_parallel_for{suffix}",
            "after_fork": f"tin_pool_after_fork{suffix}",
            "started": f"tin_pool_started{suffix}",
            "size": f"tin_pool_size{suffix}",
            "thread_index": f"tin_thread_index{suffix}",
            "interrupt_state": f"tin_interrupt_state{suffix}",
            "previous_sigint": f"tin_previous_sigint{suffix}",
            "on_sigint": f"tin_on_sigint{suffix}",
        }
        addresses = engine.add_ir(pool_ir(suffix, num_threads), list(names.values()), store=store)
        self.num_threads = num_threads
        self.symbol = names["parallel_for"]
        self.parallel_for_address: int = addresses[names["parallel_for"]]
        self.thread_index_address: int = addresses[names["thread_index"]]
        self._parallel_for = _PARALLEL_FOR(self.parallel_for_address)
        self._after_fork = _NO_ARGS(addresses[names["after_fork"]])
        self._started = _INT_RESULT(addresses[names["started"]])
        self._size = _INT_RESULT(addresses[names["size"]])
        self.interrupt_state: int = _PTR_RESULT(addresses[names["interrupt_state"]])()
        self.previous_sigint: int = _PTR_RESULT(addresses[names["previous_sigint"]])()
        self.sigint_handler: int = addresses[names["on_sigint"]]
        # A forked child inherits the pool's state but none of its threads.
        os.register_at_fork(after_in_child=self._after_fork)

    def parallel_for(
        self,
        task_address: int,
        ctx_address: int | None,
        begin: int,
        end: int,
        grain: int = 0,
        max_threads: int = 0,
    ) -> None:
        """Runs ``task(ctx, b, e)`` over ``[begin, end)`` in chunks (see module doc)."""
        self._parallel_for(task_address, ctx_address, begin, end, grain, max_threads)

    @property
    def started(self) -> bool:
        """Whether the worker threads exist yet (they are made on the first launch)."""
        return bool(self._started())

    @property
    def live_threads(self) -> int:
        """Threads actually available, the caller included (less than ``num_threads``
        only if the OS refused to create some)."""
        return int(self._size())

    def __repr__(self) -> str:
        return f"ThreadPool(num_threads={self.num_threads}, started={self.started})"


def get_pool(num_threads: int | None = None, store=None) -> ThreadPool:
    """Returns the process-wide pool, creating it on first use.

    The first call fixes the size (``os.cpu_count()`` by default); later calls return
    the same pool whatever they ask for — limit a launch with ``max_threads`` instead.
    ``store``: as for :class:`ThreadPool`, used by the first call only.
    Creating it registers ``tin_parallel_for`` (and ``tin_thread_index``, the calling
    thread's place in the pool, for the profiler) with the JIT for kernel modules.
    """
    global _singleton
    if _singleton is None:
        with _singleton_lock:
            if _singleton is None:
                pool = ThreadPool(num_threads or os.cpu_count() or 1, store)
                jit().add_symbol("tin_parallel_for", pool.parallel_for_address)
                jit().add_symbol("tin_thread_index", pool.thread_index_address)
                interrupt.attach(pool.interrupt_state, pool.previous_sigint, pool.sigint_handler)
                _singleton = pool
    return _singleton
