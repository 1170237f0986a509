"""The roofline: coordinates from the compiler's counts computed by hand (FLOPs per byte)
and from given times (GFLOP/s), so no timing is asserted; roofs from the ceilings (a
made-up record here) or a GPU's published figures; the widget's SVG and mime bundle."""

import dataclasses

import pytest

import ti_notebook as ti
from ti_notebook.measure import ceilings, microbench
from ti_notebook.measure.roofline_data import from_counts
from ti_notebook.widgets import roofline, roofline_figure

pytestmark = pytest.mark.cpu

# all cores: L1 400, L2 200, L3 100, DRAM 30 GB/s; f32 peak 160 GFLOP/s; caches of two
# cores: L1 96 KiB, L2 4 MiB, L3 32 MiB
EXAMPLE = ceilings.Ceilings.example()


@pytest.fixture(autouse=True)
def example_machine(monkeypatch):
    monkeypatch.setattr(microbench, "machine_ceilings", lambda refresh=False: EXAMPLE)
    ti.init(arch=ti.cpu)


def _saxpy(n):
    x, y = ti.field(ti.f32, shape=n), ti.field(ti.f32, shape=n)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    return saxpy


def _stencil(n):
    a, b = ti.field(ti.f32, shape=(n, n)), ti.field(ti.f32, shape=(n, n))

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]

    return stencil


def _nbody(n):
    pos, force = ti.Vector.field(2, ti.f32, shape=n), ti.Vector.field(2, ti.f32, shape=n)

    @ti.kernel
    def nbody():
        for i in range(n):
            f = ti.Vector([0.0, 0.0])
            for j in range(n):
                d = pos[j] - pos[i]
                r2 = d.dot(d) + 0.01
                f += d / (r2 * ti.sqrt(r2))
            force[i] = f

    return nbody


def test_saxpy_two_flops_per_twelve_bytes():
    n = 1 << 20
    (p,) = ti.profiler.roofline_data(_saxpy(n), 2.0, seconds=1e-3).points
    assert (p.flops, p.bytes) == (2 * n, 12 * n)  # a * x + y; x read, y read and written
    assert p.x == pytest.approx(1 / 6)
    assert p.y == pytest.approx(2 * n / 1e-3 / 1e9)
    # 12 MiB fits the 32 MiB L3: ridge 160 / 100 = 1.6 FLOP/B, far right of 1/6
    assert (p.level, p.bound, p.label) == ("L3", "memory-bound", "saxpy")


def test_a_five_point_stencil_five_flops_per_eight_bytes():
    n = 512
    (p,) = ti.profiler.roofline_data(_stencil(n), seconds=2e-3).points
    cells = (n - 2) ** 2
    # 3 adds, 1 sub, 1 mul per cell; a read once (its neighbours are other cells'), b written
    assert (p.flops, p.bytes) == (5 * cells, 8 * cells)
    assert p.x == pytest.approx(5 / 8)
    assert p.y == pytest.approx(5 * cells / 2e-3 / 1e9)
    assert (p.level, p.bound) == ("L2", "memory-bound")  # 2 MiB; L2 ridge 0.8 FLOP/B


def test_n_body_is_compute_bound():
    n = 256
    (p,) = ti.profiler.roofline_data(_nbody(n), seconds=5e-4).points
    # per pair: d (2 sub), dot (2 mul, 1 add), + 0.01, r2 * sqrt (1 mul, 1 sqrt), d / . (2
    # div), f += (2 add): 12 FLOPs; pos read in the j loop (8 B per j), force written (8 B)
    assert (p.flops, p.bytes) == (12 * n * n, n * (8 * n + 8))
    assert p.x == pytest.approx(12 * n / (8 * n + 8))
    assert p.y == pytest.approx(12 * n * n / 5e-4 / 1e9)
    assert (p.level, p.bound) == ("L2", "compute-bound")  # 1.49 FLOP/B > ridge 0.8


def test_the_roofs_are_the_measured_ceilings_made_monotone():
    data = ti.profiler.roofline_data(_saxpy(64), 2.0, seconds=1e-6)
    assert {r.name: r.value for r in data.roofs} == {
        "L1": 400.0, "L2": 200.0, "L3": 100.0, "DRAM": 30.0, "f32 peak": 160.0, "f64 peak": 80.0
    }  # fmt: skip
    assert data.source == "measured" and data.ridge("L2") == pytest.approx(0.8)


def test_a_cuda_device_uses_its_published_figures():
    data = ti.profiler.roofline_data(_saxpy(1 << 20), 2.0, seconds=1e-5, device="H100 PCIe")
    assert data.source == "published" and data.machine == "H100 PCIe"
    assert {r.name: r.value for r in data.roofs} == {
        "HBM2e": 2000.0, "f32 peak": 51_000.0, "f64 peak": 26_000.0
    }  # fmt: skip
    (p,) = data.points
    assert (p.level, p.bound) == ("HBM2e", "memory-bound")
    l4 = ti.profiler.roofline_data(_saxpy(64), 2.0, seconds=1e-6, device="sm_89")
    assert [r.name for r in l4.roofs] == ["GDDR6", "f32 peak"]  # no published FP64 figure


def test_profiler_rows_become_points_and_a_copy_is_left_out():
    row = type("Row", (), {})()
    fields = dict(specialisation="k[a=x]", flops_per_launch=3e6, bytes_per_launch=1.5e6,
                  task_median_ns=1e6, median_ns=2e6, threads=2)  # fmt: skip
    row.__dict__.update(fields)
    copy = type("Row", (), {})()
    copy.__dict__.update({**fields, "specialisation": "copy", "flops_per_launch": 0})
    data = ti.profiler.roofline_data([row, copy])
    (p,) = data.points
    assert (p.label, p.x, p.y, p.level) == ("k[a=x]", 2.0, 3.0, "L2")
    assert data.left_out == (("copy", "no FLOPs counted"),)


def test_noisy_ceilings_still_give_an_ordered_roof():
    noisy = dataclasses.replace(EXAMPLE, all_cores_gbps={**EXAMPLE.all_cores_gbps, "L2": 50.0})
    data = from_counts([("k", 1e6, 1e6, 1e-3, "f32")], noisy)
    memory = [r.value for r in data.roofs if r.kind == "memory"]
    assert memory == sorted(memory, reverse=True) == [400.0, 100.0, 100.0, 30.0]


def test_the_widget_draws_every_point_and_roof_deterministically():
    view = roofline(_saxpy(1 << 16), 2.0, seconds=1e-5)
    svg = view.svg()
    assert svg == view.svg()
    for name in ("point-saxpy", "roof-L1", "roof-DRAM", "roof-f32_peak", "roof-f64_peak"):
        assert f'id="{name}' in svg, name
    assert "memory-bound" in svg
    bundle = view._repr_mimebundle_()
    assert bundle["image/svg+xml"] == svg and "saxpy: 0.167 FLOP/B" in bundle["text/plain"]
    assert bytes(view.image.value).startswith(b"\x89PNG")
    fig = roofline_figure(_saxpy(64), 2.0, seconds=1e-6)
    assert fig.patch.get_alpha() == 0.0  # transparent: follows the notebook's theme
