"""SIGINT (Jupyter's interrupt button) stops a running kernel within a fraction of a
second: ``KeyboardInterrupt`` is raised, fields keep what was written, the next launch
works, and Ctrl-C in plain Python code still interrupts as before. Every case runs in a
subprocess that interrupts itself; a regression shows as a hang (timeout) or a crash."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cpu

PRELUDE = textwrap.dedent(
    """
    import os, signal, threading, time
    import ti_notebook as ti
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=1 << 16)
    counter = ti.field(ti.i32, shape=())
    sent = [0.0]

    def interrupt_in(seconds):
        def later():
            time.sleep(seconds)
            sent[0] = time.perf_counter()
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=later, daemon=True).start()

    def expect_interrupt(call):
        interrupt_in(0.3)
        try:
            call()
        except KeyboardInterrupt as error:
            late = time.perf_counter() - sent[0]
            frames = []
            tb = error.__traceback__
            while tb is not None:
                frames.append(tb.tb_frame.f_code.co_filename)
                tb = tb.tb_next
            print("INTERRUPTED", round(late, 3), str(error))
            return
        print("NOT INTERRUPTED")
    """
)

KERNELS = {
    "while_true": """
        @ti.kernel
        def k():
            counter[None] = 7
            while True:
                x[1] += 1.0
        """,
    "serial_loop": """
        @ti.kernel
        def k():
            counter[None] = 7
            ti.loop_config(serialize=True)
            for i in range(2_000_000_000):
                x[i % 1024] += 1.0
        """,
    "parallel_loop_with_long_bodies": """
        @ti.kernel
        def k():
            counter[None] = 7
            for i in x:
                v = 0.0
                for j in range(50_000_000):
                    v = v * 0.5 + j
                x[i] = v
        """,
    "nested_runtime_ranges": """
        @ti.kernel
        def k(n: ti.i32):
            counter[None] = 7
            for i in range(n):
                for j in range(n):
                    x[(i + j) % 1024] += 1.0
        """,
}

AFTER = textwrap.dedent(
    """
    print("KEPT", counter[None])

    @ti.kernel
    def after() -> ti.i32:
        s = 0
        for i in range(10):
            s += i
        return s

    print("NEXT", after())
    """
)


@pytest.mark.parametrize("case", sorted(KERNELS))
def test_sigint_stops_a_running_kernel(case, tmp_path):
    call = "k(1_000_000)" if case == "nested_runtime_ranges" else "k()"
    body = textwrap.dedent(KERNELS[case]) + f"expect_interrupt(lambda: {call})\n"
    path = tmp_path / "case.py"
    path.write_text(PRELUDE + body + AFTER)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    (line,) = [s for s in run.stdout.splitlines() if s.startswith(("INTERRUPTED", "NOT"))]
    assert line.startswith("INTERRUPTED"), run.stdout
    assert float(line.split()[1]) < 1.0  # seconds from SIGINT to KeyboardInterrupt
    assert "kernel 'k' was interrupted" in line
    assert "KEPT 7" in run.stdout  # what the kernel wrote before it stopped stays
    assert "NEXT 45" in run.stdout


def test_ctrl_c_still_interrupts_python_code_and_survives_handler_changes(tmp_path):
    body = textwrap.dedent(
        """
        expect_interrupt(lambda: time.sleep(5))
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as ipykernel does

        @ti.kernel
        def k():
            while True:
                counter[None] += 1

        expect_interrupt(k)
        from ti_notebook.runtime import interrupt
        print("INSTALLED", interrupt.installed())
        """
    )
    path = tmp_path / "case.py"
    path.write_text(PRELUDE + body)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [s for s in run.stdout.splitlines() if s.startswith(("INTERRUPTED", "NOT"))]
    assert len(lines) == 2 and all(s.startswith("INTERRUPTED") for s in lines), run.stdout
    assert "kernel 'k' was interrupted" in lines[1]
    assert "INSTALLED True" in run.stdout


def test_ignored_sigint_stays_ignored(tmp_path):
    body = textwrap.dedent(
        """
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        from ti_notebook.runtime import interrupt
        print("INSTALLED", interrupt.installed())
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        print("ALIVE")
        """
    )
    path = tmp_path / "case.py"
    path.write_text(PRELUDE + body)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "INSTALLED False" in run.stdout and "ALIVE" in run.stdout
