"""ti.profiler.memory_bandwidth: the DRAM all-cores roof of ti.profiler.machine_ceilings(),
read from the cached record, measured again on request; never asserts on how fast the
machine is."""

import dataclasses
import math

import pytest

import ti_notebook as ti
from ti_notebook.measure import ceilings, microbench

pytestmark = pytest.mark.cpu


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """The micro-benchmark replaced by a counter: DRAM's figure is the number of runs."""
    calls = []

    def measure():
        calls.append(1)
        record = ceilings.Ceilings.example()
        gbps = {**record.all_cores_gbps, "DRAM": float(len(calls))}
        return dataclasses.replace(record, all_cores_gbps=gbps, cpu_model=ceilings.cpu_model())

    monkeypatch.setattr(ceilings, "cache_file", lambda: tmp_path / "c" / ceilings.FILE_NAME)
    monkeypatch.setattr(ceilings, "_current", None)
    monkeypatch.setattr(microbench, "measure_ceilings", measure)
    return calls


def test_it_is_the_dram_roof(counted):
    gbps = ti.profiler.memory_bandwidth()
    assert gbps == ti.profiler.machine_ceilings().roofs()["DRAM"] == 1.0
    assert isinstance(gbps, float) and math.isfinite(gbps)


def test_the_second_call_returns_the_cached_figure(counted):
    first = ti.profiler.memory_bandwidth()
    assert ti.profiler.memory_bandwidth() == first == 1.0
    assert len(counted) == 1


def test_refresh_measures_again(counted):
    ti.profiler.memory_bandwidth()
    assert ti.profiler.memory_bandwidth(refresh=True) == 2.0
    assert ti.profiler.memory_bandwidth() == 2.0  # and keeps the new figure
    assert len(counted) == 2


def test_print_reads_the_ceilings_first(counted):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    x = ti.field(ti.f32, shape=1024)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    fill()
    fill()
    ti.profiler.print_kernel_profiler_info(file=__import__("io").StringIO())
    assert len(counted) == 1
