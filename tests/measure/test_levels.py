"""The level a working set fits in (a pure function of sizes) and the verdict against that
level's ceiling: never above 100 % without a flag."""

import itertools

import pytest

from ti_notebook.measure.ceilings import Ceilings
from ti_notebook.measure.levels import MIN_RELIABLE_S, judge, level_for

pytestmark = pytest.mark.unit

C = Ceilings.example()  # L1 48 KiB, L2 2 MiB private; L3 32 MiB shared; 2 threads


@pytest.mark.parametrize(
    ("size", "threads", "level"),
    [
        (16 << 10, 1, "L1"),
        (48 << 10, 1, "L1"),  # exactly full
        ((48 << 10) + 1, 1, "L2"),
        (64 << 10, 2, "L1"),  # two private L1s hold 96 KiB
        (3 << 20, 1, "L3"),
        (3 << 20, 2, "L2"),  # two private L2s hold 4 MiB
        (32 << 20, 2, "L3"),  # the L3 is shared: 32 MiB for both
        ((32 << 20) + 1, 2, "DRAM"),
        (1 << 34, 1, "DRAM"),
    ],
)
def test_the_nearest_level_that_holds_the_working_set(size, threads, level):
    assert level_for(size, C, threads) == level


def test_the_verdict_names_the_level_and_its_share():
    verdict = judge(61.0, 1 << 20, C, threads=1, seconds=1e-3)
    assert (verdict.level, verdict.ceiling_gbps, verdict.flag) == ("L2", 100.0, None)
    assert verdict.describe() == "in L2: 61 % of L2 bandwidth"


def test_all_cores_use_the_all_cores_roofs():
    assert judge(100.0, 1 << 20, C, threads=2, seconds=1e-3).ceiling_gbps == 200.0


@pytest.mark.parametrize(
    ("gbps", "size", "threads", "seconds", "overlapping"),
    list(
        itertools.product(
            (1.0, 150.0, 450.0, 5000.0),
            (1 << 10, 40 << 10, 3 << 20, 30 << 20, 1 << 30),
            (1, 2),
            (1e-6, 1e-3),
            (False, True),
        )
    ),
)
def test_nothing_above_100_percent_goes_unflagged(gbps, size, threads, seconds, overlapping):
    verdict = judge(gbps, size, C, threads, seconds, overlapping)
    if verdict.fraction > 1:
        assert verdict.flag
        assert verdict.flag in verdict.describe()


def test_each_flag_says_why():
    assert "timer resolution" in judge(1.0, 1 << 20, C, 1, MIN_RELIABLE_S / 2).flag
    assert "overlapping" in judge(1.0, 1 << 20, C, 1, 1e-3, overlapping=True).flag
    # 3 MiB counted: L3; half of it (a read-and-written field counts twice) fits in L2
    assert "half of it (1.5 MiB) fits in L2" in judge(150.0, 3 << 20, C, 1, 1e-3).flag
    assert "above the measured L3 ceiling" in judge(150.0, 30 << 20, C, 2, 1e-3).flag
    assert "near the L1/L2 boundary" in judge(10.0, 64 << 10, C, 1, 1e-3).flag
