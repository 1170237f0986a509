"""Memory comes back: re-running a notebook cell that declares a 4 MiB field and a kernel
over it 500 times keeps RSS within 50 MiB (it used to grow by ~2 GB: every tree stayed
mapped), and a tree nothing refers to is unmapped. Each measurement runs in a fresh
process so other tests' memory does not blur it."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cpu

SHELL_SCRIPT = textwrap.dedent(
    """
    import os
    import sys
    from IPython.testing.globalipapp import start_ipython

    def rss_mib():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    shell = start_ipython()
    shell.user_ns["CACHE"] = sys.argv[1]  # the offline cache on, as by default
    shell.run_cell("import ti_notebook as ti\\nti.init(arch=ti.cpu, offline_cache_file_path=CACHE)")
    CELL = '''
    x = ti.field(ti.f32, shape=1 << 20)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

    fill(1.5)
    assert x[12345] == 1.5
    '''
    for _ in range(20):
        assert shell.run_cell(CELL).success
    before = rss_mib()
    for _ in range(480):
        result = shell.run_cell(CELL)
        assert result.success, result.error_in_exec
    from ti_notebook.runtime import memory
    print("TREES", len(memory._by_id))
    print("GROWTH", rss_mib() - before)
    """
)


def test_500_reruns_of_a_field_cell_keep_memory_flat(tmp_path):
    path = tmp_path / "reruns.py"
    path.write_text(SHELL_SCRIPT)
    command = [sys.executable, str(path), str(tmp_path / "cache")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    growth = float(run.stdout.split("GROWTH")[-1])
    assert growth < 50, f"RSS grew by {growth:.0f} MiB over 480 re-runs"


UNREACHABLE = textwrap.dedent(
    """
    import gc
    import ti_notebook as ti
    from ti_notebook.runtime import memory
    ti.init(arch=ti.cpu, offline_cache=False)

    def make():
        builder = ti.FieldsBuilder()
        y = ti.field(ti.f32)
        builder.dense(ti.i, 1 << 18).place(y)
        tree = builder.finalize()

        @ti.kernel
        def touch():
            for i in y:
                y[i] = 1.0

        touch()
        return tree.tree_id, touch

    tree_id, kernel = make()
    gc.collect()
    print("WITH_KERNEL", tree_id in memory._by_id)  # the kernel's code points into it
    del kernel
    gc.collect()
    print("WITHOUT", tree_id in memory._by_id, memory.roots_table()[tree_id])
    """
)


def test_a_tree_is_unmapped_once_nothing_refers_to_it(tmp_path):
    path = tmp_path / "unreachable.py"
    path.write_text(UNREACHABLE)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "WITH_KERNEL True" in run.stdout
    assert "WITHOUT False 0" in run.stdout
