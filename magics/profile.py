"""``%%kernel --profile``: the kernel profiler's view of the launches one cell makes.

Nothing is timed here: the profiler (``ti.profiler``) records every launch natively,
and this module only remembers the last launch recorded when the cell started, then
shows those that came after, one row per specialisation (``add_one[a=rows]``):
launches, total, min, median and max time, GB/s and the share of the machine's copy
bandwidth where the bytes are known. The table comes as text and HTML, and under it a
bar chart of each specialisation's total time (PNG, when matplotlib is installed).

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
    profile: 2 launches in this cell (kernel profiler, times in ms)
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
COLUMNS = ("launches", "total ms", "min ms", "median ms", "max ms", "GB/s", "% of ceiling")


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
        bundles = [{"text/plain": table_text(rows), "text/html": table_html(rows)}]
        png = chart_png(rows)
        if png is None:
            bundles.append({"text/plain": NO_CHART})
        else:
            text = f"<bar chart: total ms of {len(rows)} specialisation(s)>"
            bundles.append({"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text})
        return bundles


def _cells(row) -> list[str]:
    """A row's values as the table shows them ("-" where the bytes are unknown)."""
    ceiling = row.fraction_of_ceiling
    return [
        str(row.launches),
        *(_ms(ns) for ns in (row.total_ns, row.min_ns, row.median_ns, row.max_ns)),
        f"{row.gbps:.1f}" if row.gbps is not None else "-",
        f"{100 * ceiling:.0f}%" if ceiling is not None else "-",
    ]


def _ms(ns: float) -> str:
    # four decimals: a small kernel's launch takes a few microseconds
    return f"{ns / 1e6:.4f}"


def _caption(rows: list) -> str:
    launches = sum(row.launches for row in rows)
    noun = "launch" if launches == 1 else "launches"
    return f"profile: {launches} {noun} in this cell (kernel profiler, times in ms)"


def table_text(rows: list) -> str:
    """The rows as a fixed-width table under a one-line caption.

    >>> from types import SimpleNamespace as Row
    >>> row = Row(specialisation="k[a=x]", launches=2, total_ns=3_000_000, min_ns=1_000_000,
    ...     median_ns=1_500_000.0, max_ns=2_000_000, gbps=None, fraction_of_ceiling=None)
    >>> print(table_text([row]))
    profile: 2 launches in this cell (kernel profiler, times in ms)
    specialisation  launches  total ms  min ms  median ms  max ms    GB/s  % of ceiling
    k[a=x]                 2    3.0000  1.0000     1.5000  2.0000       -             -
    """
    width = max(len("specialisation"), *(len(row.specialisation) for row in rows))
    widths = [max(len(name), 6) for name in COLUMNS]
    names = [f"{name:>{w}}" for name, w in zip(COLUMNS, widths, strict=True)]
    head = [f"{'specialisation':<{width}}", *names]
    lines = [_caption(rows), "  ".join(head)]
    for row in rows:
        values = [f"{v:>{w}}" for v, w in zip(_cells(row), widths, strict=True)]
        lines.append("  ".join([f"{row.specialisation:<{width}}", *values]))
    return "\n".join(lines)


def table_html(rows: list) -> str:
    """The rows as an HTML table (specialisation labels escaped)."""
    right = 'style="text-align:right"'
    head = "".join(f"<th {right}>{html.escape(name)}</th>" for name in COLUMNS)
    body = []
    for row in rows:
        cells = "".join(f"<td {right}>{html.escape(v)}</td>" for v in _cells(row))
        label = f'<td style="text-align:left"><code>{html.escape(row.specialisation)}</code></td>'
        body.append(f"<tr>{label}{cells}</tr>")
    return (
        f'<table class="ti-profile"><caption>{html.escape(_caption(rows))}</caption>'
        f'<thead><tr><th style="text-align:left">specialisation</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def chart_png(rows: list) -> bytes | None:
    """A horizontal bar per specialisation, its total ms, as PNG (None: no matplotlib)."""
    try:
        import matplotlib  # noqa: F401  (a missing matplotlib fails here, not below)
        from matplotlib.figure import Figure
    except ImportError:
        return None
    # A bare Figure renders with Agg and leaves pyplot alone: the notebook's backend and
    # its list of open figures stay as the user set them.
    figure = Figure(figsize=(5, 0.4 * len(rows) + 1))
    axes = figure.add_subplot()
    ordered = rows[::-1]  # rows come slowest first; barh draws the first at the bottom
    positions = range(len(ordered))
    bars = axes.barh(positions, [row.total_ns / 1e6 for row in ordered], color="#4c72b0")
    axes.bar_label(bars, [_ms(row.total_ns) for row in ordered], padding=3, fontsize=8)
    axes.margins(x=0.2)  # room for the last bar's label
    axes.set_yticks(positions, [row.specialisation for row in ordered])
    axes.set_xlabel("total ms in this cell")
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=100)
    return out.getvalue()
