"""print inside a kernel shows in the output of the cell that launched it."""

import pytest

pytestmark = pytest.mark.cpu

NOISY = """%%kernel --quiet
def noisy(v: ti.i32):
    print("kernel says", v)
"""


def test_print_appears_in_the_launching_cell_only(run):
    defining = run(NOISY)
    assert "kernel says" not in defining.stdout
    launching = run("noisy(7)")
    assert launching.stdout == "kernel says 7\n"
    after = run("pass")
    assert after.stdout == ""


def test_print_from_a_launch_inside_the_kernel_cell(run):
    cell = run(NOISY + "noisy(1)\nprint('python after')\nnoisy(2)\n")
    assert cell.stdout == "kernel says 1\npython after\nkernel says 2\n"
    assert run("pass").stdout == ""


def test_print_in_a_parallel_loop_is_flushed_with_its_launch(run):
    run(
        "%%kernel --quiet\ndef each(n: ti.i32):\n    for i in range(n):\n        print('item', i)\n"
    )
    cell = run("each(4)")
    assert sorted(cell.stdout.splitlines()) == [f"item {i}" for i in range(4)]
    assert run("pass").stdout == ""
