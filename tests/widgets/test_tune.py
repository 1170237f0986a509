"""The loop_config tuner (``ti_notebook.widgets.tune``): each value runs its own compiled
loop_config, a value seen before is the code the kernel kept, one row per setting, the
sweep covers every combination interleaved and can be stopped, the controls and the
kernel keep the best setting until the kernel's configuration comes back, and the
static SVG is stable. Timings are only checked to be ordered (q1 <= median <= q3),
never compared."""

import dataclasses
from xml.etree import ElementTree

import ipywidgets
import pytest
from matplotlib.figure import Figure

import ti_notebook as ti
from ti_notebook.widgets import Measurement, Tuner, tune, tune_figure

pytestmark = pytest.mark.cpu


def _kernel(tag: str):
    """A fresh kernel (its own name, so no earlier test's cache entry is a hit)."""
    x = ti.field(ti.f32, shape=512)

    def body(k: ti.f32):
        for i in x:
            x[i] = x[i] * k + 1.0

    body.__name__ = body.__qualname__ = f"scale_{tag}"
    return ti.kernel(body)


def _configs(result: Measurement) -> list[dict]:
    return [dict(c) for c in result.loop_configs]


def test_each_value_runs_with_its_own_loop_config():
    kernel = _kernel("values")
    tuner = tune(kernel, 2.0, block_dim=[16, 64], repeat=2)
    tuner.controls["block_dim"].value = 64  # what moving the slider does
    assert [dict(r.options) for r in tuner.results] == [{"block_dim": 16}, {"block_dim": 64}]
    assert [_configs(r) for r in tuner.results] == [[{"block_dim": 16}], [{"block_dim": 64}]]
    assert dict(kernel.report.tasks[-1].loop_config) == {"block_dim": 64}
    for r in tuner.results:
        assert r.q1_s <= r.median_s <= r.q3_s and r.repeat == r.samples_n == 2
        assert r.first_call_s > 0 and r.compiled == "miss"
    assert "64" in tuner.table.value and tuner.picture.value.startswith("<svg")


def _plotted_points(svg: str) -> int:
    """The markers drawn under the plot's point lines (what the browser test counts)."""
    root = ElementTree.fromstring(svg)
    groups = [g for g in root.iter() if g.get("id", "").startswith("ti-tune-points")]
    return sum(1 for g in groups for e in g.iter() if e.tag.endswith("}use"))


def test_moving_a_slider_adds_a_point_to_the_live_plot():
    tuner = tune(_kernel("points"), 1.0, block_dim=[16, 32, 64], repeat=1)
    assert _plotted_points(tuner.picture.value) == 1
    tuner.controls["block_dim"].value = 32
    assert _plotted_points(tuner.picture.value) == 2
    tuner.controls["block_dim"].value = 16  # measured again: still one point per value
    assert _plotted_points(tuner.picture.value) == 2


def test_results_are_frozen_records():
    tuner = tune(_kernel("frozen"), 1.0, parallelize=[1], repeat=1)
    result = tuner.results[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.median_s = 0.0
    with pytest.raises(TypeError):
        result.options["parallelize"] = 2


def test_a_value_seen_before_runs_the_code_the_kernel_kept():
    ti.init(arch=ti.cpu, kernel_profiler=True)  # the profiler records compile spans
    kernel = _kernel("reselect")
    tuner = tune(kernel, 1.0, block_dim=[16, 32], repeat=1)
    tuner.controls["block_dim"].value = 32
    tuner.controls["block_dim"].value = 16
    # one row per setting: measuring 16 again replaced its row
    assert [(r.options["block_dim"], r.compiled) for r in tuner.results] == [
        (16, "already compiled"),
        (32, "miss"),
    ]
    spans = [s.name for s in ti.profiler.spans() if s.kernel == kernel.name]
    assert spans == ["compile", "compile"]  # going back neither compiled nor loaded


def test_a_configuration_compiled_in_an_earlier_session_is_a_cache_hit():
    tune(_kernel("earlier"), 1.0, block_dim=[16], repeat=1).close()
    ti.reset()  # forgets the code every kernel kept
    ti.init(arch=ti.cpu)
    tuner = tune(_kernel("earlier"), 1.0, block_dim=[16], repeat=1)  # the same source
    assert [r.compiled for r in tuner.results] == ["hit"]


def test_measuring_the_current_choice_again_keeps_the_compiled_code():
    tuner = tune(_kernel("again"), 1.0, block_dim=[8, 16], repeat=1)
    first = tuner.results[0]
    tuner.measure()
    assert [r.compiled for r in tuner.results] == ["already compiled"]
    assert tuner.results[0] is not first  # the row was replaced, not added


def test_sweep_measures_every_combination():
    kernel = _kernel("sweep")
    tuner = tune(kernel, 1.0, parallelize=[1, 2], serialize=True, repeat=1)
    assert isinstance(tuner.controls["serialize"], ipywidgets.ToggleButtons)
    assert isinstance(tuner.controls["parallelize"], ipywidgets.SelectionSlider)
    tuner.sweep()
    swept = tuner.results  # the first measurement, made when the tuner opened, replaced
    assert [(r.options["parallelize"], r.options["serialize"]) for r in swept] == [
        (1, False),
        (1, True),
        (2, False),
        (2, True),
    ]
    for r in swept:
        parallel = {"parallelize": r.options["parallelize"], "serialize": False}
        # a serialized loop becomes a serial task, which has no loop_config left
        assert _configs(r) == ([{}] if r.options["serialize"] else [parallel])
        assert r.samples_n == 1 and r.first_call_s is not None


def test_close_restores_the_kernel_and_apply_best_keeps_the_fastest():
    kernel = _kernel("restore").configure(parallelize=3)
    tuner = tune(kernel, 1.0, block_dim=[8, 16], repeat=1)
    assert kernel.configuration == {"parallelize": 3, "block_dim": 8}
    tuner.sweep()
    best = tuner.apply_best()
    assert best is min(tuner.results, key=lambda r: r.median_s)
    assert kernel.configuration == {"parallelize": 3, "block_dim": best.options["block_dim"]}
    tuner.close()
    assert kernel.configuration == {"parallelize": 3}
    assert dict(kernel.report.tasks[-1].loop_config) == {"parallelize": 3}


def test_bandwidth_and_threads_are_shown_without_the_profiler():
    assert not ti.profiler.is_enabled()
    tuner = tune(_kernel("gbps"), 1.0, block_dim=[32], repeat=2)
    result = tuner.results[0]
    assert tuner.bytes_per_call == result.bytes_per_call == 512 * 8  # read and write x
    assert result.gbps == pytest.approx(result.bytes_per_call / result.median_s / 1e9)
    assert f"{result.gbps:.3g} GB/s" in tuner.status.value
    assert f"{tuner.threads} CPU threads" in tuner.status.value
    assert "best: block_dim=32" in tuner.status.value


def test_static_fallback_is_deterministic_svg():
    tuner = tune(_kernel("svg"), 1.0, block_dim=[16, 32], repeat=1)
    first, second = tuner._repr_mimebundle_(), tuner._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in first
    assert first["image/svg+xml"] == second["image/svg+xml"]
    assert first["image/svg+xml"].lstrip().startswith("<?xml")
    assert "scale_svg" in first["text/plain"]
    figure = tune_figure(tuner)
    assert isinstance(figure, Figure)
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["16", "32"]


def test_bad_arguments_are_clear_errors():
    kernel = _kernel("bad")
    with pytest.raises(ValueError, match="give the values"):
        tune(kernel, 1.0)
    with pytest.raises(ValueError, match="twice"):
        tune(kernel, 1.0, block_dim=[8, 8])
    with pytest.raises(TypeError, match="ti.kernel"):
        Tuner(lambda: None, (), {"block_dim": [8]}, 1)
    with pytest.raises(ti.errors.TiValueError):
        tune(kernel, 1.0, block_dim=[0])
