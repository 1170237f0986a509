"""Re-running a ``%%kernel`` cell after a value it reads changed gives the new result
(issue 11): the offline cache checks every value tracing read, attribute chains through
classes and modules and the globals of helpers run while compiling included."""

from __future__ import annotations

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

KERNEL_CELL = """%%kernel
def scaled() -> ti.i32:
    return Params.scale * 100 + cfg.N * 10 + ti.static(helper())
"""


@pytest.fixture
def cache_dir(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    return tmp_path


def _values(run, scale: int, n: int, k: int) -> None:
    cell = run(
        "import types\n"
        f"class Params:\n    scale = {scale}\n"
        f"cfg = types.ModuleType('cfg')\ncfg.N = {n}\nK = {k}\n"
        "def helper():\n    return K\n"
    )
    assert cell.result.success, cell.stdout + cell.stderr


@pytest.mark.parametrize("changed", ["class attribute", "module attribute", "helper global"])
def test_rerun_after_a_change_gives_the_new_result(shell, run, cache_dir, changed):
    _values(run, 1, 2, 3)
    first = run(KERNEL_CELL)
    assert "(cache miss)" in first.stdout, first.stdout
    assert run("scaled()").result.result == 123
    new = {"class attribute": (4, 2, 3), "module attribute": (1, 5, 3), "helper global": (1, 2, 6)}
    _values(run, *new[changed])
    again = run(KERNEL_CELL)
    assert "(cache miss)" in again.stdout, again.stdout
    scale, n, k = new[changed]
    assert run("scaled()").result.result == scale * 100 + n * 10 + k


def test_rerun_with_nothing_changed_is_a_hit(shell, run, cache_dir):
    _values(run, 1, 2, 3)
    run(KERNEL_CELL)
    _values(run, 1, 2, 3)  # new class and module objects, with the same values
    again = run(KERNEL_CELL)
    assert "(cache hit)" in again.stdout, again.stdout
    assert run("scaled()").result.result == 123


def test_changed_value_without_the_cache_also_recompiles(shell, run, cache_dir):
    ti.init(arch=ti.cpu, offline_cache=False)
    _values(run, 1, 2, 3)
    run(KERNEL_CELL)
    assert run("scaled()").result.result == 123
    _values(run, 2, 2, 3)
    run(KERNEL_CELL)
    assert run("scaled()").result.result == 223
