"""The one timing protocol: warm-up apart, interleaved rounds, median and IQR."""

from __future__ import annotations

import pytest

import ti_notebook as ti
from ti_notebook.measure import protocol
from ti_notebook.measure.stats import Summary, quartiles

pytestmark = pytest.mark.unit


class FakeClock:
    """A clock that advances only when a candidate 'runs' (by the cost it is given)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(protocol, "clock", fake)
    return fake


def test_the_first_call_is_apart_and_never_in_the_statistics(clock):
    costs = iter([5.0] + [1e-3] * 100)  # the first call compiles: 5 s

    def call():
        clock.spend(next(costs))

    timing = protocol.measure([protocol.Candidate("k", call)], rounds=5, sync=lambda: None)[0]
    assert timing.first_call_s == 5.0
    assert timing.summary.n == 5
    assert max(timing.summary.samples) == pytest.approx(1e-3)
    assert "first call 5e+03 ms, not counted" in timing.describe()


def test_warmup_calls_are_untimed(clock):
    calls = []
    protocol.measure(
        [protocol.Candidate("k", lambda: calls.append(1) or clock.spend(1.0))],
        rounds=3,
        warmup=4,
        sync=lambda: None,
    )
    # first call + 4 warm-up + 1 probe + 3 samples of one call each (1 s > min sample)
    assert len(calls) == 1 + 4 + 1 + 3


def test_rounds_interleave_candidates_in_rotated_order(clock):
    order = []

    def candidate(label):
        return protocol.Candidate(label, lambda: order.append(label) or clock.spend(1.0))

    protocol.measure(
        [candidate("a"), candidate("b"), candidate("c")], rounds=3, warmup=0, sync=lambda: None
    )
    sampled = order[3 * 2 :]  # each candidate's first call and probe come first
    assert sampled == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]


def test_short_calls_are_repeated_within_a_sample(clock):
    timing = protocol.measure(
        [protocol.Candidate("tiny", lambda: clock.spend(1e-6))],
        rounds=2,
        sync=lambda: None,
        min_sample_s=1e-4,
    )[0]
    assert timing.calls_per_sample == 100
    assert timing.median_s == pytest.approx(1e-6)


def test_prepare_runs_untimed_before_each_sample(clock):
    prepared = []

    def prepare():
        prepared.append(1)
        clock.spend(10.0)  # e.g. applying a configuration: not part of the figure

    timing = protocol.measure(
        [protocol.Candidate("k", lambda: clock.spend(1.0), prepare=prepare)],
        rounds=4,
        sync=lambda: None,
    )[0]
    assert len(prepared) == 1 + 4
    assert timing.median_s == pytest.approx(1.0)


def test_stopping_keeps_the_samples_taken(clock):
    taken = []

    def progress(done, total, label):
        taken.append((done, total, label))

    timings = protocol.measure(
        [
            protocol.Candidate("a", lambda: clock.spend(1.0)),
            protocol.Candidate("b", lambda: clock.spend(1.0)),
        ],
        rounds=5,
        sync=lambda: None,
        progress=progress,
        should_stop=lambda: len(taken) >= 3,
    )
    # round 0: a, b; round 1 starts with b (rotated), then the stop
    assert [t.summary.n for t in timings] == [1, 2]
    assert taken[-1] == (3, 10, "b")


def test_gbps_comes_from_counted_bytes_and_the_median(clock):
    timing = protocol.measure(
        [protocol.Candidate("k", lambda: clock.spend(2e-3), bytes_per_call=4_000_000)],
        rounds=3,
        sync=lambda: None,
    )[0]
    assert timing.gbps == pytest.approx(2.0)


def test_bad_rounds_are_refused():
    with pytest.raises(ValueError, match="rounds"):
        protocol.measure([], rounds=0)


def test_summary_marks_outliers_and_uses_the_interquartile_range():
    s = Summary.of([10.0, 11.0, 10.5, 10.2, 100.0, 10.8, 10.4])
    assert s.median == 10.5
    assert s.outliers == (4,)
    assert s.q1 == pytest.approx(10.3) and s.q3 == pytest.approx(10.9)
    assert s.high == 11.0 and s.low == 10.0  # whiskers stop at the last non-outlier
    assert "1 outlier" in s.describe()


def test_quartiles_of_one_sample_and_of_none():
    assert quartiles([3.0]) == (3.0, 3.0, 3.0)
    with pytest.raises(ValueError):
        quartiles([])


@pytest.mark.cpu
def test_a_real_kernel_is_timed_by_the_public_api():
    x = ti.field(ti.f32, shape=4096)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

    work = ti.profiler.counted_work(fill, 1.0)
    timing = ti.profiler.time_call(lambda: fill(1.0), rounds=3, bytes_per_call=work.bytes)
    assert timing.summary.n == 3 and timing.bytes_per_call == 4 * 4096
    assert timing.gbps is not None and timing.gbps > 0
    assert x[7] == 1.0
