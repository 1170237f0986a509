"""The emulator's native runtime, loaded once per process, and the launch call.

:func:`get_runtime` compiles ``sync_ir`` + ``warp_ir`` + ``pool_ir`` into the process JIT
(``runtime/cpu/jit.py``) and registers the ``tin_simt_*`` functions, the dynamic shared
memory buffer and the ``vprintf``/``__assertfail`` callbacks as JIT symbols, so every
rewritten kernel module resolves them. :meth:`SimtRuntime.launch` runs one grid and
turns a failure the native side reports into a ``ti_notebook.errors`` exception.

    >>> from ti_notebook.runtime.simt.runtime import get_runtime
    >>> get_runtime() is get_runtime()
    True
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import sys
import threading
from string import Template

import llvmlite.binding as llvm

from ti_notebook.errors import KernelInterrupted, TiRuntimeError
from ti_notebook.ir.devices import DEVICES
from ti_notebook.runtime import interrupt
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.cpu.threadpool import get_pool
from ti_notebook.runtime.simt import sync_ir, vprintf
from ti_notebook.runtime.simt.pool_ir import POOL_IR
from ti_notebook.runtime.simt.sync_ir import SYNC_IR
from ti_notebook.runtime.simt.warp_ir import WARP_IR
from ti_notebook.runtime.simt.watch_ir import WATCH_IR

__all__ = [
    "SimtRuntime",
    "get_runtime",
    "DYNAMIC_SHARED_SYMBOL",
    "MAX_DYNAMIC_SHARED",
    "STALL_SECONDS",
]

# Every module's extern shared array resolves to this one buffer (blocks run one after
# another), sized for the largest opt-in maximum of the device table (sm_90's 227 KB).
DYNAMIC_SHARED_SYMBOL = "tin_simt_dynamic_shared"
MAX_DYNAMIC_SHARED = max(d.shared_bytes_per_block_optin for d in DEVICES.values())
# Pause iterations before a waiting thread sleeps on its futex. Short is best on this
# 2-core machine whether threads share cores or not (a kernel with two barriers, 64
# blocks of 128 threads: 16 pauses 45 ms, 256 pauses 110 ms, 2000 pauses 700 ms; with 2
# threads: 17 us against 150 us a launch): a spinning thread keeps the thread it waits
# for off the CPU.
_SPIN = 16
# Then, at barriers only, up to this many sched_yield calls before the futex sleep: with
# more threads than cores the thread we wait for is often runnable, and yielding to it
# is cheaper than a sleep and a wakeup (64 blocks of 128 threads with 6 warp or block
# barriers each: about 43 ms with yields, 65 ms without; machine shared, noisy).
_YIELDS = 64
# The watchdog's poll interval and how many quiet polls in a row make a deadlock.
_POLL_MS = 20
QUIET_POLLS = 5
# How long a block may spin with no progress before the launch fails (``watch_ir.py``
# defines progress; a stall is exact, so this only needs to outlast scheduling noise).
# Read at each launch.
STALL_SECONDS = 1.0
# Worker stacks: GPU threads have at most 512 KB of local memory; callbacks into Python
# (vprintf) need some room too.
_STACK_BYTES = 2 * 1024 * 1024
_EXPORTS = (
    "tin_simt_tid_x",
    "tin_simt_tid_y",
    "tin_simt_tid_z",
    "tin_simt_laneid",
    "tin_simt_warpid",
    "tin_simt_ntid",
    "tin_simt_nctaid",
    "tin_simt_ctaid",
    "tin_simt_barrier",
    "tin_simt_barrier_reduce",
    "tin_simt_syncwarp",
    "tin_simt_shfl",
    "tin_simt_vote",
    "tin_simt_activemask",
    "tin_simt_trap",
    "tin_simt_poll",
    "tin_simt_poll_slot",
)
_CONTROL = ("tin_simt_init", "tin_simt_launch", "tin_simt_error_info", "tin_simt_after_fork")
_LIBC = (
    "pthread_getspecific",
    "pthread_setspecific",
    "pthread_key_create",
    "pthread_create",
    "pthread_detach",
    "pthread_attr_init",
    "pthread_attr_setstacksize",
    "pthread_attr_destroy",
    "pthread_sigmask",
    "syscall",
    "_setjmp",
    "longjmp",
)
_LAUNCH = ctypes.CFUNCTYPE(
    ctypes.c_int32,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_void_p,
)

_runtime: SimtRuntime | None = None
_runtime_lock = threading.Lock()


def _runtime_ir() -> str:
    return Template(SYNC_IR + WARP_IR + WATCH_IR + POOL_IR).substitute(
        POLL_MS=_POLL_MS,
        YIELDS=_YIELDS,
        STACK_BYTES=_STACK_BYTES,
        ERROR_DEADLOCK=sync_ir.ERROR_DEADLOCK,
        ERROR_ABSENT_LANE=sync_ir.ERROR_ABSENT_LANE,
        ERROR_MASK=sync_ir.ERROR_MASK,
        ERROR_BARRIER=sync_ir.ERROR_BARRIER,
        ERROR_TRAP=sync_ir.ERROR_TRAP,
        ERROR_THREADS=sync_ir.ERROR_THREADS,
        ERROR_INTERRUPTED=sync_ir.ERROR_INTERRUPTED,
        ERROR_STALLED=sync_ir.ERROR_STALLED,
    )


def _check_platform() -> None:
    # The IR uses x86-64 Linux syscall numbers, glibc's jmp_buf size and `pause`.
    if not sys.platform.startswith("linux") or platform.machine().lower() not in (
        "x86_64",
        "amd64",
    ):
        raise TiRuntimeError(
            f"the SIMT emulator needs x86-64 Linux (this is {sys.platform}/{platform.machine()})",
            hint="run CUDA kernels on a GPU, or use arch=ti.cpu",
        )


class SimtRuntime:
    """The loaded native runtime: a worker pool that grows to the largest block launched
    (threads live for the rest of the process and sleep between launches)."""

    def __init__(self) -> None:
        _check_platform()
        engine = jit()
        libc = ctypes.CDLL(None)
        for name in _LIBC:
            if llvm.address_of_symbol(name) is None:
                engine.add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
        addresses = engine.add_ir(_runtime_ir(), list(_EXPORTS + _CONTROL))
        for name in _EXPORTS:
            engine.add_symbol(name, addresses[name])
        # Workers run JIT code until the process exits: the engine must outlive them.
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine.engine))
        self._dynamic_shared = ctypes.create_string_buffer(MAX_DYNAMIC_SHARED + 256)
        base = ctypes.addressof(self._dynamic_shared)
        self.dynamic_shared_address = (base + 255) & ~255
        engine.add_symbol(DYNAMIC_SHARED_SYMBOL, self.dynamic_shared_address)
        engine.add_symbol("tin_simt_vprintf", vprintf.vprintf_address())
        engine.add_symbol("tin_simt_assertfail", vprintf.assertfail_address())
        if ctypes.CFUNCTYPE(ctypes.c_int32)(addresses["tin_simt_init"])() != 0:
            raise TiRuntimeError("the SIMT emulator could not create its thread key")
        self._launch = _LAUNCH(addresses["tin_simt_launch"])
        error_info = ctypes.CFUNCTYPE(ctypes.c_void_p)(addresses["tin_simt_error_info"])()
        self._error = (ctypes.c_int32 * 6).from_address(error_info)
        os.register_at_fork(after_in_child=ctypes.CFUNCTYPE(None)(addresses["tin_simt_after_fork"]))
        # One launch at a time: the runtime's block state and shared memory are global.
        self.lock = threading.Lock()

    def launch(
        self,
        kernel_name: str,
        entry_address: int,
        args_address: int,
        block: tuple[int, int, int],
        grid: tuple[int, int, int],
    ) -> None:
        """Runs ``grid`` blocks of ``block`` threads of the entry trampoline (whose one
        argument is ``args_address``); raises :class:`TiRuntimeError` if the kernel
        trapped, deadlocked, stalled (a block waiting for another) or used a warp
        operation the emulator cannot run, :class:`KernelInterrupted` on SIGINT."""
        dims = (ctypes.c_int32 * 6)(*block, *grid)
        stall_polls = max(1, math.ceil(STALL_SECONDS * 1000 / _POLL_MS))
        with self.lock:
            vprintf.begin_launch()
            try:
                code = self._launch(
                    entry_address,
                    args_address,
                    dims,
                    QUIET_POLLS,
                    _SPIN,
                    stall_polls,
                    interrupt.state_address,
                )
                error = list(self._error)
            finally:
                vprintf.end_launch()
        if code == sync_ir.ERROR_INTERRUPTED:
            raise KernelInterrupted(
                f"kernel '{kernel_name}' was interrupted; fields keep what it wrote"
            )
        if code:
            raise _launch_error(kernel_name, error, block)


def _thread_name(index: int, block: tuple[int, int, int]) -> str:
    bx, by, _ = block
    x, rest = index % bx, index // bx
    return f"threadIdx ({x}, {rest % by}, {rest // by}) (lane {index % 32} of warp {index // 32})"


def _launch_error(kernel: str, error: list[int], block: tuple[int, int, int]) -> TiRuntimeError:
    code, a, b, c, block_index, thread = error
    where = f"in block {block_index}"
    if code == sync_ir.ERROR_DEADLOCK:
        return TiRuntimeError(
            f"kernel '{kernel}' deadlocked {where}: every live thread waits and none can go"
            f" on ({a} at __syncthreads, {b} at a warp shuffle or vote, {c} at __syncwarp)",
            hint="a barrier, shuffle or vote inside divergent code (an `if` that not every "
            "thread of the block or warp takes) waits for threads that never arrive; "
            "move it where all threads reach it",
        )
    if code == sync_ir.ERROR_ABSENT_LANE and 32 * c + b >= block[0] * block[1] * block[2]:
        lanes = block[0] * block[1] * block[2] - 32 * c
        return TiRuntimeError(
            f"kernel '{kernel}': a warp shuffle {where} at lane {a} of warp {c} reads lane "
            f"{b}, which does not exist: the block's last warp has only {lanes} lanes",
            hint="make the block size a multiple of 32 for full-warp shuffles",
        )
    if code == sync_ir.ERROR_ABSENT_LANE:
        return TiRuntimeError(
            f"kernel '{kernel}': a warp shuffle {where} at lane {a} of warp {c} reads lane "
            f"{b}, which has exited or is not at this shuffle, so the value is undefined",
            hint="call shuffles where every lane of the warp reaches them (full mask), "
            "e.g. before any early return",
        )
    if code == sync_ir.ERROR_MASK:
        return TiRuntimeError(
            f"kernel '{kernel}': a warp operation {where} (lane {b} of warp {c}) uses mask "
            f"{a & 0xFFFFFFFF:#010x}; the SIMT emulator runs only whole-warp masks",
            hint="use the full mask 0xffffffff (all lanes of the warp)",
        )
    if code == sync_ir.ERROR_BARRIER:
        count = "all threads" if b == -1 else f"{b} threads"
        return TiRuntimeError(
            f"kernel '{kernel}': barrier {a} for {count} {where}; the SIMT emulator runs "
            f"only barrier 0 for the whole block ({c} threads)",
            hint="use __syncthreads() (llvm.nvvm.barrier0)",
        )
    if code == sync_ir.ERROR_TRAP:
        message = vprintf.take_assertion() or "the kernel executed a trap"
        return TiRuntimeError(
            f"kernel '{kernel}' stopped {where}, {_thread_name(thread, block)}: {message}",
            hint="a failed assertion or bounds check in the kernel; the launch's other "
            "blocks did not run",
        )
    if code == sync_ir.ERROR_STALLED:
        waiting = f", {b} at __syncthreads and {c} at warp operations" if b or c else ""
        return TiRuntimeError(
            f"kernel '{kernel}' {where} made no progress for {STALL_SECONDS:g} s: {a} "
            f"thread(s) spin in a loop whose state repeats{waiting}, and no thread writes "
            "memory, passes a barrier or exits. A block waiting for another block is a "
            "likely cause (a flag a later block sets): CUDA does not guarantee that "
            "blocks run at the same time, and the SIMT emulator runs them one after "
            "another, so such a wait never ends here and may hang a GPU too",
            hint="do not make a block wait for work of another block in the same launch: "
            "split the kernel in two (a launch boundary orders them), or give that work "
            "to threads of the same block",
        )
    if code == sync_ir.ERROR_THREADS:
        return TiRuntimeError(
            f"kernel '{kernel}': the SIMT emulator needs {a} OS threads for one block but "
            f"the OS gave it only {b}",
            hint="launch smaller blocks, or raise the process's thread limit (ulimit -u)",
        )
    return TiRuntimeError(f"kernel '{kernel}': the SIMT emulator failed (code {code})")


def get_runtime() -> SimtRuntime:
    """Returns the process's emulator runtime, loading it on first use (~50 ms)."""
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                # the native SIGINT handler comes with the CPU pool: it must be in
                # front of CPython's for Ctrl-C to reach a running launch
                get_pool()
                _runtime = SimtRuntime()
    return _runtime
