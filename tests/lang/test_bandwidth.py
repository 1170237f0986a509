"""ti.profiler.memory_bandwidth: measured once per process, cached, measured again on
request; never asserts on how fast the machine is."""

import math

import pytest

import ti_notebook as ti
from ti_notebook.lang import bandwidth

pytestmark = pytest.mark.cpu


def test_it_is_a_positive_finite_figure_in_gb_per_s():
    gbps = ti.profiler.memory_bandwidth()
    assert isinstance(gbps, float)
    assert gbps > 0 and math.isfinite(gbps)


@pytest.fixture
def counted(monkeypatch):
    """``_measure`` replaced by a counter: the figure is the number of measurements."""
    calls = []

    def measure():
        calls.append(1)
        return float(len(calls))

    monkeypatch.setattr(bandwidth, "_measured", None)
    monkeypatch.setattr(bandwidth, "_measure", measure)
    return calls


def test_the_second_call_returns_the_cached_figure(counted):
    first = ti.profiler.memory_bandwidth()
    assert ti.profiler.memory_bandwidth() == first == 1.0
    assert len(counted) == 1


def test_refresh_measures_again(counted):
    ti.profiler.memory_bandwidth()
    assert ti.profiler.memory_bandwidth(refresh=True) == 2.0
    assert ti.profiler.memory_bandwidth() == 2.0  # and keeps the new figure
    assert len(counted) == 2


@pytest.mark.cpu_only(reason="the session it starts is ti.init()'s default, TI_ARCH's arch")
def test_it_starts_a_session_when_none_runs():
    ti.reset()
    assert not ti.is_initialized()
    assert bandwidth._measure(elements=1 << 16, runs=2) > 0
    assert ti.is_initialized() and ti.current_arch() == "cpu"


def test_the_measuring_copies_stay_out_of_the_users_profile():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    bandwidth._measure(elements=1 << 16, runs=2)
    assert ti.profiler.query_kernel_profiler_info("_stream_copy").counter == 0
    assert ti.profiler.get_kernel_profiler_total_time() == 0.0

    @ti.kernel
    def nothing():
        pass

    nothing()  # the profiler is still on for the user's kernels
    assert ti.profiler.query_kernel_profiler_info("nothing").counter == 1


def test_it_copies_with_no_field_left_behind():
    trees = list(ti.lang.field._live_trees)
    bandwidth._measure(elements=1 << 16, runs=1)
    assert list(ti.lang.field._live_trees) == trees  # no SNode tree was made
