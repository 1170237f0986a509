"""The profiler timeline (``ti_notebook.widgets.timeline``): one bar per (task, thread)
span, a lane per thread, a colour per specialisation, deterministic SVG, a clear message
for an empty profile, and a window that opens on the last launch and zooms and pans in
steps proportional to its width."""

import time

import pytest
from matplotlib.colors import to_rgb

import ti_notebook as ti
from ti_notebook.errors import TiIndexError
from ti_notebook.runtime.profiler_events import LaunchEvent, TaskEvent, ThreadSpan
from ti_notebook.widgets import Timeline, timeline, timeline_figure
from ti_notebook.widgets.render import svg_text
from ti_notebook.widgets.timeline_plot import EMPTY, MIN_BAR_PX, SESSION
from ti_notebook.widgets.timeline_window import MARGIN, PAN_STEP, ZOOM_STEP

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


@pytest.fixture
def spread():
    """Five launches of a tiny kernel, 20 ms apart: a session far longer than a launch."""
    ti.init(arch=ti.cpu, kernel_profiler=True, cpu_max_num_threads=2)
    x = ti.field(ti.f32, shape=256)

    @ti.kernel
    def tick():
        for i in x:
            x[i] += 1.0

    for _ in range(5):
        tick()
        time.sleep(0.02)
    return ti.profiler.launches()


def _launch(number: int, start: int, tasks: list[tuple[int, int, list]]) -> LaunchEvent:
    """A made-up launch of ``f``: ``tasks`` are (start, end, [(thread, start, end, busy)])."""
    events = tuple(
        TaskEvent(k, "range_for", {}, s, e, 10, 40, tuple(ThreadSpan(*t, 10) for t in threads))
        for k, (s, e, threads) in enumerate(tasks)
    )
    end = max(e for _, e, _ in tasks)
    return LaunchEvent("f", "f", number, "cpu", start, end, events)


# 1 ms of session: a 1 µs launch whose second task lasts 10 ns, and a long one
MADE_UP = [
    _launch(0, 0, [(0, 1_000, [(0, 0, 1_000, 800)]), (1_000, 1_010, [(1, 1_000, 1_010, 5)])]),
    _launch(1, 900_000, [(900_000, 1_000_000, [(0, 900_000, 1_000_000, 90_000)])]),
]


def _by_gid(figure, prefix: str) -> dict:
    artists = figure.axes[0].patches + figure.axes[0].lines
    return {p.get_gid(): p for p in artists if (p.get_gid() or "").startswith(prefix)}


def test_one_bar_per_task_thread_span(profiled):
    figure = timeline_figure(window=SESSION)
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


def test_lanes_are_labelled_and_none_is_empty(profiled):
    figure = timeline_figure(window=SESSION)
    threads = sorted({s.thread for e in profiled for t in e.tasks for s in t.threads})
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    names = ["thread 0 (launching)" if t == 0 else f"thread {t}" for t in threads]
    assert labels == ["compile / load", "launches", *names]
    # a span sits on its thread's lane
    for gid, rect in _by_gid(figure, "span-").items():
        thread = int(gid.rsplit("-", 1)[1])
        centre = rect.get_y() + rect.get_height() / 2
        assert labels[round(centre)] == names[threads.index(thread)]
    # the default view (the last launch) draws only lanes with a bar in them
    figure = timeline_figure()
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    filled = {round(r.get_y() + r.get_height() / 2) for r in _by_gid(figure, "span-").values()}
    assert labels[0] == "launches" and filled == set(range(1, len(labels)))


def test_colours_differ_per_specialisation(profiled):
    assert [e.specialisation for e in profiled] == ["bump[f=a]", "bump[f=b]"]
    figure = timeline_figure(window=SESSION)
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


def test_the_default_window_is_the_last_launch(spread):
    view = timeline()
    last, window = spread[-1], view.window
    assert window.contains(last.start_ns, last.end_ns)
    session = spread[-1].end_ns - spread[0].start_ns
    assert session > 80e6 and window.width_ns < session / 100
    assert window.unit == "µs" and window.label == f"µs from the start of tick #{last.launch}"
    assert window.start < 0 < window.end  # counted from the launch's start, with margin
    axis = view.figure().axes[0]
    assert axis.get_xlim() == pytest.approx((window.start, window.end))
    assert axis.get_xlabel() == window.label
    # the script twin opens on the same window, and on another launch when asked
    twin = timeline_figure().axes[0]
    assert twin.get_xlim() == pytest.approx(axis.get_xlim())
    assert twin.get_xlabel() == axis.get_xlabel()
    assert timeline_figure(launch=1).axes[0].get_xlabel() == "µs from the start of tick #1"


def test_launch_n_and_the_whole_session(spread):
    view = timeline(launch=1)
    assert view.window.contains(spread[1].start_ns, spread[1].end_ns)
    assert view.launch.value == 1 and view.tasks.value == (1, None)
    assert "tick" in view.details.value and "tasks" in view.details.value
    view.show_session()
    assert view.window.contains(spread[0].start_ns, spread[-1].end_ns)
    assert view.window.unit == "ms" and view.window.label == "ms from the first event"
    with pytest.raises(TiIndexError, match="5 launch"):
        timeline(launch=5)


def test_choosing_a_task_zooms_to_it():
    view = timeline(MADE_UP, launch=0)
    assert view.launch.value == 0
    view.tasks.value = (0, 1)  # the 10 ns task
    task = MADE_UP[0].tasks[1]
    assert view.window.contains(task.start_ns, task.end_ns)
    # its length plus a margin each side, or the narrowest window when that is less
    assert view.window.width_ns == pytest.approx(max(1_000, task.duration_ns * (1 + 2 * MARGIN)))
    assert view.window.centre_ns == pytest.approx((task.start_ns + task.end_ns) / 2)
    assert "range_for" in view.details.value and "10 ns" not in view.details.value
    # its bars are outlined; choosing a launch zooms to it
    edged = {g for g, r in _by_gid(view.figure(), "span-").items() if r.get_linewidth() > 0}
    assert edged == {"span-0-1-1"}
    view.launch.value = 1
    assert view.window.width_ns == pytest.approx(100_000 * (1 + 2 * MARGIN))
    assert view.window.label == "µs from the start of f #1"


def test_zoom_is_logarithmic_and_pan_follows_the_window():
    view = timeline(MADE_UP, launch=1)
    width = view.window.width_ns
    view.zoom(1)
    assert view.window.width_ns == pytest.approx(width / ZOOM_STEP)
    view.zoom(-2)
    assert view.window.width_ns == pytest.approx(width * ZOOM_STEP)
    # the slider is the width on a log scale: one step multiplies it
    before = view.window.width_ns
    view.width.value = view.width.value * view.width.base**view.width.step
    assert view.window.width_ns / before == pytest.approx(10**view.width.step)
    # a pan step is a share of the current window, not of the session
    for _ in range(2):
        start, step = view.window.start_ns, view.pan_step_ns
        assert step == pytest.approx(PAN_STEP * view.window.width_ns)
        view.pan(-1)
        assert view.window.start_ns == pytest.approx(start - step)
        view.zoom(1)
    # the window stays on the session and between 1 µs and the whole of it
    view.zoom(-20)
    assert view.window.contains(0, 1_000_000) and view.window.width_ns <= 1.2e6 + 1
    view.zoom(20)
    assert view.window.width_ns == pytest.approx(1_000)


def test_units_follow_the_window_width():
    figure = timeline_figure(MADE_UP, window=(0.0, 0.5))
    assert figure.axes[0].get_xlabel() == "µs from the first event"
    assert figure.axes[0].get_xlim() == pytest.approx((0.0, 500.0))
    later = timeline_figure(MADE_UP, window=(0.25, 0.5)).axes[0]
    assert later.get_xlabel() == "µs from the window's start (0.25 ms after the first event)"
    assert timeline_figure(MADE_UP, window=(0.0, 5.0)).axes[0].get_xlabel().startswith("ms ")


def test_tiny_bars_get_the_minimum_width():
    figure = timeline_figure(MADE_UP, window=SESSION)
    axis = figure.axes[0]
    axes_px = axis.get_position().width * figure.get_figwidth() * 96
    low, high = axis.get_xlim()
    spans = _by_gid(figure, "span-")
    pixels = {g: r.get_width() / (high - low) * axes_px for g, r in spans.items()}
    assert pixels["span-0-1-1"] == pytest.approx(MIN_BAR_PX)  # 10 ns of 1.2 ms
    # the long task keeps its true width: 100 µs of 1.2 ms
    assert pixels["span-1-0-0"] == pytest.approx(axes_px / 12) and axes_px / 12 > 20
    # one triangle over each widened bar (the 1 µs task is under 2 px too), none over
    # the long one
    marks = _by_gid(figure, "tiny-")

    def centres(*gids):
        return [spans[g].get_x() + spans[g].get_width() / 2 for g in gids]

    assert list(marks["tiny-thread-1"].get_xdata()) == pytest.approx(centres("span-0-1-1"))
    assert list(marks["tiny-thread-0"].get_xdata()) == pytest.approx(centres("span-0-0-0"))
    # zoomed in, the short task is wide and unmarked
    figure = timeline_figure(MADE_UP, launch=0)
    assert "tiny-thread-1" not in _by_gid(figure, "tiny-")


def test_an_empty_profile_says_so():
    # the default test session has the profiler off: nothing recorded
    figure = timeline_figure()
    assert [t.get_text() for t in figure.axes[0].texts] == [EMPTY]
    view = timeline()
    assert isinstance(view, Timeline) and view.window is None
    assert "kernel_profiler=True" in view.message.value
    assert view.tasks.options == () and view.details.value == ""
    view.zoom(1), view.pan(1), view.show_session()  # no window: nothing to move
    assert EMPTY in view._repr_mimebundle_()["text/plain"]


def test_cleared_profile_is_empty_too(profiled):
    ti.profiler.clear_kernel_profiler_info()
    assert [t.get_text() for t in timeline_figure().axes[0].texts] == [EMPTY]


def test_a_crowded_window_draws_collections():
    # 200 launches of 2 tasks on 2 threads: 200 + 200 * 2 * 2 * 2 bars in the session
    crowd = [
        _launch(
            n,
            n * 10_000,
            [
                (
                    n * 10_000,
                    n * 10_000 + 1_000,
                    [(t, n * 10_000, n * 10_000 + 900, 500) for t in (0, 1)],
                )
            ]
            * 2,
        )
        for n in range(200)
    ]
    figure = timeline_figure(crowd, window=SESSION)
    gids = {c.get_gid() for c in figure.axes[0].collections}
    assert {"span-bars", "busy-bars", "launch-bars"} <= gids
    assert not _by_gid(figure, "span-")  # no separate patches
    assert len(_by_gid(timeline_figure(crowd), "span-")) == 4  # one launch: separate bars
