"""Compiles kernels' LLVM IR to object code in a helper process, after the first few.

llvmlite 0.50's pass builder and its O3 pipeline keep ~70 KiB each time they are made
and run, which no ``close()`` frees: a process that compiles 500 kernels (a re-run
``%%kernel --no-cache`` cell, a tuner) grows by ~45 MiB. There is no other pass-manager
API, so the optimise-and-emit step (``runtime/cpu/compile_server.py``) runs in a worker
process whose growth is thrown away with it:

- the first :data:`START_AFTER` compiles of a process run in-process (a notebook's first
  kernel does not wait for a worker to start), then a worker starts in the background
  (``python -P compile_server.py``: the standard library and llvmlite only, ~0.3 s) and
  compiles run there once it is ready, with the same target triple, CPU and features, so
  the object code is byte for byte what an in-process compile makes;
- the worker is replaced after :data:`REPLACE_AFTER` compiles (its successor starts in
  the background while it keeps serving), or when it dies;
- a worker that crashes, hangs past :data:`TIMEOUT_S` or breaks its pipe costs only that
  compile: it runs in-process instead, and the next worker starts. A worker that cannot
  start at all warns once and compiles stay in-process for the session. An IR error the
  worker reports (LLVM's parser or verifier) is raised as the in-process compile raises
  it (``RuntimeError``);
- one request at a time: compiles from several threads take turns (the in-process
  optimiser is serialised by a lock as well);
- the worker ends with this process (its request pipe closes; it also checks that its
  parent lives) and at exit; a forked child never uses its parent's worker.

Every :data:`TRIM_EVERY` compiles, ``malloc_trim(0)`` hands the heap's free pages back
(glibc keeps them otherwise): with both, 500 compiles of a re-run ``%%kernel
--no-cache`` cell grow the process by ~4 MiB rather than ~45.

``TI_COMPILE_WORKER=0`` in the environment keeps every compile in-process.
:func:`stats` counts what ran where.

    >>> code, text = optimised_object("define i32 @f() { ret i32 7 }")
    >>> "ret i32 7" in text, code[:4] == b"\\x7fELF"
    (True, True)
    >>> sorted(stats())
    ['in_process', 'worker', 'worker_fallbacks', 'worker_starts']
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import itertools
import os
import subprocess
import sys
import threading
import warnings
from multiprocessing.connection import Connection

from ti_notebook.runtime.cpu import compile_server
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.stage_clock import credit

_LIBC = ctypes.CDLL(None)
START_AFTER = 8  # in-process compiles; the last of them starts the worker
# malloc_trim(0) after this many compiles: the heap that compiles churn (IR text, object
# code, pipe buffers) goes back to the OS instead of staying in the process's RSS
TRIM_EVERY = 32
REPLACE_AFTER = 500  # compiles a worker serves before a fresh one replaces it
TIMEOUT_S = 600.0  # a compile the worker has not answered by then: it is hung
START_TIMEOUT_S = 60.0  # a worker not ready by then cannot start


class WorkerFailed(Exception):
    """The worker could not answer (dead, hung, broken pipe, internal failure)."""


class _Retired(Exception):
    """The worker was replaced before this request was sent: ask for the current one."""


class _Worker:
    """One worker process and its two pipe ends; :meth:`compile` one request at a time."""

    def __init__(self, triple: str, cpu: str, features: str) -> None:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-P",  # no script directory on sys.path: runtime/ names no stdlib
                    compile_server.__file__,
                    str(request_read),
                    str(reply_write),
                    triple,
                    cpu,
                    features,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(request_read, reply_write),
            )
        except BaseException:
            for fd in (request_read, request_write, reply_read, reply_write):
                os.close(fd)
            raise
        os.close(request_read)
        os.close(reply_write)
        self.requests = Connection(request_write, readable=False)
        self.replies = Connection(reply_read, writable=False)
        self.lock = threading.Lock()
        self.served = 0
        self.closed = False

    def wait_ready(self, timeout: float) -> None:
        """Waits for the worker's ready message; raises :class:`WorkerFailed` if it does
        not come, or comes from a different llvmlite/LLVM."""
        try:
            if not self.replies.poll(timeout):
                raise WorkerFailed(f"not ready after {timeout:.0f} s")
            message = self.replies.recv()
        except (OSError, EOFError) as exc:
            raise WorkerFailed(f"exited while starting ({self.process.poll()})") from exc
        if message[0] != "ready" or tuple(message[2][1]) != compile_server.versions()[1]:
            raise WorkerFailed(f"unexpected start message {message!r}")
        if message[2][0] != compile_server.versions()[0]:
            raise WorkerFailed(f"llvmlite {message[2][0]} in the worker")

    def compile(
        self, llvm_text: str, speed_level: int, slp_vectorize: bool
    ) -> tuple[bytes, str, dict[str, float]]:
        with self.lock:
            if self.closed:
                raise _Retired
            try:
                self.requests.send(("compile", llvm_text, speed_level, slp_vectorize))
                if not self.replies.poll(TIMEOUT_S):
                    raise WorkerFailed(f"no answer in {TIMEOUT_S:.0f} s")
                reply = self.replies.recv()
            except WorkerFailed:
                self.close(kill=True)
                raise
            except (OSError, EOFError) as exc:  # died: broken pipe, end of file
                self.close(kill=True)
                raise WorkerFailed(f"{type(exc).__name__}: {exc}") from exc
            except BaseException:
                # interrupted mid-request (Ctrl-C): its answer would answer the next one
                self.close(kill=True)
                raise
            self.served += 1
        if reply[0] == "ok":
            return reply[1], reply[2], reply[3]
        if reply[0] == "error":
            raise RuntimeError(reply[1])
        raise WorkerFailed(reply[1])

    def close_pipes(self) -> None:
        """Closes this process's ends of the pipes (the worker sees end of file)."""
        self.closed = True
        for end in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                end.close()

    def retire(self, wait: float = -1) -> None:
        """Ends the worker after the request it may be serving; one still running after
        ``wait`` seconds (-1: however long it takes) is killed."""
        if self.lock.acquire(timeout=wait):
            try:
                self.close()
            finally:
                self.lock.release()
        else:  # its compile's thread sees a closed pipe and compiles in-process
            self.close(kill=True)

    def close(self, kill: bool = False) -> None:
        """Ends the worker: closing its request pipe ends its loop; ``kill`` does not wait."""
        if self.closed:
            return
        self.close_pipes()
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class _Manager:
    """Which worker serves compiles now, and starting its successor in the background."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.compiles = 0  # compiles asked for in this process
        self.current: _Worker | None = None
        self.starting: threading.Thread | None = None
        self.failed: str | None = None  # why a worker could not start (then: none)
        self.warned = False
        self.counts = {"in_process": 0, "worker": 0, "worker_fallbacks": 0, "worker_starts": 0}

    def worker(self, count: bool = True) -> _Worker | None:
        """The worker to use for the next compile, or None (compile in-process); starts a
        worker when one is due. ``count``: a new compile (not a retry of one)."""
        with self.lock:
            self.compiles += count
            if self.failed is not None:
                return None
            current = self.current
            if current is not None and current.closed:
                self.current = current = None  # died: start another
            due = current is None or current.served >= REPLACE_AFTER
            if due and self.starting is None and self.compiles >= START_AFTER:
                self.starting = threading.Thread(
                    target=self._start, name="ti-compile-worker-start", daemon=True
                )
                self.starting.start()
            return current

    def _start(self) -> None:
        worker = None
        try:
            engine = jit()
            worker = _Worker(engine.triple, engine.cpu_name, engine.cpu_features)
            worker.wait_ready(START_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - any start failure: compile in-process
            if worker is not None:
                worker.close(kill=True)
            with self.lock:
                self.failed = f"{type(exc).__name__}: {exc}"
                self.starting = None
            return
        with self.lock:
            old, self.current = self.current, worker
            self.counts["worker_starts"] += 1
            self.starting = None
        if old is not None:
            old.retire()

    def count(self, name: str) -> None:
        with self.lock:
            self.counts[name] += 1

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Waits for a worker being started; True if one is ready now."""
        starting = self.starting
        if starting is not None:
            starting.join(timeout)
        return self.current is not None and not self.current.closed

    def warning(self) -> str | None:
        """Why no worker could start, once per process."""
        with self.lock:
            if self.failed is None or self.warned:
                return None
            self.warned = True
            return self.failed

    def close(self) -> None:
        with self.lock:
            current, self.current = self.current, None
        if current is not None:
            current.retire(wait=2.0)  # at exit: a daemon thread's compile must not hold it


_manager = _Manager()
_orphaned: list[_Manager] = []


def enabled() -> bool:
    """Whether compiles may run in a worker (``TI_COMPILE_WORKER=0`` says no)."""
    return os.environ.get("TI_COMPILE_WORKER", "1").strip().lower() not in ("0", "false", "no")


def _in_process(llvm_text: str, speed_level: int, slp_vectorize: bool) -> tuple[bytes, str]:
    # the worker's own step, run here: the same code whichever process compiles
    found = compile_server.compile_text(jit().target_machine, llvm_text, speed_level, slp_vectorize)
    return _credited(*found)


def _credited(code: bytes, text: str, seconds: dict[str, float]) -> tuple[bytes, str]:
    """(code, text), with the compile's stages added to the open stage recording."""
    for name, took in seconds.items():
        credit(name, took)
    return code, text


def optimised_object(
    llvm_text: str, speed_level: int = 3, slp_vectorize: bool = True
) -> tuple[bytes, str]:
    """(object code, optimised IR) of LLVM IR text: O<speed_level> for the host CPU, in
    the worker when one is ready, else in-process (the same bytes either way). Raises
    ``RuntimeError`` if the IR does not parse or verify. ``slp_vectorize``: see
    ``JitEngine.optimize``."""
    worker = _manager.worker() if enabled() else None
    if next(_compiles_seen) % TRIM_EVERY == 0:  # counted with the worker off too
        _trim_heap()
    why = _manager.warning()
    if why is not None:
        warnings.warn(
            f"kernels compile in this process: the compile worker could not start ({why})",
            RuntimeWarning,
            stacklevel=2,
        )
    while worker is not None:
        try:
            found = worker.compile(llvm_text, speed_level, slp_vectorize)
        except _Retired:  # replaced between the manager's answer and this request
            worker = _manager.worker(count=False)
        except WorkerFailed:
            _manager.count("worker_fallbacks")
            _manager.worker(count=False)  # starts its successor now, in the background
            break
        else:
            _manager.count("worker")
            return _credited(*found)  # the worker's stages, as if they had run here
    _manager.count("in_process")
    return _in_process(llvm_text, speed_level, slp_vectorize)


_compiles_seen = itertools.count(1)  # every compile this process asked for


def _trim_heap() -> None:
    """Gives the C heap's free pages back to the OS (glibc's ``malloc_trim``; elsewhere
    nothing)."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def stats() -> dict[str, int]:
    """Compiles run ``in_process`` and in the ``worker``, compiles that fell back from a
    failed worker (``worker_fallbacks``, counted in ``in_process`` too), workers started."""
    return dict(_manager.counts)


def wait_ready(timeout: float = START_TIMEOUT_S) -> bool:
    """Waits for a worker that is starting; True if one serves compiles now."""
    return _manager.wait_ready(timeout)


def reset() -> None:
    """Stops the worker and forgets the counts: the next :data:`START_AFTER` compiles run
    in-process again (tests; ``ti.reset()`` keeps the worker)."""
    global _manager
    old, _manager = _manager, _Manager()
    if old.starting is not None:
        old.starting.join(START_TIMEOUT_S)
    old.close()


def _forget_in_child() -> None:
    # a forked child shares its parent's pipes: it must never talk to that worker; the
    # copies of the pipe ends are closed so the worker still sees its parent's exit
    global _manager
    old, _manager = _manager, _Manager()
    _orphaned.append(old)  # its process is the parent's: never waited for or killed here
    current = old.current
    if current is not None:
        current.close_pipes()


os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(lambda: _manager.close())
