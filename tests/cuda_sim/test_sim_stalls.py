"""The SIMT emulator can be stopped, and does not hang on a block that waits for another.

- SIGINT (Jupyter's interrupt button) stops an emulated kernel in an endless-looking
  loop: the launch raises ``KernelInterrupted`` naming the kernel, fields keep what was
  written, and the next launch on the emulator works;
- a block that spins on a flag a later block sets (blocks run one after another here,
  and CUDA does not promise they run together) is reported as an error naming the
  kernel, and the process keeps working;
- long loops that progress (compute, write memory, or wait for a thread of their own
  block that computes) are never flagged, even with a tiny stall budget.

Every case runs in a subprocess with a timeout: a regression shows as a failure, not
as a hung suite.
"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cuda_sim

PRELUDE = textwrap.dedent(
    """
    import os, signal, threading, time
    import ti_notebook as ti
    from ti_notebook.errors import KernelInterrupted, TiRuntimeError
    from ti_notebook.runtime import interrupt
    from ti_notebook.runtime.simt import runtime as simt_runtime
    ti.init(arch=ti.cuda, cuda_sim=True, offline_cache=False)
    x = ti.field(ti.i32, shape=64)
    stop = ti.field(ti.i32, shape=())
    flag = ti.field(ti.i32, shape=())
    out = ti.field(ti.f32, shape=64)

    @ti.kernel
    def after() -> ti.i32:
        s = 0
        for i in range(100):
            ti.atomic_add(s, i)
        return s
    """
)


def _run(body: str, tmp_path) -> list[str]:
    path = tmp_path / "case.py"  # kernels need a file to read their source from
    path.write_text(PRELUDE + textwrap.dedent(body))
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run.stdout.splitlines()


LOOPS = {
    # every thread of the grid loops, writing memory
    "parallel": """
        @ti.kernel
        def k():
            for i in x:
                x[i] = 7
                while stop[None] == 0:
                    out[i] += 1.0
        """,
    # one thread loops and writes nothing: only the interrupt can end it in time
    "serial_spin": """
        @ti.kernel
        def k():
            x[0] = 7
            while ti.atomic_or(stop[None], 0) == 0:
                pass
        """,
}


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_sigint_stops_an_emulated_kernel(case, tmp_path):
    lines = _run(
        textwrap.dedent(LOOPS[case])
        + """
simt_runtime.STALL_SECONDS = 60.0  # the interrupt, not the watchdog, must stop it
def later():
    while not interrupt.state[1]:  # until the launch runs (compiling takes a while)
        time.sleep(0.01)
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=later, daemon=True).start()
try:
    k()
    print("NOT INTERRUPTED")
except KernelInterrupted as error:
    print("INTERRUPTED", str(error))
print("KEPT", x[0])
print("NEXT", after())
""",
        tmp_path,
    )
    assert any(s.startswith("INTERRUPTED kernel 'k' was interrupted") for s in lines), lines
    assert "KEPT 7" in lines
    assert "NEXT 4950" in lines


def test_a_block_waiting_for_a_later_block_is_reported(tmp_path):
    lines = _run(
        """
        simt_runtime.STALL_SECONDS = 0.3

        @ti.kernel
        def waits():
            ti.loop_config(block_dim=32)
            for i in range(64):
                if i == 0:  # block 0 waits for block 1, which runs after it here
                    while ti.atomic_or(flag[None], 0) == 0:
                        pass
                    x[0] = 1
                if i == 32:
                    ti.atomic_or(flag[None], 1)

        try:
            waits()
            print("NO ERROR")
        except TiRuntimeError as error:
            print("ERROR", str(error).replace(chr(10), " | "))
        print("NEXT", after())
        """,
        tmp_path,
    )
    (error,) = [s for s in lines if s.startswith(("ERROR", "NO ERROR"))]
    assert error.startswith("ERROR kernel 'waits' in block 0 made no progress"), error
    assert "waiting for another block" in error and "hint:" in error
    assert "NEXT 4950" in lines


def test_long_loops_that_progress_are_not_flagged(tmp_path):
    lines = _run(
        """
        simt_runtime.STALL_SECONDS = 0.02  # one watchdog tick

        @ti.kernel
        def computes(n: ti.i32):  # registers only: the loop's state changes
            for i in range(2):
                v = 0.0
                for j in range(n):
                    v = v * 0.5 + ti.cast(j % 7, ti.f32)
                out[i] = v

        @ti.kernel
        def counts(n: ti.i32):  # no phi changes, but every atomic changes memory
            ti.loop_config(block_dim=32)
            for i in range(32):
                if i == 0:
                    while ti.atomic_add(x[1], 1) < n:
                        pass

        @ti.kernel
        def waits_in_block(n: ti.i32):  # thread 0 spins while thread 1 computes
            ti.loop_config(block_dim=32)
            for i in range(32):
                if i == 0:
                    while ti.atomic_or(flag[None], 0) == 0:
                        pass
                if i == 1:
                    v = 0.0
                    for j in range(n):
                        v = v * 0.5 + ti.cast(j % 7, ti.f32)
                    out[1] = v
                    ti.atomic_or(flag[None], 1)

        for name, kernel, n in (
            ("computes", computes, 30_000_000),
            ("counts", counts, 3_000_000),
            ("waits_in_block", waits_in_block, 30_000_000),
        ):
            started = time.perf_counter()
            kernel(n)
            print("RAN", name, round(time.perf_counter() - started, 2))
        print("COUNT", x[1] >= 3_000_000, "FLAG", flag[None])
        """,
        tmp_path,
    )
    assert [s.split()[1] for s in lines if s.startswith("RAN")] == [
        "computes",
        "counts",
        "waits_in_block",
    ], lines
    assert "COUNT True FLAG 1" in lines
