"""What a %%kernel cell does: statements in order, defs become kernels, eager compiles."""

import re

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

FILL = """%%kernel
x = ti.field(ti.i32, shape=8)
def fill(v: ti.i32):
    for i in x:
        x[i] = v + i
"""


def test_top_level_functions_become_kernels_in_the_user_namespace(shell, run):
    cell = run(FILL)
    assert cell.result.success, cell.stdout
    assert isinstance(shell.user_ns["fill"], ti.Kernel)
    run("fill(10)")
    assert shell.user_ns["x"].to_numpy().tolist() == list(range(10, 18))


def test_one_line_per_kernel_with_time_cache_tasks_and_passes(run):
    cell = run(
        FILL
        + "def total() -> ti.i32:\n    s = 0\n    for i in x:\n        s += x[i]\n    return s\n"
    )
    # a summary wider than 100 characters goes on three lines, broken between words
    lines = cell.stdout.splitlines()
    heads = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    assert heads == ["fill", "total"]
    assert re.match(r"fill: (compiled|loaded) in \d+\.\d ms \(cache (miss|hit)\)$", lines[0])
    assert lines[1] == "  tasks: parallel loop over the cells of x (dense 8)"
    assert lines[2].startswith("  passes: offload")
    assert "make_thread_local" in cell.stdout.split("total:")[1]
    assert all(len(line) <= 100 for line in lines)


def test_kernels_compile_when_the_cell_runs(shell, run):
    run(FILL)
    report = shell.user_ns["fill"].report  # already compiled: no compile here
    assert report["tasks"][-1]["kind"] == "struct_for"


def test_statements_run_in_order_and_may_launch_the_cells_kernels(shell, run):
    cell = run(FILL + "fill(1)\nfirst = x[0]\n")
    assert cell.result.success, cell.stdout
    assert shell.user_ns["first"] == 1


def test_trailing_expression_is_the_cells_value(run):
    cell = run(FILL + "fill(3)\nx[2]\n")
    assert cell.result.result == 5


def test_ti_func_stays_a_func_and_is_inlined(shell, run):
    cell = run(
        "%%kernel\n"
        "@ti.func\n"
        "def twice(a):\n"
        "    return 2 * a\n"
        "def use(v: ti.i32) -> ti.i32:\n"
        "    return twice(v)\n"
    )
    assert cell.result.success, cell.stdout
    assert isinstance(shell.user_ns["twice"], ti.Func)
    assert [line.split(":")[0] for line in cell.stdout.splitlines()] == ["use"]
    assert run("use(21)").result.result == 42


def test_decorated_kernels_are_kept(shell, run):
    cell = run("%%kernel\n@ti.kernel\ndef k() -> ti.i32:\n    return 7\n")
    assert cell.stdout.startswith("k: ")
    assert run("k()").result.result == 7


def test_template_kernels_compile_at_first_call(shell, run):
    cell = run(
        "%%kernel\n"
        "y = ti.field(ti.f32, shape=4)\n"
        "def scale(f: ti.template(), s: ti.f32):\n"
        "    for i in f:\n"
        "        f[i] = s\n"
    )
    assert "scale: compiles at its first call" in cell.stdout
    run("scale(y, 2.5)")
    assert shell.user_ns["y"].to_numpy().tolist() == [2.5] * 4
    launched = run(
        "%%kernel\ndef again(f: ti.template()):\n    for i in f:\n        f[i] = 1\nagain(y)\n"
    )
    assert launched.stdout.startswith("again: compiled in")  # its launch compiled it


def test_typed_ndarray_kernels_compile_at_once(shell, run):
    cell = run(
        "%%kernel\n"
        "def inc(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):\n"
        "    for i in a:\n"
        "        a[i] += 1\n"
    )
    assert cell.stdout.startswith("inc: compiled in"), cell.stdout
    shell.user_ns["arr"] = np.zeros(3, dtype=np.float32)
    run("inc(arr)")
    assert shell.user_ns["arr"].tolist() == [1.0, 1.0, 1.0]


def test_redefinition_in_a_later_cell_wins(shell, run):
    run("%%kernel\ndef answer() -> ti.i32:\n    return 1\n")
    old = shell.user_ns["answer"]
    run("%%kernel\ndef answer() -> ti.i32:\n    return 2\n")
    assert shell.user_ns["answer"] is not old
    assert run("answer()").result.result == 2
    assert old() == 1  # the old object still works for whoever holds it


def test_magic_line_expands_variables_from_the_namespace(shell, run):
    shell.user_ns["threads"] = 3
    cell = run(FILL.replace("%%kernel", "%%kernel --parallelize {threads}"))
    assert cell.result.success, cell.stdout
    assert shell.user_ns["fill"].report["tasks"][-1]["loop_config"] == {"parallelize": 3}


def test_quiet_prints_no_summary(run):
    cell = run(FILL.replace("%%kernel", "%%kernel --quiet") + "print('only this')\n")
    assert cell.stdout == "only this\n"


def test_cell_source_is_registered_with_ipython(shell, run):
    run(FILL)
    code = shell.user_ns["fill"].func.__code__
    import linecache

    lines = linecache.getlines(code.co_filename)
    assert lines[0].startswith("%%kernel")
    assert lines[code.co_firstlineno - 1].startswith("def fill")
    assert code.co_firstlineno == 3  # the magic line is line 1 of the cell
    label = shell.compile.format_code_name(code.co_filename)
    assert label is not None and label[0] == "Cell"
