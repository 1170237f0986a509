"""ti.profiler.rows() follows the timing protocol: each specialisation's first launch is
shown apart and never enters min/median/max/total; the median and IQR are over the warm
launches, whose count is stated. Fake events: no time is asserted."""

import io

import pytest

import ti_notebook as ti
from ti_notebook.measure import ceilings
from ti_notebook.runtime import profiler
from ti_notebook.runtime.profiler_events import LaunchEvent, TaskEvent, ThreadSpan

pytestmark = pytest.mark.cpu


def _launch(number: int, start: int, ns: int, nbytes: int = 1 << 20) -> LaunchEvent:
    span = ThreadSpan(0, start, start + ns, ns, 1024)
    task = TaskEvent(0, "range_for", {}, start, start + ns, 1024, nbytes, (span,), 2048)
    return LaunchEvent("k", "k", number, "cpu", start, start + ns, (task,))


@pytest.fixture
def recorded(monkeypatch):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    monkeypatch.setattr(ceilings, "_current", ceilings.Ceilings.example())
    # a cold first launch of 18.7 ms, then warm ones around 0.19 ms (one slow outlier)
    times = [18_700_000, 190_000, 185_000, 195_000, 192_000, 188_000, 900_000]
    start = 0
    for number, ns in enumerate(times):
        profiler.record_launch(_launch(number, start, ns))
        start += ns + 1000
    return times


def test_the_first_launch_is_apart_from_the_statistics(recorded):
    (row,) = ti.profiler.rows()
    warm = recorded[1:]
    assert row.launches == len(recorded) and row.first_call_ns == recorded[0]
    assert (row.min_ns, row.max_ns, row.total_ns) == (min(warm), max(warm), sum(warm))
    assert row.samples == len(warm) and row.summary.median == row.median_ns
    assert row.outliers == 1  # the 0.9 ms launch, marked by Tukey's rule, not dropped
    assert row.gbps == pytest.approx((1 << 20) / row.summary.median)
    assert row.flops_per_launch == 2048


def test_the_row_is_judged_against_its_level(recorded):
    (row,) = ti.profiler.rows()
    # 1 MiB on one thread: the example's 2 MiB L2 (100 GB/s one core); ~5.5 GB/s
    assert (row.ceiling_level, row.ceiling_gbps) == ("L2", 100.0)
    assert row.fraction_of_ceiling == pytest.approx(row.gbps / 100.0)
    assert row.verdict().startswith("in L2: ")


def test_the_printed_table_states_samples_first_call_and_level(recorded):
    out = io.StringIO()
    ti.profiler.print_kernel_profiler_info(file=out)
    text = out.getvalue()
    assert "18.700" in text  # the first call, in its own column
    assert "6 samples; 1 outlier; in L2: " in text
    assert "first call (1) is shown apart and not counted" in text


def test_a_single_launch_is_a_first_call_only():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    profiler.record_launch(_launch(0, 0, 5_000_000))
    (row,) = ti.profiler.rows()
    assert row.samples == 0 and row.summary is None and row.first_call_ns == 5_000_000


def test_a_real_kernel_counts_its_first_launch_apart():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    x = ti.field(ti.f32, shape=1 << 12)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

    for k in range(4):
        fill(float(k))
    (row,) = ti.profiler.rows("fill")
    first, *warm = ti.profiler.launches()
    assert row.first_call_ns == first.duration_ns and row.samples == 3
    assert row.max_ns == max(e.duration_ns for e in warm)
