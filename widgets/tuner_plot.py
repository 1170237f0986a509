"""The tuner's drawing and table: time against the option being varied, from records.

The x axis is the varied option with the most values (its values as categories, in the
order given: a block_dim of 16, 32, 64 is evenly spaced, as its choices are). A second
varied option gives one panel per value (small multiples, sharing the y axis); a third
is one line per value in each panel, with the legend outside the axes. Each point is a
median, its bar the interquartile range; outlier samples are separate ``x`` marks (a
``^`` at the top edge when off the scale). The y range follows the medians and their
ranges, never an outlier: a log scale when the medians span more than 10x. The best
point has a star, the latest a ring, and a point more than twice the best is labelled
with the cause the report shows (:mod:`.tuner_reasons`). Nothing here runs a kernel.

    >>> from ti_notebook.widgets.tuning import Measurement
    >>> results = [Measurement({"block_dim": b}, 1e-3 * b, 1e-3, 1e-1, "miss") for b in (8, 16)]
    >>> fig = tune_figure(results)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()], fig.axes[0].get_xlabel()
    (['8', '16'], 'block_dim')
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from ti_notebook.widgets.render import html_table
from ti_notebook.widgets.tuning import Measurement

__all__ = ["choices_of", "plot_axes", "results_table", "tune_figure", "y_limits"]

LOG_SPAN = 10.0  # medians spanning more than this ratio get a log axis
TOP_CAP = 2.9  # the y axis never reaches beyond this many times the largest median


def choices_of(results: Sequence[Measurement]) -> dict[str, list]:
    """Each option's values in the order they were first measured."""
    choices: dict[str, list] = {}
    for result in results:
        for name, value in result.options.items():
            seen = choices.setdefault(name, [])
            if value not in seen:
                seen.append(value)
    return choices


def plot_axes(choices: Mapping[str, Sequence]) -> tuple[str, str | None, list[str]]:
    """(x option, panel option or None, line options): the varied options, most values
    first (ties in the order given); with none varied, the first option is x.

    >>> plot_axes({"parallelize": [1, 2], "block_dim": [16, 64, 256]})
    ('block_dim', 'parallelize', [])
    """
    names = list(choices)
    varied = [n for n in names if len(choices[n]) > 1] or names[:1]
    varied.sort(key=lambda n: -len(choices[n]))
    return varied[0], (varied[1] if len(varied) > 1 else None), varied[2:]


def y_limits(results: Sequence[Measurement]) -> tuple[float, float, bool]:
    """(bottom, top, log) in ms, from the medians and interquartile ranges only.

    >>> y_limits([Measurement({"b": 1}, 1e-3, 1e-3, 9.0, "hit", q1_s=9e-4, q3_s=1.1e-3)])
    (0.0, 1.265, False)
    """
    medians = [r.median_s * 1e3 for r in results]
    if not medians or max(medians) <= 0:
        return 0.0, 1.0, False
    top = max(medians)
    q1 = min(r.q1_s * 1e3 for r in results)
    q3 = max(r.q3_s * 1e3 for r in results)
    log = min(medians) > 0 and top / min(medians) > LOG_SPAN
    if log:
        return max(q1, 1e-9) / 1.5, min(max(q3, top) * 1.5, TOP_CAP * top), True
    return 0.0, round(min(max(q3, top) * 1.15, TOP_CAP * top), 12), False


def tune_figure(
    tuner_or_results,
    choices: Mapping[str, Sequence] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """Time per call (ms) against the varied option: a tuner's results, or a list of
    :class:`Measurement` with the ``choices`` they were taken from (see the module).

    Returns a bare matplotlib Figure (no pyplot state): ``fig.savefig(...)`` in scripts.

        >>> from ti_notebook.widgets.tuning import Measurement
        >>> runs = [
        ...     Measurement({"parallelize": p, "block_dim": b}, 1e-3 * b / p, 0, 1, "miss")
        ...     for p in (1, 2) for b in (16, 64, 256)
        ... ]
        >>> fig = tune_figure(runs, title="saxpy")
        >>> [ax.get_title() for ax in fig.axes], fig.axes[0].get_yscale()
        (['parallelize=1', 'parallelize=2'], 'log')
    """
    results = list(getattr(tuner_or_results, "results", tuner_or_results))
    if choices is None:
        choices = getattr(tuner_or_results, "choices", None) or choices_of(results)
    best = min(results, key=lambda r: r.median_s, default=None)
    latest = getattr(tuner_or_results, "latest", None)
    if not choices:
        fig = Figure(figsize=(6.4, 3.4), layout="constrained")
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no options to tune", ha="center", va="center", transform=ax.transAxes)
        return fig
    x_name, panel_name, line_names = plot_axes(choices)
    panels = list(choices[panel_name]) if panel_name else [None]
    columns = min(len(panels), 4)
    rows = -(-len(panels) // columns)
    fig = Figure(figsize=(min(3.4 * columns, 13) + 0.8, 3.0 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, columns, sharey=True, squeeze=False).ravel()
    shown = (x_name, panel_name, *line_names)
    fixed = ", ".join(f"{n}={v[0]}" for n, v in choices.items() if n not in shown)
    heading = f"{title} ({fixed})" if title and fixed else (title or fixed)
    if heading:
        fig.suptitle(heading, fontsize="medium")
    bottom, top, log = y_limits(results)
    x_values = list(choices[x_name])
    combos = list(itertools.product(*(choices[n] for n in line_names))) or [()]
    for p, (ax, panel) in enumerate(zip(axes, panels, strict=False)):
        ax.set_xlabel(x_name)
        ax.set_xticks(range(len(x_values)), [str(v) for v in x_values])
        ax.set_xlim(-0.5, len(x_values) - 0.5)
        ax.grid(axis="y", alpha=0.3)
        if panel_name is not None:
            ax.set_title(f"{panel_name}={panel}", fontsize="medium")
        if p % columns == 0:
            ax.set_ylabel("time per call (ms)")
        for k, combo in enumerate(combos):
            want = dict(zip(line_names, combo, strict=True))
            if panel_name is not None:
                want[panel_name] = panel
            points = {
                x_values.index(r.options[x_name]): r
                for r in results
                if r.options.get(x_name) in x_values
                and all(r.options.get(n) == v for n, v in want.items())
            }
            label = ", ".join(f"{n}={v}" for n, v in zip(line_names, combo, strict=True))
            _draw_line(ax, points, f"C{k}", label or None, f"ti-tune-points-{p}-{k}")
            _draw_marks(ax, points, best, latest, (bottom, top, log))
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    if log:
        axes[0].set_yscale("log")
        # 1-2-5 ticks written as plain numbers: a span of 10-100x has few powers of ten
        axes[0].yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axes[0].yaxis.set_major_formatter(FormatStrFormatter("%g"))
        axes[0].yaxis.set_minor_formatter(NullFormatter())
    axes[0].set_ylim(bottom, top)
    if line_names and results:
        entries: dict[str, object] = {}  # every panel draws the same lines: name each once
        for ax in axes:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                entries.setdefault(label, handle)
        fig.legend(entries.values(), entries.keys(), loc="outside right upper", fontsize="small")
    if not results:
        axes[0].text(0.5, 0.5, "no measurement yet", ha="center", transform=axes[0].transAxes)
    return fig


def _draw_line(ax, points: dict[int, Measurement], color: str, label, gid: str) -> None:
    """Medians joined by a line, interquartile bars, outlier samples as ``x`` marks."""
    if not points:
        return
    xs = sorted(points)
    medians = [points[x].median_s * 1e3 for x in xs]
    below = [(points[x].median_s - points[x].q1_s) * 1e3 for x in xs]
    above = [(points[x].q3_s - points[x].median_s) * 1e3 for x in xs]
    bars = ax.errorbar(
        xs, medians, yerr=[below, above], marker="o", capsize=3, color=color, label=label
    )
    # an id in the SVG: a browser test counts the markers under it (tests/browser)
    bars.lines[0].set_gid(gid)
    outliers = [(x, v * 1e3) for x in xs for v in points[x].outlier_values()]
    if outliers:
        xs_out, ys_out = zip(*outliers, strict=True)
        marks = ax.plot(xs_out, ys_out, "x", color=color, alpha=0.6, markersize=5)
        marks[0].set_gid("ti-tune-outliers")


def _draw_marks(ax, points: dict[int, Measurement], best, latest, limits) -> None:
    """The best point's star, the latest's ring, slow points' causes, off-scale outliers."""
    _bottom, top, log = limits
    edge = top / 1.08 if log else top * 0.97
    for x, r in points.items():
        if any(v * 1e3 > top for v in r.outlier_values()):
            # an outlier off the scale: a mark at the top edge says it exists
            ax.plot([x], [edge], "^", color="grey", markersize=5)
        y = min(r.median_s * 1e3, edge)
        if r is best:
            ax.plot([x], [y], "*", markersize=15, color="gold", markeredgecolor="black", zorder=5)
            # above the star: below it the label would run into the x axis near 0
            ax.annotate(
                "best", (x, y), xytext=(0, 10), textcoords="offset points", ha="center",
                fontsize="small",
            )  # fmt: skip
        elif r.reason_tag:
            ax.annotate(
                r.reason_tag, (x, y), xytext=(0, 9), textcoords="offset points", ha="center",
                fontsize="x-small", color="C3",
            )  # fmt: skip
        if latest is not None and dict(r.options) == dict(latest):
            ax.plot([x], [y], "o", markersize=13, fillstyle="none", color="black", zorder=4)


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:.3g}"


def results_table(results: Sequence[Measurement]) -> str:
    """One row per setting, fastest median first, as an HTML table.

    >>> r = Measurement({"parallelize": 2}, 1e-3, 5e-4, 2e-3, "hit", q1_s=9e-4, q3_s=1.2e-3)
    >>> print(results_table([r]))
    <table><tr><th>parallelize</th><th>median ms</th><th>IQR ms</th>...<td>1</td><td>0.9–1.2</td>...
    """
    names = list(choices_of(results))
    header = [*names, "median ms", "IQR ms", "samples", "first call ms", "GB/s", "compiled", "why"]
    ordered = sorted(results, key=lambda r: r.median_s)
    rows = []
    for r in ordered:
        outliers = len(r.outliers)
        samples = f"{r.samples_n}" + (
            f" ({outliers} outlier{'s' * (outliers > 1)})" if outliers else ""
        )
        rows.append(
            [
                *(r.options.get(n, "") for n in names),
                _ms(r.median_s),
                f"{_ms(r.q1_s)}–{_ms(r.q3_s)}",
                samples,
                _ms(r.first_call_s),
                "?" if r.gbps is None else f"{r.gbps:.3g}",
                r.compiled,
                "best" if r is ordered[0] and len(ordered) > 1 else (r.reason or ""),
            ]
        )
    return html_table(header, rows)
