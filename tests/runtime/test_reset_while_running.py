"""``ti.reset()``, ``ti.init()`` and ``tree.destroy()`` from another Python thread while a
kernel runs wait for the launch to end instead of freeing memory under it (which used
to kill the process). Each case runs in its own process: a regression is a signal."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cpu

SCRIPT = textwrap.dedent(
    """
    import threading, time
    import ti_notebook as ti

    ti.init(arch=ti.cpu, offline_cache=False)
    fb = ti.FieldsBuilder()
    x = ti.field(ti.f32)
    fb.dense(ti.i, 1 << 20).place(x)
    tree = fb.finalize()

    @ti.kernel
    def slow(rounds: ti.i32):
        for i in x:  # every thread keeps writing the tree for a while
            v = 0.0
            for r in range(rounds):
                v = v * 0.5 + r
            x[i] = v

    slow(1)  # compiled before the race
    started = threading.Event()

    def launch():
        started.set()
        slow(1500)

    worker = threading.Thread(target=launch)
    worker.start()
    started.wait()
    time.sleep(0.05)
    ACTION
    worker.join()
    ti.init(arch=ti.cpu, offline_cache=False)
    y = ti.field(ti.i32, shape=4)

    @ti.kernel
    def after():
        for i in y:
            y[i] = i * 2

    after()
    print("OK", y.to_numpy().tolist())
    """
)


@pytest.mark.parametrize(
    "action",
    ["ti.reset()", "ti.init(arch=ti.cpu, offline_cache=False)", "tree.destroy()"],
)
def test_freeing_while_a_kernel_runs_waits_for_it(action, tmp_path):
    path = tmp_path / "race.py"
    path.write_text(SCRIPT.replace("ACTION", action))
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().endswith("OK [0, 2, 4, 6]")
