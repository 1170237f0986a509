"""A kernel that captured a global number which changed since it compiled says so, once,
when called (issue 19); re-running the cell recompiles with the new value."""

import pytest

pytestmark = pytest.mark.cpu

CELL = "%%kernel\ndef scaled(v: ti.f32) -> ti.f32:\n    return v * SCALE\n"


def test_changed_global_is_reported_once_with_the_remedy(run):
    run("SCALE = 2")
    assert run(CELL).error is None
    assert run("scaled(1.0)").stderr == ""
    run("SCALE = 10")
    first = run("print(scaled(1.0))")
    assert first.stdout.strip() == "2.0"  # the compiled value, as Taichi
    assert first.stderr.strip() == (
        "scaled captured SCALE = 2 at compile time; it is now 10: re-run the cell to recompile"
    )
    assert run("scaled(1.0)").stderr == ""  # once
    assert run(CELL).error is None  # re-running the cell recompiles (or loads from the cache)
    again = run("print(scaled(1.0))")
    assert again.stdout.strip() == "10.0" and again.stderr == ""


def test_unchanged_or_equal_values_say_nothing(run):
    run("LIMIT = 3")
    run("%%kernel\ndef capped(v: ti.i32) -> ti.i32:\n    return ti.min(v, LIMIT)\n")
    run("LIMIT = 3")  # another object, the same number
    cell = run("print(capped(7))")
    assert cell.stdout.strip() == "3" and cell.stderr == ""


def test_a_warm_start_from_the_offline_cache_watches_too(run, tmp_path):
    run(f"ti.init(arch=ti.cpu, offline_cache_file_path={str(tmp_path)!r})")
    run("SCALE = 3")
    run(CELL)
    run("scaled(1.0)")
    run("ti.init(arch=ti.cpu, offline_cache_file_path=" + repr(str(tmp_path)) + ")")
    run(CELL)  # a cache hit this time
    assert run("print(scaled.stages()['report']['cache'])").stdout.strip() == "hit"
    run("SCALE = 4")
    assert "SCALE = 3 at compile time; it is now 4" in run("scaled(1.0)").stderr
