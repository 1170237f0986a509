"""The Markdown report: figures per peer, ratios, targets, bandwidth, failures.

``results`` maps a peer to {row key: figure}; a figure is {"median", "q1", "q3", "runs"}
in seconds (the timing protocol's median and interquartile range), {"error": one line}
or {"na": why}.

    >>> render({"ti_notebook": {}}, {"cpu": "x", "cores": 2}).startswith("# Side")
    True
"""

from __future__ import annotations

from . import spec

UNCHECKED = "ti_notebook_unchecked"  # ti_notebook with ti.init(check_bounds=False)
PEERS = ["ti_notebook", UNCHECKED, "taichi", "numba", "numpy"]
LABELS = {UNCHECKED: "ti_notebook checks off"}
CHECKS_TARGET = 1.10  # ti_notebook with bounds checks (the default) / without
SCALE = {"ms": 1e3, "µs": 1e6}


def number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3f}"


def cell(figure: dict | None, unit: str) -> str:
    if not figure:
        return "–"
    if "error" in figure:
        text = figure["error"].replace("|", "\\|")
        return f"**failed**: {text[:90]}{'…' if len(text) > 90 else ''}"
    if "na" in figure:
        return "n/a"
    scale = SCALE[unit]
    median_text = number(figure["median"] * scale)
    if "q1" not in figure:  # a figure from an older results file
        return median_text
    return f"{median_text} ({number(figure['q1'] * scale)}–{number(figure['q3'] * scale)})"


def median(results: dict, peer: str, key: str) -> float | None:
    figure = results.get(peer, {}).get(key) or {}
    return figure.get("median")


def ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num and den else None


def measured(results: dict) -> list[spec.Row]:
    """The rows some peer has a figure, error or n/a for (a partial run skips the rest)."""
    return [row for row in spec.ROWS if any(row.key in rows for rows in results.values())]


def label(peer: str) -> str:
    return LABELS.get(peer, peer)


def checks_ratio(results: dict, key: str) -> float | None:
    """ti_notebook's median with bounds checks on over the one with them off."""
    return ratio(median(results, "ti_notebook", key), median(results, UNCHECKED, key))


def main_table(results: dict) -> list[str]:
    names = " | ".join(label(p) for p in PEERS)
    head = f"| workload | {names} | checks on/off | ti_nb/taichi | target | ti_nb/best(nb, np) |"
    lines = [head, "|---|" + "---:|" * (len(PEERS) + 4)]
    for row in measured(results):
        cells = [cell(results.get(peer, {}).get(row.key), row.unit) for peer in PEERS]
        cells.append(fmt_ratio(checks_ratio(results, row.key)))
        mine = median(results, "ti_notebook", row.key)
        vs_taichi = ratio(mine, median(results, "taichi", row.key))
        others = [median(results, p, row.key) for p in ("numba", "numpy")]
        others = [t for t in others if t]
        vs_best = ratio(mine, min(others)) if others else None
        target = "–"
        if row.target is not None:
            mark = "" if vs_taichi is None else (" ✓" if vs_taichi <= row.target else " ✗")
            target = f"≤ {row.target:g}{mark}"
        lines.append(
            f"| {row.label} [{row.unit}] | "
            + " | ".join(cells)
            + f" | {fmt_ratio(vs_taichi)} | {target} | {fmt_ratio(vs_best)} |"
        )
    return lines


def fmt_ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def bandwidth_table(results: dict, judge=None) -> list[str]:
    """GB/s per peer from the medians, and ti_notebook's against the ceiling of the memory
    level the row's working set fits in (``judge``: see ``compare.judge_bandwidth``);
    a share above 100 % always carries its reason as a footnote."""
    lines = [
        "Effective bandwidth, GB/s from medians (bytes read + written per call, no "
        "write-allocate). The last column compares ti_notebook with this machine's "
        "ceiling for the memory level the row's data fits in (measured by "
        "`ti.profiler.machine_ceilings()`, all cores).",
        "",
        "| workload | MB/call | "
        + " | ".join(label(p) for p in PEERS)
        + " | ti_notebook vs ceiling |",
        "|---|---:|" + "---:|" * (len(PEERS) + 1),
    ]
    flags: list[str] = []
    for row in measured(results):
        if row.nbytes is None:
            continue
        rates = []
        for peer in PEERS:
            t = median(results, peer, row.key)
            rates.append(f"{row.nbytes / t / 1e9:.1f}" if t else "–")
        mine = median(results, "ti_notebook", row.key)
        share = "–"
        if mine and judge is not None:
            share, flag = judge(row.nbytes / mine / 1e9, row.nbytes)
            if flag:  # the reason goes under the table, numbered
                flags.append(flag)
                share += f" ({len(flags)})"
        mb = row.nbytes / 2**20
        lines.append(f"| {row.label} | {mb:.0f} | " + " | ".join(rates) + f" | {share} |")
    if judge is not None:
        lines += ["", f"Ceilings: {getattr(judge, 'ceilings', '')}".rstrip()]
    lines += [""] + [f"({k}) {flag}" for k, flag in enumerate(flags, 1)]
    return lines


def failures(results: dict) -> list[str]:
    out = []
    for row in measured(results):
        for peer in PEERS:
            figure = results.get(peer, {}).get(row.key) or {}
            if "error" in figure:
                out.append(f"- {row.label} ({peer}): `{figure['error']}`")
    return out


def misses(results: dict) -> list[str]:
    out = []
    for row in measured(results):
        if row.target is None:
            continue
        mine = median(results, "ti_notebook", row.key)
        vs_taichi = ratio(mine, median(results, "taichi", row.key))
        if vs_taichi is not None and vs_taichi > row.target:
            out.append(f"- {row.label}: ti_notebook/taichi = {vs_taichi:.2f} > {row.target:g}")
        elif vs_taichi is None:
            out.append(f"- {row.label}: no ratio (a figure is missing)")
    return out


def checks_misses(results: dict) -> list[str]:
    """Rows where ti_notebook with its bounds checks is slower than allowed."""
    out = []
    for row in measured(results):
        on_off = checks_ratio(results, row.key)
        if on_off is not None and on_off > CHECKS_TARGET:
            out.append(f"- {row.label}: checks on / off = {on_off:.2f} > {CHECKS_TARGET:g}")
    return out


def render(results: dict, machine: dict, notes: list[str] | None = None, judge=None) -> str:
    """The whole report as Markdown."""
    lines = [
        "# Side-by-side benchmarks",
        "",
        f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores. "
        f"{machine.get('versions', '')}",
        "",
        "Each cell: median (interquartile range) per call, by ti_notebook's timing protocol: "
        "the checked first call apart, then 9 synchronised samples (5 or 3 for slow rows), "
        "each of enough calls to last 0.2 ms (launch rows: 5 ms); cold rows: fresh "
        "processes. Ratios use medians; targets apply to ti_notebook / taichi.",
        "",
        *main_table(results),
        "",
        *bandwidth_table(results, judge),
        "",
        "## Failures (error in place of a figure)",
        "",
        *(failures(results) or ["none"]),
        "",
        "## Targets missed (ti_notebook / taichi)",
        "",
        *(misses(results) or ["none"]),
    ]
    if UNCHECKED in results:
        lines += [
            "",
            f"## Bounds checks missed (ti_notebook checks on / off > {CHECKS_TARGET:g})",
            "",
            *(checks_misses(results) or ["none"]),
        ]
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines) + "\n"
