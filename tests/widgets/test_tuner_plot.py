"""The tuner's plot and table from hand-made records (``widgets/tuner_plot.py``): the
varied option on x, small multiples for a second one, a y range that follows medians
and interquartile ranges (never an outlier), a log scale past 10x, the legend outside
the axes, the best point marked, one row per setting fastest first."""

import pytest

from ti_notebook.widgets.render import svg_text
from ti_notebook.widgets.tuner_plot import results_table, tune_figure, y_limits
from ti_notebook.widgets.tuning import Measurement

pytestmark = pytest.mark.unit


def _m(median_ms: float, outliers=(), **options) -> Measurement:
    """A record with a narrow IQR around ``median_ms`` and extra outlier samples."""
    s = median_ms * 1e-3
    samples = (s * 0.95, s, s * 1.05, *(v * 1e-3 for v in outliers))
    return Measurement(
        options, s, s * 0.95, s * 1.05, "miss", q1_s=s * 0.97, q3_s=s * 1.03,
        samples=samples, outliers=tuple(range(3, len(samples))), first_call_s=0.05,
    )  # fmt: skip


def test_y_limits_follow_the_medians_even_with_a_huge_outlier():
    results = [_m(0.2, block_dim=16), _m(0.5, outliers=[28.0], block_dim=64)]
    bottom, top, log = y_limits(results)
    assert not log and bottom == 0 and 0.5 < top <= 3 * 0.5
    ax = tune_figure(results).axes[0]
    assert ax.get_ylim()[1] <= 3 * 0.5
    assert ax.get_xlabel() == "block_dim"


def test_log_scale_when_the_medians_span_more_than_10x():
    results = [_m(0.2, block_dim=16), _m(5.0, block_dim=64)]
    ax = tune_figure(results).axes[0]
    assert ax.get_yscale() == "log"
    low, high = ax.get_ylim()
    assert low < 0.2 * 0.97 and 5.0 * 1.03 < high <= 3 * 5.0
    assert tune_figure([_m(1.0, block_dim=16), _m(9.0, block_dim=64)]).axes[0].get_yscale() == (
        "linear"
    )


def test_x_axis_is_the_varied_option_and_a_second_one_makes_panels():
    results = [_m(b / p / 100, parallelize=p, block_dim=b) for p in (1, 2) for b in (16, 64, 256)]
    choices = {"parallelize": [1, 2], "block_dim": [16, 64, 256]}
    fig = tune_figure(results, choices)
    assert [ax.get_xlabel() for ax in fig.axes] == ["block_dim", "block_dim"]
    assert [ax.get_title() for ax in fig.axes] == ["parallelize=1", "parallelize=2"]
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["16", "64", "256"]
    assert all(ax.get_legend() is None for ax in fig.axes)  # nothing covers the data
    assert fig.axes[0].get_shared_y_axes().joined(fig.axes[0], fig.axes[1])


def test_a_single_valued_option_is_named_in_the_title_not_plotted():
    results = [_m(1.0, parallelize=4, block_dim=b) for b in (16, 32)]
    fig = tune_figure(results, {"parallelize": [4], "block_dim": [16, 32]}, title="k")
    assert fig.axes[0].get_xlabel() == "block_dim" and len(fig.axes) == 1
    assert fig._suptitle.get_text() == "k (parallelize=4)"


def test_a_third_option_is_lines_with_the_legend_outside():
    results = [
        _m(1.0 + b / 100 + s, parallelize=p, block_dim=b, serialize=s)
        for p in (1, 2) for b in (16, 64, 256) for s in (False, True)
    ]  # fmt: skip
    fig = tune_figure(results)
    assert len(fig.axes) == 2 and all(ax.get_legend() is None for ax in fig.axes)
    assert len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "serialize=False",
        "serialize=True",
    ]


def test_best_point_is_starred_and_slow_points_say_why():
    slow = _m(5.0, block_dim=16)
    slow = Measurement(
        **{**slow.__dict__, "reason": "block_dim=16: ...", "reason_tag": "tiny chunks"}
    )
    fig = tune_figure([_m(0.2, block_dim=64), slow])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "best" in texts and "tiny chunks" in texts
    svg = svg_text(fig)
    assert svg == svg_text(fig) and 'id="ti-tune-outliers' not in svg


def test_outliers_are_separate_marks():
    svg = svg_text(tune_figure([_m(1.0, outliers=[1.6], block_dim=16)]))
    assert 'id="ti-tune-outliers"' in svg


def test_table_has_one_row_per_setting_fastest_first_with_its_columns():
    slow = _m(5.0, block_dim=16)
    slow = Measurement(**{**slow.__dict__, "reason": "block_dim=16: tiny chunks"})
    html = results_table([slow, _m(0.5, block_dim=64)])
    for column in ("median ms", "IQR ms", "samples", "first call ms", "GB/s", "compiled"):
        assert f"<th>{column}</th>" in html
    assert html.index("<td>64</td>") < html.index("<td>16</td>")
    assert "<td>0.485–0.515</td>" in html and "<td>50</td>" in html  # IQR, first call
    assert "block_dim=16: tiny chunks" in html and "<td>best</td>" in html
