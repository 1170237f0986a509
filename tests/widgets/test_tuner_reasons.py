"""Why a slow loop setting is slow (``widgets/tuner_reasons.py``), on hand-made report
tasks: the rules read ``kind``, ``range`` and ``loop_config`` and the thread count."""

import pytest

from ti_notebook.compiler.task_report import Task
from ti_notebook.widgets.tuner_reasons import MIN_CHUNK, slow_reasons

pytestmark = pytest.mark.unit


def _loop(n: int, **config) -> dict:
    return {"kind": "range_for", "range": (0, n), "loop_config": config}


def _tags(tasks, threads=8, options=None) -> list[str]:
    return [r.tag for r in slow_reasons(tasks, threads, options)]


def test_one_thread_from_parallelize_1():
    reasons = slow_reasons([_loop(1 << 16, parallelize=1)], threads=8)
    assert [r.tag for r in reasons] == ["one thread"]
    assert reasons[0].text.startswith("parallelize=1: one thread")


def test_a_one_thread_pool_is_one_thread_too():
    assert _tags([_loop(1 << 16)], threads=1) == ["one thread"]


def test_a_serialised_loop():
    serial = {"kind": "serial", "range": None, "loop_config": {}}
    assert _tags([serial], options={"serialize": True}) == ["serialised"]
    assert _tags([serial], options={"serialize": False}) == []  # plain serial statements


def test_tiny_chunks_when_block_dim_is_small_against_the_range():
    # the stencil case: 2 threads, block_dim=16 over a 512x512 grid
    reasons = slow_reasons([_loop(512 * 512, parallelize=2, block_dim=16)], threads=16)
    assert [r.tag for r in reasons] == ["tiny chunks"]
    assert "16384 chunks of 16 iterations" in reasons[0].text
    assert _tags([_loop(1 << 16, block_dim=MIN_CHUNK)]) == []  # large enough


def test_fewer_chunks_than_threads():
    reasons = slow_reasons([_loop(1000, block_dim=512)], threads=8)
    assert [r.tag for r in reasons] == ["idle threads"]
    assert "2 chunks for 8 threads; 6 threads get no work" in reasons[0].text
    # a range smaller than the thread count, block_dim unset
    assert _tags([_loop(3)], threads=8) == ["idle threads"]


def test_a_good_setting_has_no_reason_and_an_unknown_range_is_not_guessed():
    assert _tags([_loop(1 << 20, block_dim=256)]) == []
    sparse = {"kind": "struct_for", "range": None, "loop_config": {"block_dim": 4}}
    assert _tags([sparse]) == []


def test_causes_are_named_once_across_tasks_and_report_tasks_work_too():
    tasks = [
        Task("range_for", {"parallelize": 1, "block_dim": 8}, range=(0, 4096)),
        Task("struct_for", {"parallelize": 1, "block_dim": 8}, range=(0, 4096)),
        Task("struct_for", {"parallelize": 4, "block_dim": 8}, range=(0, 4096)),
        Task("range_for", {"block_dim": 4}, range=(0, 4096)),
    ]
    assert _tags(tasks) == ["one thread", "tiny chunks"]


def test_one_thread_runs_the_loop_unchunked_so_block_dim_is_not_blamed():
    assert _tags([_loop(1 << 16, parallelize=1, block_dim=4)]) == ["one thread"]


def test_iterations_counted_for_the_arguments_win_over_an_unknown_range():
    ndrange = {"kind": "range_for", "range": (0, None), "loop_config": {"block_dim": 8}}
    assert _tags([ndrange]) == []  # nothing known: nothing said
    assert _tags([{**ndrange, "iterations": 62 * 62}]) == ["tiny chunks"]


def test_many_chunks_when_their_claims_add_up_to_a_share_of_the_time():
    # 4M iterations in chunks of 1,024: 4,096 claims of ~0.2 us = 0.8 ms of a 2.4 ms call
    loop = _loop(1 << 22, block_dim=1024)
    tags = [r.tag for r in slow_reasons([loop], threads=2, seconds=2.4e-3)]
    assert tags == ["many chunks"]
    # the same chunks in a call 100x longer: the claims are noise, no cause is given
    assert slow_reasons([loop], threads=2, seconds=0.24) == []
    # one thread runs the loop inline: chunks cost nothing
    assert [r.tag for r in slow_reasons([loop], threads=1, seconds=2.4e-3)] == ["one thread"]


def test_a_cause_the_best_setting_has_as_much_of_explains_nothing():
    from ti_notebook.widgets.tuner_reasons import reasons_against_best

    small, larger = _loop(1 << 22, block_dim=1024), _loop(1 << 22, block_dim=65536)
    # many chunks explain a slow 1024 against a best 65536 ...
    tags = [r.tag for r in reasons_against_best([small], 2, {}, 2.4e-3, [larger], {})]
    assert tags == ["many chunks"]
    # ... but not a slow 65536 against a best 1024, which hands out more chunks
    assert reasons_against_best([larger], 2, {}, 2.4e-3, [small], {}) == []
    # one thread explains nothing when the best setting ran on one thread too
    one = _loop(1 << 22, parallelize=1)
    assert reasons_against_best([one], 2, {}, 1e-2, [_loop(1 << 22, parallelize=1)], {}) == []
    assert [r.tag for r in reasons_against_best([one], 2, {}, 1e-2, [larger], {})] == ["one thread"]
