"""Kernels compile in a worker process after the first few (``runtime/cpu/compile_worker.py``).

The worker keeps llvmlite's pass-builder leak out of this process, so what these tests
count is where compiles ran: the in-process pass builders (the leak's proxy) stop at
``START_AFTER`` however many kernels compile after them. The worker's code must be the
in-process code byte for byte, and any failure of the worker must cost nothing but a
compile in-process. Counts and results only: no assertion on time or memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.runtime.cpu import compile_server, compile_worker

pytestmark = pytest.mark.cpu

N = 3  # in-process compiles before the worker starts, in these tests


@pytest.fixture(autouse=True)
def _fresh_worker(monkeypatch):
    monkeypatch.setattr(compile_worker, "START_AFTER", N)
    monkeypatch.delenv("TI_COMPILE_WORKER", raising=False)
    compile_worker.reset()
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    compile_worker.reset()


def _fill(x, k: int):
    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v + k

    return fill


def _compile_and_check(x, ks) -> None:
    for k in ks:
        _fill(x, k)(1.0)
        np.testing.assert_array_equal(x.to_numpy(), np.full(x.shape, 1.0 + k, np.float32))


def _ready() -> compile_worker._Worker:
    assert compile_worker.wait_ready()
    worker = compile_worker._manager.current
    assert worker is not None
    return worker


def _captured_modules(monkeypatch) -> list[tuple[str, bool]]:
    seen: list[tuple[str, bool]] = []
    real = compile_worker.optimised_object

    def spy(text, speed_level=3, slp_vectorize=True):
        seen.append((text, slp_vectorize))
        return real(text, speed_level, slp_vectorize)

    monkeypatch.setattr(compile_worker, "optimised_object", spy)
    return seen


def test_the_worker_makes_the_in_process_object_code_byte_for_byte(monkeypatch):
    seen = _captured_modules(monkeypatch)
    x = ti.field(ti.f32, shape=(32, 32))
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def wave(t: ti.f32):
        for i, j in x:
            x[i, j] = ti.sin(i * 0.1 + t) * ti.exp(-j * 0.01)

    @ti.kernel
    def reduce() -> ti.f32:
        s = 0.0
        for i, j in x:
            s += x[i, j]
        return s

    @ti.kernel
    def unrolled():
        acc = 0.0
        for k in ti.static(range(40)):
            acc += x[k % 32, (3 * k) % 32]
        total[None] = acc

    wave(0.5)
    reduce()
    unrolled()
    assert len(seen) == 3
    worker = _ready()
    for text, horizontal in seen:
        here_code, here_text = compile_worker._in_process(text, 3, horizontal)
        there_code, there_text, stages = worker.compile(text, 3, horizontal)
        assert there_code == here_code
        assert there_text == here_text
        assert set(stages) == {"llvm_parse", "llvm_optimise", "machine_code"}


def test_after_n_compiles_the_worker_compiles_and_the_kernels_run():
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))
    assert compile_worker.stats() == {
        "in_process": N,
        "worker": 0,
        "worker_fallbacks": 0,
        "worker_starts": 0,
    }
    worker = _ready()
    _compile_and_check(x, range(N, 3 * N))
    counts = compile_worker.stats()
    assert counts["in_process"] == N and counts["worker"] == 2 * N
    assert worker.served == 2 * N


def test_in_process_pass_builders_stay_at_n_while_3n_kernels_compile(monkeypatch):
    # every in-process CPU O3 makes one pass builder: the ~70 KiB llvmlite keeps (the
    # PTX shadow tier's NVPTX compiles make their own elsewhere: not counted)
    built = []
    real = llvm.create_pass_builder

    def counted(*args):
        if sys._getframe(1).f_code.co_filename == compile_server.__file__:
            built.append(1)
        return real(*args)

    monkeypatch.setattr(llvm, "create_pass_builder", counted)
    monkeypatch.setattr(compile_worker, "REPLACE_AFTER", N + 1)  # one replacement on the way
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))
    first = _ready()
    _compile_and_check(x, range(N, 3 * N))
    assert len(built) == N
    assert compile_worker.wait_ready()
    second = compile_worker._manager.current
    assert second is not first and compile_worker.stats()["worker_starts"] == 2
    assert first.closed and first.process.wait(timeout=30) is not None  # the old one ended
    _compile_and_check(x, [100])
    assert len(built) == N and second.served >= 1


def test_a_killed_worker_costs_one_in_process_compile_and_is_replaced():
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))
    worker = _ready()
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait(timeout=30)
    _compile_and_check(x, [10])  # falls back: nothing visible
    counts = compile_worker.stats()
    assert counts["worker_fallbacks"] == 1 and counts["in_process"] == N + 1
    replacement = _ready()
    assert replacement is not worker
    _compile_and_check(x, [11, 12])
    assert replacement.served == 2 and compile_worker.stats()["worker_starts"] == 2


def test_an_interrupt_to_the_process_group_leaves_the_worker_serving():
    # what Ctrl-C in a terminal or a Jupyter kernel's interrupt sends to every process
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))
    worker = _ready()
    os.kill(worker.process.pid, signal.SIGINT)
    time.sleep(0.5)
    assert worker.process.poll() is None  # still running, nothing printed
    _compile_and_check(x, [20])
    assert worker.served == 1 and compile_worker.stats()["worker_fallbacks"] == 0


def test_a_worker_killed_while_compiling_falls_back(monkeypatch):
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))
    worker = _ready()
    real_send = worker.requests.send

    def send_then_die(message):
        real_send(message)
        os.kill(worker.process.pid, signal.SIGKILL)  # mid-request: no answer comes

    monkeypatch.setattr(worker.requests, "send", send_then_die)
    _compile_and_check(x, [20])
    assert compile_worker.stats()["worker_fallbacks"] == 1
    assert worker.closed


def test_an_ir_error_from_the_worker_is_the_in_process_error():
    _compile_and_check(ti.field(ti.f32, shape=16), range(N))
    _ready()
    bad = "define i32 @f() {\n  ret i64 0\n}"
    with pytest.raises(RuntimeError) as here:
        compile_worker._in_process(bad, 3, True)
    with pytest.raises(RuntimeError) as there:
        compile_worker.optimised_object(bad)
    assert str(there.value) == str(here.value)
    assert compile_worker.stats()["worker_fallbacks"] == 0
    assert not compile_worker._manager.current.closed  # the worker goes on


def test_ti_compile_worker_0_keeps_every_compile_in_process(monkeypatch):
    monkeypatch.setenv("TI_COMPILE_WORKER", "0")
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(3 * N))
    assert compile_worker.stats()["in_process"] == 3 * N
    assert compile_worker._manager.starting is None and compile_worker._manager.current is None
    assert not compile_worker.wait_ready(timeout=0)


def test_a_worker_that_cannot_start_warns_once_and_compiles_stay_here(monkeypatch):
    monkeypatch.setattr(compile_worker.sys, "executable", "/nonexistent/python")
    x = ti.field(ti.f32, shape=16)
    _compile_and_check(x, range(N))  # the N-th starts it, in the background
    assert not compile_worker.wait_ready()
    with pytest.warns(RuntimeWarning, match="compile worker could not start"):
        _compile_and_check(x, [30])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _compile_and_check(x, [31, 32])
    assert compile_worker.stats()["in_process"] == N + 3


def test_compiles_from_four_threads_at_once():
    _compile_and_check(ti.field(ti.f32, shape=16), range(N))
    worker = _ready()
    fields = [ti.field(ti.f32, shape=16) for _ in range(4)]
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def run(t: int) -> None:
        try:
            start.wait()
            _compile_and_check(fields[t], [100 * t + j for j in range(3)])
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert worker.served == 12 and compile_worker.stats()["in_process"] == N


_PARENT = """
import sys
from ti_notebook.runtime.cpu import compile_server, compile_worker
compile_worker.START_AFTER = 0
compile_worker.optimised_object("define i32 @f() { ret i32 1 }")
assert compile_worker.wait_ready()
print(compile_worker._manager.current.process.pid, flush=True)
import os
os._exit(0)  # no atexit: the worker must notice on its own
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_the_worker_ends_with_its_parent():
    env = dict(os.environ)
    env.pop("TI_COMPILE_WORKER", None)
    out = subprocess.run(
        [sys.executable, "-c", _PARENT], capture_output=True, text=True, check=True, env=env
    ).stdout
    pid = int(out.split()[-1])
    deadline = time.monotonic() + 60
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid)


def test_a_forked_child_compiles_in_process():
    _compile_and_check(ti.field(ti.f32, shape=16), range(N))
    worker = _ready()
    text = "define i32 @g() { ret i32 2 }"
    pid = os.fork()
    if pid == 0:  # the child: never the parent's worker
        code = 1
        try:
            compile_worker.optimised_object(text)
            counts = compile_worker.stats()
            code = 0 if counts["in_process"] == 1 and counts["worker"] == 0 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    served = worker.served
    compile_worker.optimised_object(text)
    assert worker.served == served + 1  # the parent's pipes still work
