"""The tuner's drawing and table: time against an option's value, from measurements.

The first tuned option is the x axis, its values as categories in the order given (a
block_dim of 16, 32, 64 is evenly spaced, as its choices are). Every combination of
the other options is one line; each point is the median, its bar the min–max range.
The latest measurement is ringed. Nothing here runs a kernel: it reads
:class:`~ti_notebook.widgets.tuning.Measurement` records.

    >>> from ti_notebook.widgets.tuning import Measurement
    >>> results = [Measurement({"block_dim": b}, 1e-3 * b, 1e-3, 1e-1, "miss") for b in (8, 16)]
    >>> fig = tune_figure(results)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['8', '16']
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from ti_notebook.widgets.render import html_table
from ti_notebook.widgets.tuning import Measurement

__all__ = ["choices_of", "results_table", "tune_figure"]


def choices_of(results: Sequence[Measurement]) -> dict[str, list]:
    """Each option's values in the order they were first measured."""
    choices: dict[str, list] = {}
    for result in results:
        for name, value in result.options.items():
            seen = choices.setdefault(name, [])
            if value not in seen:
                seen.append(value)
    return choices


def tune_figure(
    tuner_or_results,
    choices: Mapping[str, Sequence] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """Time (ms) against the first option's value: a tuner's results, or a list of
    :class:`Measurement` with the ``choices`` they were taken from.

    Returns a bare matplotlib Figure (no pyplot state): ``fig.savefig(...)`` in scripts.

        >>> from ti_notebook.widgets.tuning import Measurement
        >>> runs = [Measurement({"parallelize": p}, 1e-3 / p, 1e-4, 2e-3, "miss") for p in (1, 2)]
        >>> fig = tune_figure(runs, {"parallelize": [1, 2, 4]}, title="saxpy")
        >>> fig.axes[0].get_xlabel(), len(fig.axes[0].get_xticks())
        ('parallelize', 3)
    """
    results = list(getattr(tuner_or_results, "results", tuner_or_results))
    if choices is None:
        choices = getattr(tuner_or_results, "choices", None) or choices_of(results)
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.add_subplot()
    ax.set_ylabel("time per call (ms)")
    if title is not None:
        ax.set_title(title, fontsize="medium")
    if not choices:
        ax.text(0.5, 0.5, "no options to tune", ha="center", va="center", transform=ax.transAxes)
        return fig
    names = list(choices)
    x_name, others = names[0], names[1:]
    x_values = list(choices[x_name])
    ax.set_xlabel(x_name)
    ax.set_xticks(range(len(x_values)), [str(v) for v in x_values])
    ax.set_xlim(-0.5, len(x_values) - 0.5)
    combos = list(itertools.product(*(choices[n] for n in others))) or [()]
    for k, combo in enumerate(combos):
        fixed = dict(zip(others, combo, strict=True))
        # the latest measurement of each x value under this combination of the others
        points: dict[int, Measurement] = {}
        for result in results:
            if all(result.options.get(n) == v for n, v in fixed.items()):
                value = result.options.get(x_name)
                if value in x_values:
                    points[x_values.index(value)] = result
        if not points:
            continue
        xs = sorted(points)
        medians = [points[x].median_s * 1e3 for x in xs]
        below = [(points[x].median_s - points[x].min_s) * 1e3 for x in xs]
        above = [(points[x].max_s - points[x].median_s) * 1e3 for x in xs]
        label = ", ".join(f"{n}={v}" for n, v in fixed.items()) or None
        bars = ax.errorbar(
            xs, medians, yerr=[below, above], marker="o", capsize=3, label=label, color=f"C{k}"
        )
        # an id in the SVG: a browser test counts the markers under it (tests/browser)
        bars.lines[0].set_gid(f"ti-tune-points-{k}")
    if results and results[-1].options.get(x_name) in x_values:
        last = results[-1]
        ax.plot(
            [x_values.index(last.options[x_name])],
            [last.median_s * 1e3],
            marker="o",
            markersize=12,
            fillstyle="none",
            color="black",
            linestyle="none",
            label="latest",
        )
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    if len(combos) > 1 or results:
        ax.legend(fontsize="small", loc="best")
    return fig


def results_table(results: Sequence[Measurement]) -> str:
    """The measurements as an HTML table, fastest median first.

    >>> print(results_table([Measurement({"parallelize": 2}, 1e-3, 5e-4, 2e-3, "hit")]))
    <table><tr><th>parallelize</th><th>median ms</th>...<td>2</td><td>1.000</td>...
    """
    names = list(choices_of(results))
    header = [*names, "median ms", "min ms", "max ms", "compiled", "GB/s"]
    rows = [
        [
            *(r.options.get(n, "") for n in names),
            f"{r.median_s * 1e3:.3f}",
            f"{r.min_s * 1e3:.3f}",
            f"{r.max_s * 1e3:.3f}",
            r.compiled,
            "" if r.gbps is None else f"{r.gbps:.1f}",
        ]
        for r in sorted(results, key=lambda r: r.median_s)
    ]
    return html_table(header, rows)
