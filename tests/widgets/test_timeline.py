"""The profiler timeline (``ti_notebook.widgets.timeline``): one bar per (task, thread)
span, a row per thread, a colour per specialisation, deterministic SVG, and a clear
message for an empty profile."""

import pytest
from matplotlib.colors import to_rgb

import ti_notebook as ti
from ti_notebook.widgets import Timeline, timeline, timeline_figure
from ti_notebook.widgets.render import svg_text
from ti_notebook.widgets.timeline_plot import EMPTY

pytestmark = pytest.mark.cpu


@pytest.fixture
def profiled():
    """Two specialisations of one template kernel, launched under the profiler."""
    ti.init(arch=ti.cpu, kernel_profiler=True, cpu_max_num_threads=2)
    a = ti.field(ti.f32, shape=4096)
    b = ti.field(ti.f32, shape=2048)

    @ti.kernel
    def bump(f: ti.template()):
        for i in f:
            f[i] += 1.0

    bump(a)
    bump(b)
    return ti.profiler.launches()


def _by_gid(figure, prefix: str) -> dict:
    patches = figure.axes[0].patches
    return {p.get_gid(): p for p in patches if (p.get_gid() or "").startswith(prefix)}


def test_one_bar_per_task_thread_span(profiled):
    figure = timeline_figure()
    expected = {
        f"span-{n}-{task.index}-{span.thread}"
        for n, launch in enumerate(profiled)
        for task in launch.tasks
        for span in task.threads
    }
    assert expected and set(_by_gid(figure, "span-")) == expected
    # each span has its busy bar, no longer than the span
    busy = _by_gid(figure, "busy-")
    assert len(busy) == len(expected)
    for gid, rect in _by_gid(figure, "span-").items():
        assert busy["busy" + gid[4:]].get_width() <= rect.get_width() + 1e-12
    assert len(_by_gid(figure, "launch-")) == len(profiled) == 2


def test_rows_per_thread_after_compiles_and_launches(profiled):
    threads = sorted({s.thread for e in profiled for t in e.tasks for s in t.threads})
    labels = [t.get_text() for t in timeline_figure().axes[0].get_yticklabels()]
    assert labels == ["compile / load", "launches"] + [f"thread {t}" for t in threads]
    # a span sits on its thread's row
    figure = timeline_figure()
    for gid, rect in _by_gid(figure, "span-").items():
        thread = int(gid.rsplit("-", 1)[1])
        centre = rect.get_y() + rect.get_height() / 2
        assert labels[round(centre)] == f"thread {thread}"


def test_colours_differ_per_specialisation(profiled):
    assert [e.specialisation for e in profiled] == ["bump[f=a]", "bump[f=b]"]
    figure = timeline_figure()
    launches = _by_gid(figure, "launch-")
    assert to_rgb(launches["launch-0"].get_facecolor()) != to_rgb(
        launches["launch-1"].get_facecolor()
    )
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend[:2] == ["bump[f=a]", "bump[f=b]"]
    spans = _by_gid(figure, "span-")
    colour_of = {to_rgb(r.get_facecolor()) for g, r in spans.items() if g.startswith("span-0-")}
    other = {to_rgb(r.get_facecolor()) for g, r in spans.items() if g.startswith("span-1-")}
    assert len(colour_of) == len(other) == 1 and colour_of != other


def test_svg_is_deterministic(profiled):
    assert svg_text(timeline_figure()) == svg_text(timeline_figure())
    view = timeline()
    first, second = view._repr_mimebundle_(), view._repr_mimebundle_()
    assert first["image/svg+xml"] == second["image/svg+xml"]
    assert "application/vnd.jupyter.widget-view+json" in first
    assert first["text/plain"] == "<Timeline 2 launch(es), 2 span(s)>"


def test_details_and_zoom(profiled):
    view = timeline()
    assert [label for label, _ in view.tasks.options] == [
        "bump[f=a] #0 task 0 (struct_for)",
        "bump[f=b] #0 task 0 (struct_for)",
    ]
    view.tasks.index = 1
    details = view.details.value
    for text in ("bump[f=b]", "struct_for", "loop_config", "GB/s", "iterations", "2048"):
        assert text in details
    # the chosen task's bars get an edge, the others none
    edged = {g for g, r in _by_gid(view.figure(), "span-").items() if r.get_linewidth() > 0}
    assert edged and all(g.startswith("span-1-0-") for g in edged)
    low, high = view.window.max / 4, view.window.max / 2
    view.window.value = (low, high)
    assert view.figure().axes[0].get_xlim() == pytest.approx((low, high), rel=1e-3)


def test_an_empty_profile_says_so():
    # the default test session has the profiler off: nothing recorded
    figure = timeline_figure()
    assert [t.get_text() for t in figure.axes[0].texts] == [EMPTY]
    view = timeline()
    assert isinstance(view, Timeline)
    assert "kernel_profiler=True" in view.message.value
    assert view.tasks.options == () and view.details.value == ""
    assert EMPTY in view._repr_mimebundle_()["text/plain"]


def test_cleared_profile_is_empty_too(profiled):
    ti.profiler.clear_kernel_profiler_info()
    assert [t.get_text() for t in timeline_figure().axes[0].texts] == [EMPTY]
