"""``%%kernel --profile``: the kernel profiler's view of the launches one cell makes.

Nothing is timed here: the profiler (``ti.profiler``) records every launch natively,
and this module only remembers the last launch recorded when the cell started, then
shows those that came after, one row per specialisation (``add_one[a=rows]``):
launches, the first call's time apart (it compiles or loads, faults pages in), then the
median, interquartile range, min and max of the warm launches with the number of samples
and outliers, GB/s from the compiler's byte counts, and how that compares with the
ceiling of the memory level the data fits in ("in L2: 61 % of L2 bandwidth", measured
once per CPU model by ``ti.profiler.machine_ceilings()``); a figure that cannot be taken
at face value is starred and the reason is given under the table. The table comes as text
and HTML, and under it a bar chart of each specialisation's median time (PNG on a
transparent background, when matplotlib is installed).

If the profiler is off when the cell starts, it is turned on for the rest of the
session (``ti.profiler.enable()``): kernels compiled before recompile at their next call
with the instrumentation, and the magic says so in one line.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, kernel_profiler=True)
    >>> @ti.kernel
    ... def add(a: ti.i32, b: ti.i32) -> ti.i32:
    ...     return a + b
    >>> add(0, 0)
    0
    >>> profile = CellProfile()
    >>> _ = add(1, 2), add(3, 4)
    >>> [(row.specialisation, row.launches) for row in profile.rows()]
    [('add', 2)]
    >>> print(table_text(profile.rows()).splitlines()[0])
    profile: 2 launches in this cell (kernel profiler, times in ms; first call apart)
"""

from __future__ import annotations

import base64
import html
import io

import ti_notebook as ti

SWITCHED_ON = (
    "profile: the kernel profiler is now on for this session (ti.profiler.enable()); "
    "kernels compiled before recompile with timing at their next call"
)
NOTHING = "profile: no kernel was launched in this cell"
NO_CHART = "profile: no chart: matplotlib is not installed (pip install matplotlib)"
COLUMNS = (
    "launches",
    "first ms",
    "median ms",
    "IQR ms",
    "min ms",
    "max ms",
    "samples",
    "GB/s",
    "vs ceiling",
)


class CellProfile:
    """Created when a cell starts: turns the profiler on if it is off, and marks where
    the cell's launches begin in ``ti.profiler.launches()``."""

    def __init__(self) -> None:
        self.switched_on = not ti.profiler.is_enabled()
        if self.switched_on:
            ti.profiler.enable()
        before = ti.profiler.launches()
        # The last event itself, not the count: a cell that clears the record (or runs
        # ti.init) and launches again must not lose its first launches to an old count.
        self._last = before[-1] if before else None

    def rows(self) -> list:
        """One ``ti.profiler.rows()`` row per specialisation the cell launched."""
        launches = ti.profiler.launches()
        since = 0
        for index in range(len(launches) - 1, -1, -1):
            if launches[index] is self._last:
                since = index + 1
                break
        return ti.profiler.rows(since=since)

    def outputs(self) -> list[dict]:
        """Display bundles: the table (text/plain and text/html), then the chart
        (image/png) when matplotlib can draw it."""
        rows = self.rows()
        if not rows:
            return [{"text/plain": NOTHING}]
        if any(row.gbps is not None for row in rows) and all(
            row.ceiling_level is None for row in rows
        ):
            ti.profiler.machine_ceilings()  # once per CPU model (~1 s), then from its file
            rows = self.rows()
        bundles = [{"text/plain": table_text(rows), "text/html": table_html(rows)}]
        png = chart_png(rows)
        if png is None:
            bundles.append({"text/plain": NO_CHART})
        else:
            text = f"<bar chart: total ms of {len(rows)} specialisation(s)>"
            bundles.append({"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text})
        return bundles


def _cells(row) -> list[str]:
    """A row's values as the table shows them ("-" where unknown; the first call apart)."""
    first = row.first_call_ns
    summary = row.summary
    verdict = row.verdict() if hasattr(row, "verdict") else None
    if verdict and row.flag:
        verdict = verdict.replace(f" ({row.flag})", " *")  # the reason goes under the table
    return [
        str(row.launches),
        _ms(first) if first is not None else "-",
        _ms(row.median_ns),
        f"{_ms(summary.q1)}-{_ms(summary.q3)}" if summary is not None else "-",
        _ms(row.min_ns),
        _ms(row.max_ns),
        str(summary.n) + (f" ({len(summary.outliers)} out)" if summary.outliers else "")
        if summary is not None
        else "0",
        f"{row.gbps:.1f}" if row.gbps is not None else "-",
        verdict or "-",
    ]


def _ms(ns: float) -> str:
    # four decimals: a small kernel's launch takes a few microseconds
    return f"{ns / 1e6:.4f}"


def _caption(rows: list) -> str:
    launches = sum(row.launches for row in rows)
    noun = "launch" if launches == 1 else "launches"
    return (
        f"profile: {launches} {noun} in this cell (kernel profiler, times in ms; first call apart)"
    )


def _notes(rows: list) -> list[str]:
    """One line per flagged row: why its share of the ceiling is not to be trusted."""
    return [f"* {row.specialisation}: {row.flag}" for row in rows if getattr(row, "flag", None)]


def table_text(rows: list) -> str:
    """The rows as a fixed-width table under a one-line caption, flagged rows' reasons
    under it.

    >>> from types import SimpleNamespace as Row
    >>> row = Row(specialisation="k[a=x]", launches=2, first_call_ns=3_000_000,
    ...     min_ns=1_000_000, median_ns=1_000_000.0, max_ns=1_000_000, summary=None,
    ...     gbps=None, flag=None, verdict=lambda: None)
    >>> print(" ".join(table_text([row]).splitlines()[-1].split()))
    k[a=x] 2 3.0000 1.0000 - 1.0000 1.0000 0 - -
    """
    width = max(len("specialisation"), *(len(row.specialisation) for row in rows))
    cells = [_cells(row) for row in rows]
    widths = [max(len(name), 6, *(len(c[k]) for c in cells)) for k, name in enumerate(COLUMNS)]
    names = [f"{name:>{w}}" for name, w in zip(COLUMNS, widths, strict=True)]
    head = [f"{'specialisation':<{width}}", *names]
    lines = [_caption(rows), "  ".join(head)]
    for row, values in zip(rows, cells, strict=True):
        values = [f"{v:>{w}}" for v, w in zip(values, widths, strict=True)]
        lines.append("  ".join([f"{row.specialisation:<{width}}", *values]))
    notes = _notes(rows)
    return "\n".join(lines + ([""] + notes if notes else []))


def table_html(rows: list) -> str:
    """The rows as an HTML table (specialisation labels escaped), flags under it."""
    right = 'style="text-align:right"'
    head = "".join(f"<th {right}>{html.escape(name)}</th>" for name in COLUMNS)
    body = []
    for row in rows:
        cells = "".join(f"<td {right}>{html.escape(v)}</td>" for v in _cells(row))
        label = f'<td style="text-align:left"><code>{html.escape(row.specialisation)}</code></td>'
        body.append(f"<tr>{label}{cells}</tr>")
    notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in _notes(rows))
    return (
        f'<table class="ti-profile"><caption>{html.escape(_caption(rows))}</caption>'
        f'<thead><tr><th style="text-align:left">specialisation</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>{notes}"
    )


NEUTRAL = "#808080"  # readable on a light and on a dark notebook background


def chart_png(rows: list) -> bytes | None:
    """A horizontal bar per specialisation: its median ms per warm launch, the IQR as a
    whisker; PNG on a transparent background with neutral colours, so it reads in light
    and dark themes alike (None: no matplotlib)."""
    try:
        import matplotlib  # noqa: F401  (a missing matplotlib fails here, not below)
        from matplotlib.figure import Figure
    except ImportError:
        return None
    # A bare Figure renders with Agg and leaves pyplot alone: the notebook's backend and
    # its list of open figures stay as the user set them.
    figure = Figure(figsize=(5, 0.4 * len(rows) + 1))
    figure.patch.set_alpha(0.0)
    axes = figure.add_subplot()
    axes.set_facecolor("none")
    ordered = rows[::-1]  # rows come slowest first; barh draws the first at the bottom
    positions = range(len(ordered))
    medians = [row.median_ns / 1e6 for row in ordered]
    spread = [
        (
            (row.median_ns - row.summary.q1) / 1e6 if row.summary else 0.0,
            (row.summary.q3 - row.median_ns) / 1e6 if row.summary else 0.0,
        )
        for row in ordered
    ]
    bars = axes.barh(
        positions,
        medians,
        color=NEUTRAL,
        alpha=0.6,
        xerr=list(zip(*spread, strict=True)),
        error_kw={"ecolor": NEUTRAL, "capsize": 3},
    )
    axes.bar_label(bars, [_ms(row.median_ns) for row in ordered], padding=3, fontsize=8,
                   color=NEUTRAL)  # fmt: skip
    axes.margins(x=0.25)  # room for the last bar's label
    axes.set_yticks(positions, [row.specialisation for row in ordered])
    axes.set_xlabel("median ms per launch (IQR whiskers; first call not counted)")
    for side in axes.spines.values():
        side.set_color(NEUTRAL)
    axes.tick_params(colors=NEUTRAL)
    axes.xaxis.label.set_color(NEUTRAL)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=100, transparent=True)
    return out.getvalue()
