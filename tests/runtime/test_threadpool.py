"""Tests of the native thread pool (ti_notebook.runtime.cpu.threadpool).

Tasks are written in LLVM IR and loaded through the process JIT, so every call below
runs exactly the path compiled kernels take: native code calling tin_parallel_for.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.cpu.threadpool import ThreadPool, get_pool

pytestmark = pytest.mark.cpu

TASKS_IR = r"""
declare i64 @syscall(i64, ...)
declare void @llvm.x86.sse2.pause()

define void @noop_task(ptr %ctx, i64 %b, i64 %e) {
  ret void
}

; ctx: CountCtx. counts[i - base] += 1 for each index; records calls and chunk lengths.
define void @count_task(ptr %ctx, i64 %b, i64 %e) {
entry:
  %counts = load ptr, ptr %ctx
  %pbase = getelementptr i8, ptr %ctx, i64 8
  %base = load i64, ptr %pbase
  %pcalls = getelementptr i8, ptr %ctx, i64 16
  %c = atomicrmw add ptr %pcalls, i64 1 seq_cst
  %len = sub i64 %e, %b
  %pmax = getelementptr i8, ptr %ctx, i64 24
  %mx = atomicrmw max ptr %pmax, i64 %len seq_cst
  %pmin = getelementptr i8, ptr %ctx, i64 32
  %mn = atomicrmw min ptr %pmin, i64 %len seq_cst
  %empty = icmp sge i64 %b, %e
  br i1 %empty, label %out, label %loop
loop:
  %i = phi i64 [ %b, %entry ], [ %i1, %loop ]
  %k = sub i64 %i, %base
  %p = getelementptr i32, ptr %counts, i64 %k
  %o = atomicrmw add ptr %p, i32 1 monotonic
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %e
  br i1 %more, label %loop, label %out
out:
  ret void
}

; ctx: TidCtx. tids[i] = gettid() of the thread running the chunk; spins per chunk so
; that a job lasts long enough for sleeping workers to join.
define void @tid_task(ptr %ctx, i64 %b, i64 %e) {
entry:
  %tids = load ptr, ptr %ctx
  %pspin = getelementptr i8, ptr %ctx, i64 8
  %spin = load i64, ptr %pspin
  %tid64 = call i64 (i64, ...) @syscall(i64 186)
  %tid = trunc i64 %tid64 to i32
  br label %wait
wait:
  %j = phi i64 [ 0, %entry ], [ %j1, %wait ]
  call void @llvm.x86.sse2.pause()
  %j1 = add i64 %j, 1
  %w = icmp slt i64 %j1, %spin
  br i1 %w, label %wait, label %loop
loop:
  %i = phi i64 [ %b, %wait ], [ %i1, %loop ]
  %p = getelementptr i32, ptr %tids, i64 %i
  store i32 %tid, ptr %p
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %e
  br i1 %more, label %loop, label %out
out:
  ret void
}

; ctx: NestCtx. For each outer index i, launches inner(inner_ctx, i*m, (i+1)*m) through
; the pool again, as a kernel with nested parallel loops would.
define void @nested_task(ptr %ctx, i64 %b, i64 %e) {
entry:
  %pf = load ptr, ptr %ctx
  %p1 = getelementptr i8, ptr %ctx, i64 8
  %inner = load ptr, ptr %p1
  %p2 = getelementptr i8, ptr %ctx, i64 16
  %ictx = load ptr, ptr %p2
  %p3 = getelementptr i8, ptr %ctx, i64 24
  %m = load i64, ptr %p3
  br label %loop
loop:
  %i = phi i64 [ %b, %entry ], [ %i1, %loop ]
  %lo = mul i64 %i, %m
  %hi = add i64 %lo, %m
  call void %pf(ptr %inner, ptr %ictx, i64 %lo, i64 %hi, i64 1, i32 0)
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %e
  br i1 %more, label %loop, label %out
out:
  ret void
}
"""

# A "kernel" that reaches the pool through the symbol get_pool() registers.
KERNEL_IR = r"""
declare void @tin_parallel_for(ptr, ptr, i64, i64, i64, i32)
define void @kernel_launch(ptr %task, ptr %ctx, i64 %n) {
  call void @tin_parallel_for(ptr %task, ptr %ctx, i64 0, i64 %n, i64 16, i32 0)
  ret void
}
"""


class CountCtx(ctypes.Structure):
    _fields_ = [
        ("counts", ctypes.c_void_p),
        ("base", ctypes.c_int64),
        ("calls", ctypes.c_int64),
        ("max_len", ctypes.c_int64),
        ("min_len", ctypes.c_int64),
    ]


class TidCtx(ctypes.Structure):
    _fields_ = [("tids", ctypes.c_void_p), ("spin", ctypes.c_int64)]


class NestCtx(ctypes.Structure):
    _fields_ = [
        ("pf", ctypes.c_void_p),
        ("inner", ctypes.c_void_p),
        ("inner_ctx", ctypes.c_void_p),
        ("m", ctypes.c_int64),
    ]


@pytest.fixture(scope="module")
def tasks():
    return jit().add_ir(TASKS_IR, ["count_task", "tid_task", "nested_task", "noop_task"])


@pytest.fixture(scope="module")
def pools():
    return {n: ThreadPool(n) for n in (1, 2, 4)}


class Counter:
    """Per-index visit counts for the range [base, base + size)."""

    def __init__(self, base: int, size: int) -> None:
        self.cells = (ctypes.c_int32 * max(size, 1))()
        self.ctx = CountCtx(ctypes.addressof(self.cells), base, 0, 0, 1 << 62)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.ctx)

    def values(self) -> list[int]:
        return list(self.cells)


def expected_chunking(n: int, grain: int, max_threads: int, size: int) -> tuple[int, int]:
    """(number of task calls, largest chunk) the documented policy gives."""
    if n <= 0:
        return 0, 0
    threads = min(size if max_threads <= 0 else max_threads, size)
    if (grain > 0 and n <= grain) or threads <= 1:
        return 1, n
    chunk = grain if grain > 0 else max(1, -(-n // (threads * 4)))
    return -(-n // chunk), min(chunk, n)


CASES = [
    # (begin, end, grain, max_threads)
    (0, 0, 0, 0),  # empty
    (5, 5, 1, 0),  # empty, begin > 0
    (10, 3, 1, 0),  # reversed: empty
    (0, 1, 0, 0),
    (0, 2, 1, 0),
    (7, 1000, 0, 0),  # begin > 0, automatic grain
    (0, 100, 1000, 0),  # n < grain: inline
    (0, 100, 100, 0),  # n == grain: inline
    (0, 101, 100, 0),  # two chunks, the last of length 1
    (3, 1003, 7, 0),  # ragged last chunk
    (0, 100_000, 1, 0),  # grain 1, many chunks
    (0, 50_000, 0, 1),  # max_threads 1: inline
    (0, 50_000, 10, 2),
    (0, 50_000, 10, 64),  # max_threads above the pool size
    (-500, 500, 3, 0),  # negative indices
    (2**40, 2**40 + 4096, 0, 0),  # large offsets
]


@pytest.mark.parametrize("size", [1, 2, 4])
@pytest.mark.parametrize("begin,end,grain,max_threads", CASES)
def test_every_index_visited_once(pools, tasks, size, begin, end, grain, max_threads):
    pool = pools[size]
    n = max(end - begin, 0)
    counter = Counter(begin, n)
    pool.parallel_for(tasks["count_task"], counter.address, begin, end, grain, max_threads)
    assert counter.values() == [1] * n + ([0] if n == 0 else [])
    calls, largest = expected_chunking(n, grain, max_threads, size)
    assert counter.ctx.calls == calls
    if calls:
        assert counter.ctx.max_len == largest
        assert counter.ctx.min_len >= 1


def run_tids(pool, tasks, n, grain, max_threads=0, spin=0):
    tids = (ctypes.c_int32 * n)()
    ctx = TidCtx(ctypes.addressof(tids), spin)
    pool.parallel_for(tasks["tid_task"], ctypes.addressof(ctx), 0, n, grain, max_threads)
    assert all(tids), "some index was not visited"
    return set(tids)


def test_small_jobs_run_inline_on_caller(pools, tasks):
    me = threading.get_native_id()
    assert run_tids(pools[4], tasks, 100, grain=100) == {me}
    assert run_tids(pools[4], tasks, 10_000, grain=10, max_threads=1) == {me}
    assert run_tids(pools[1], tasks, 10_000, grain=10) == {me}


def test_large_jobs_use_several_threads(pools, tasks):
    me = threading.get_native_id()
    # ~1000 chunks of ~20 us: long enough for a sleeping worker to wake and join even
    # on a busy machine; retried because the OS decides who actually gets a core.
    for _ in range(10):
        seen = run_tids(pools[2], tasks, 100_000, grain=100, spin=200)
        if len(seen) >= 2:
            break
    assert len(seen) == 2 and me in seen
    assert pools[2].started and pools[2].live_threads == 2
    # Workers block asynchronous signals (SIGINT goes to Python) but not fault signals.
    (worker,) = seen - {me}
    with open(f"/proc/self/task/{worker}/status") as status:
        blocked = next(int(x.split()[1], 16) for x in status if x.startswith("SigBlk:"))
    sigint, sigsegv = 2, 11
    assert blocked >> (sigint - 1) & 1 and not blocked >> (sigsegv - 1) & 1


def test_max_threads_limits_participants(pools, tasks):
    for _ in range(20):
        assert len(run_tids(pools[4], tasks, 20_000, grain=20, max_threads=2, spin=100)) <= 2
    # Without the limit, more threads join: all four when there are cores for them
    # (retried, since the OS decides who runs; a 2-core machine may only show two).
    wanted = 3 if (os.cpu_count() or 1) >= 4 else 2
    for _ in range(10):
        if len(run_tids(pools[4], tasks, 100_000, grain=100, spin=200)) >= wanted:
            break
    else:
        pytest.fail(f"never {wanted} threads without max_threads")


def test_threads_start_lazily(tasks):
    pool = ThreadPool(3)
    assert not pool.started
    counter = Counter(0, 10)
    pool.parallel_for(tasks["count_task"], counter.address, 0, 10, grain=10)  # inline
    assert not pool.started
    pool.parallel_for(tasks["count_task"], counter.address, 0, 10, grain=1)
    assert pool.started and pool.live_threads == 3
    assert counter.values() == [2] * 10


def test_many_tiny_launches(pools, tasks):
    for pool in (pools[2], pools[4]):
        counter = Counter(0, 2)
        for _ in range(10_000):
            pool.parallel_for(tasks["count_task"], counter.address, 0, 2, grain=1)
        assert counter.values() == [10_000, 10_000]
        assert counter.ctx.calls == 20_000


def test_launches_after_workers_fell_asleep(pools, tasks):
    counter = Counter(0, 64)
    for _ in range(5):
        time.sleep(0.005)  # longer than the spin phase: workers are on the futex
        pool = pools[4]
        pool.parallel_for(tasks["count_task"], counter.address, 0, 64, grain=1)
    assert counter.values() == [5] * 64


def test_concurrent_launchers(pools, tasks):
    pool = pools[4]
    rounds, n = 300, 1000
    counters = [Counter(0, n) for _ in range(3)]
    errors = []

    def launcher(counter, grain):
        try:
            for _ in range(rounds):
                pool.parallel_for(tasks["count_task"], counter.address, 0, n, grain)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=launcher, args=(c, g))
        for c, g in zip(counters, (10, 1, 0), strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and not any(t.is_alive() for t in threads)
    for counter in counters:
        assert counter.values() == [rounds] * n


def test_nested_launch_runs_inline(pools, tasks):
    pool = pools[4]
    outer, m = 64, 50
    counter = Counter(0, outer * m)
    ctx = NestCtx(pool.parallel_for_address, tasks["count_task"], counter.address, m)
    pool.parallel_for(tasks["nested_task"], ctypes.addressof(ctx), 0, outer, grain=1)
    assert counter.values() == [1] * (outer * m)
    assert counter.ctx.calls == outer  # each nested range ran as one inline call


def test_get_pool_is_a_singleton_and_registers_the_symbol(tasks):
    pool = get_pool()
    assert get_pool(pool.num_threads + 3) is pool
    assert pool.num_threads == (os.cpu_count() or 1) or pool.num_threads >= 1
    launch = jit().add_ir(KERNEL_IR, ["kernel_launch"])["kernel_launch"]
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(launch)
    counter = Counter(0, 5000)
    fn(tasks["count_task"], counter.address, 5000)
    assert counter.values() == [1] * 5000


def test_forked_child_can_use_the_pool(pools, tasks):
    pool = pools[2]
    counter = Counter(0, 4096)
    pool.parallel_for(tasks["count_task"], counter.address, 0, 4096, grain=8)
    pid = os.fork()
    if pid == 0:  # child: no workers yet; the pool must respawn them, not hang
        code = 1
        try:
            pool.parallel_for(tasks["count_task"], counter.address, 0, 4096, grain=8)
            code = 0 if counter.values() == [2] * 4096 and pool.started else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 20
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("forked child hung in the pool")
        time.sleep(0.01)
    assert os.waitstatus_to_exitcode(status) == 0


def test_interpreter_exit_does_not_hang():
    # Exit right after a launch (workers spinning) and after they went to sleep.
    script = textwrap.dedent(
        """
        import ctypes, time
        from ti_notebook.runtime.cpu.jit import jit
        from ti_notebook.runtime.cpu.threadpool import ThreadPool
        ir = 'define void @t(ptr %c, i64 %b, i64 %e) { ret void }'
        task = jit().add_ir(ir, ["t"])["t"]
        sleepy, busy = ThreadPool(3), ThreadPool(3)
        sleepy.parallel_for(task, None, 0, 1000, grain=1)
        time.sleep(0.05)
        busy.parallel_for(task, None, 0, 1000, grain=1)
        print("ok")
        """
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def measure_latency(pool, task, n, grain, calls=10_000):
    """Median seconds of one parallel_for call through ctypes."""
    counter = Counter(0, n)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        pool.parallel_for(task, counter.address, 0, n, grain)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) * 1e-9


def test_launch_latency_report(pools, tasks):
    """Not a benchmark gate: prints the numbers (run with -s to see them)."""
    pool = pools[2]
    for name in ("noop_task", "count_task"):
        parallel = measure_latency(pool, tasks[name], 1024, 64)
        inline = measure_latency(pool, tasks[name], 1024, 1024)
        print(
            f"\n{name}: parallel_for n=1024 grain=64 ({pool.num_threads} threads) "
            f"{parallel * 1e6:.2f} us median; inline (grain=n) {inline * 1e6:.2f} us"
        )
