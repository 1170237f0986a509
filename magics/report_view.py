"""``%%kernel --show report``: what the compiler did to a kernel, as tables to read.

The data is ``kernel.report`` (a read-only ``KernelReport``): per task its kind, range,
loop_config and bytes per iteration (with the fields making them up); what the passes
changed (thread-local reductions, block-local buffers, demoted atomics, privatised
scatters, promoted accumulators, bounds checks); each pass, whether it changed the IR
and its time in ms to three significant figures; the compile time and cache state. The
same report as JSON is ``--show report-json`` (or ``kernel.report.to_dict()``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, offline_cache=False)
    >>> x = ti.field(ti.f32, shape=64)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = 1
    >>> print(report_text("fill", fill.report))  # doctest: +ELLIPSIS
    --- fill · report ---
    compiled in ... ms (cache off)
    tasks:
      #  kind               range    loop_config  bytes/iter  traffic  line
      0  struct-for over x  [0, 64)  default      4           x w 4 B  3
    bounds checks: 1 proven, 0 checked, 0 hoisted
    passes (ms):
      typecheck  ...
"""

from __future__ import annotations

import html
import math

_CACHE = {"hit": "loaded in", "miss": "compiled in", "off": "compiled in"}
_CACHE_TEXT = {"hit": "cache hit", "miss": "cache miss", "off": "cache off"}
RAW_HINT = "the raw data: --show report-json, or kernel.report.to_dict()"


def sig3(ms: float) -> str:
    """A time in ms to three significant figures, never in exponent form.

    >>> sig3(0.0099361), sig3(12.345), sig3(1234.6), sig3(0.0)
    ('0.00994', '12.3', '1235', '0')
    """
    if ms <= 0:
        return "0"
    decimals = max(2 - math.floor(math.log10(ms)), 0)
    return f"{ms:.{decimals}f}"


def _range(task) -> str:
    if task.range is None:
        return "-" if task.kind == "serial" else "runtime"
    begin, end = task.range
    return f"[{begin}, {end})"


def _config(task) -> str:
    config = task.loop_config or {}
    return ", ".join(f"{k}={v}" for k, v in sorted(config.items())) or "default"


def _traffic(task) -> str:
    parts = []
    for entry in task.traffic:
        how = ("r" if entry.read else "") + ("w" if entry.written else "")
        parts.append(f"{entry.name} {how} {entry.bytes} B")
    return ", ".join(parts)


def task_rows(report) -> list[list[str]]:
    """Per task: #, kind (and the field a struct-for visits), range, loop_config,
    bytes per iteration, what makes them up, source line."""
    rows = []
    for number, task in enumerate(report.tasks):
        kind = task.kind.replace("_", "-") + (f" over {task.field}" if task.field else "")
        per_iteration = "-" if task.bytes_per_iteration is None else f"{task.bytes_per_iteration}"
        line = "" if task.line is None else str(task.line)
        rows.append(
            [str(number), kind, _range(task), _config(task), per_iteration, _traffic(task), line]
        )
    return rows


TASK_HEADER = ["#", "kind", "range", "loop_config", "bytes/iter", "traffic", "line"]


def facts(report) -> list[tuple[str, str]]:
    """What the passes decided, one (label, text) each; only what happened."""
    out = []
    for tls in report.thread_local:
        out.append(("thread-local", f"{tls.operation} into {tls.destination} (task {tls.task})"))
    for bls in report.block_local:
        text = f"{bls.field} ({bls.mode}), block {bls.block_shape}, buffer {bls.buffer_shape}"
        out.append(("block-local", f"{text}, {bls.bytes} B: {bls.mapping}"))
    if report.demoted_atomics:
        out.append(("demoted atomics", ", ".join(report.demoted_atomics)))
    for scatter in report.privatized:
        fields = ", ".join(scatter.fields)
        out.append(("privatised", f"{fields}: {scatter.bytes} B per thread (task {scatter.task})"))
    if report.promoted:
        out.append(("promoted to a register", ", ".join(report.promoted)))
    if report.written_arguments:
        out.append(("written arguments", ", ".join(report.written_arguments)))
    bounds = report.bounds
    if bounds is not None:
        if not bounds.enabled:
            out.append(("bounds checks", "off"))
        else:
            text = f"{bounds.proven} proven, {bounds.checked} checked, {bounds.hoisted} hoisted"
            out.append(("bounds checks", text))
    return out


def pass_rows(report) -> list[list[str]]:
    """Per pass: its name, "yes" when it changed the IR, its time in ms."""
    return [
        [r.name, "yes" if r.changed else "", sig3(1000.0 * r.time_s)] for r in report.pass_records
    ]


def _head(report) -> str:
    cache = report.cache or "unknown"
    verb = _CACHE.get(cache, "compiled in")
    ms = sig3(1000.0 * float(report.compile_time_s or 0.0))
    return f"{verb} {ms} ms ({_CACHE_TEXT.get(cache, cache)})"


def _columns(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def report_text(name: str, report) -> str:
    """The plain-text form (terminals, exported notebooks)."""
    lines = [f"--- {name} · report ---", _head(report)]
    tasks = task_rows(report)
    lines += ["tasks:", *_columns([TASK_HEADER, *tasks])] if tasks else ["tasks: none"]
    lines += [f"{label}: {text}" for label, text in facts(report)]
    passes = pass_rows(report)
    if passes:
        lines += ["passes (ms):", *_columns(passes)]
    return "\n".join(lines)


_CELL = "padding:2px 8px;text-align:left;vertical-align:top;border-bottom:1px solid #8884"


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    def cell(tag: str, text: str, i: int) -> str:
        align = "text-align:right" if i in numeric else "text-align:left"
        return f'<{tag} style="{_CELL};{align}">{html.escape(text)}</{tag}>'

    head = "".join(cell("th", h, i) for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(cell("td", c, i) for i, c in enumerate(r)) + "</tr>" for r in rows
    )
    return f'<table style="border-collapse:collapse;margin:4px 0"><tr>{head}</tr>{body}</table>'


def report_bundle(name: str, report) -> dict:
    """text/html (tables in a ``<details>``) and text/plain for one kernel's report."""
    parts = [f"<div>{html.escape(_head(report))}</div>"]
    tasks = task_rows(report)
    if tasks:
        parts.append(_table(TASK_HEADER, tasks, numeric={0, 4}))
    else:
        parts.append("<div>tasks: none</div>")
    found = facts(report)
    if found:
        items = "".join(
            f"<li><b>{html.escape(label)}</b>: {html.escape(text)}</li>" for label, text in found
        )
        parts.append(f'<ul style="margin:4px 0">{items}</ul>')
    passes = pass_rows(report)
    if passes:
        parts.append(_table(["pass", "changed?", "time (ms)"], passes, numeric={2}))
    parts.append(f'<div style="color:#888">{html.escape(RAW_HINT)}</div>')
    title = f"<b>{html.escape(name)}</b> &middot; report"
    body = f'<div style="max-height:36em;overflow:auto">{"".join(parts)}</div>'
    return {
        "text/html": f'<details class="ti-stage" open><summary>{title}</summary>{body}</details>',
        "text/plain": report_text(name, report) + "\n",
    }
