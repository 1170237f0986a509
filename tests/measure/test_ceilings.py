"""ti.profiler.machine_ceilings(): measured by ti_notebook kernels, ordered, cached per CPU
model in a private file that is trusted only when it is this user's and not writable by
others. Timing figures are never asserted beyond being positive."""

import dataclasses
import json
import os

import pytest

import ti_notebook as ti
from ti_notebook.measure import ceilings, microbench

pytestmark = pytest.mark.cpu


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """The cache file in a temporary folder and a counting stand-in for the benchmark."""
    path = tmp_path / "ti" / ceilings.FILE_NAME
    calls = []

    def measure():
        calls.append(1)
        return dataclasses.replace(ceilings.Ceilings.example(), cpu_model=ceilings.cpu_model())

    monkeypatch.setattr(ceilings, "cache_file", lambda: path)
    monkeypatch.setattr(ceilings, "_current", None)
    monkeypatch.setattr(microbench, "measure_ceilings", measure)
    return path, calls


def test_a_second_call_reads_the_file_without_measuring(cache, monkeypatch):
    path, calls = cache
    first = ti.profiler.machine_ceilings()
    assert len(calls) == 1 and path.exists()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"
    monkeypatch.setattr(ceilings, "_current", None)  # a new process: only the file is left
    again = ti.profiler.machine_ceilings()
    assert len(calls) == 1 and again == first
    stored = json.loads(path.read_text())
    assert list(stored) == [ceilings.cpu_model()]


def test_refresh_measures_again(cache):
    _, calls = cache
    ti.profiler.machine_ceilings()
    ti.profiler.machine_ceilings(refresh=True)
    assert len(calls) == 2


def test_a_world_writable_file_is_not_trusted(cache, monkeypatch):
    path, calls = cache
    ti.profiler.machine_ceilings()
    os.chmod(path, 0o666)
    monkeypatch.setattr(ceilings, "_current", None)
    with pytest.warns(RuntimeWarning, match="writable by others"):
        ti.profiler.machine_ceilings()
    assert len(calls) == 2  # measured instead of believed
    assert oct(path.stat().st_mode & 0o777) == "0o600"  # and replaced by a private file


def test_a_file_in_a_shared_folder_is_not_read(cache, monkeypatch):
    path, calls = cache
    ti.profiler.machine_ceilings()
    os.chmod(path.parent, 0o777)
    monkeypatch.setattr(ceilings, "_current", None)
    with pytest.warns(RuntimeWarning, match="writable by other users"):
        ti.profiler.machine_ceilings()
    assert len(calls) == 2


def test_roofs_are_monotone_even_when_a_measurement_is_not():
    record = ceilings.Ceilings.example()
    noisy = {"L1": 90.0, "L2": 120.0, "L3": 10.0, "DRAM": 12.0}
    record = dataclasses.replace(record, all_cores_gbps=noisy)
    assert record.measured_gbps("L1") == 90.0  # kept as measured
    assert record.roofs() == {"L1": 120.0, "L2": 120.0, "L3": 12.0, "DRAM": 12.0}


def test_the_record_round_trips_through_json():
    record = ceilings.Ceilings.example()
    assert ceilings.Ceilings.from_json(json.loads(json.dumps(record.to_json()))) == record


def test_cache_geometry_reads_sysfs_like_folders(tmp_path):
    for n, (level, kind, size, shared) in enumerate(
        [(1, "Data", "48K", "0"), (1, "Instruction", "32K", "0"), (2, "Unified", "2048K", "0"),
         (3, "Unified", "32768K", "0-7")]
    ):  # fmt: skip
        folder = tmp_path / f"index{n}"
        folder.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size),
                            ("shared_cpu_list", shared)):  # fmt: skip
            (folder / name).write_text(f"{value}\n")
    caches, source = ceilings.cache_geometry(tmp_path)
    assert source == "sysfs"
    assert caches == {"L1": (48 << 10, 1), "L2": (2 << 20, 1), "L3": (32 << 20, 8)}


def test_the_real_benchmark_gives_ordered_positive_figures(tmp_path, monkeypatch):
    """Runs the micro-benchmark itself (about a second): every figure positive, and
    whatever the noise, the roofs come out ordered."""
    ti.init(arch=ti.cpu)
    record = microbench.measure_ceilings(runs=1)
    assert set(record.one_core_gbps) == set(ceilings.LEVELS)
    assert all(v > 0 for v in [*record.one_core_gbps.values(), *record.all_cores_gbps.values()])
    assert record.peak_gflops("f32") > 0 and record.peak_gflops("f64", all_cores=False) > 0
    roofs = list(record.roofs().values())
    assert roofs == sorted(roofs, reverse=True)
    assert record.cpu_model == ceilings.cpu_model() and record.threads >= 1
