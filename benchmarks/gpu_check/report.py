"""Markdown for the GPU figures (``gpu.py``'s results dict): the side-by-side table, the
goals, and every failure with its traceback.

On the fake device the table says only whether each row ran and matched NumPy: its
times are the emulator's, not a GPU's, and are never printed.

    >>> results = {"mode": "fake", "device": {"peak_gbps": None}, "order": ["sum"],
    ...            "peers": {"ti_notebook": {"meta": {"arch": "fake device"},
    ...                      "rows": {"sum": {"title": "sum", "figure": {}}}, "notes": []}}}
    >>> print("\\n".join(bench_markdown(results)[:4]))
    | row | ti_notebook (fake device) |
    | --- | --- |
    | sum | ran, result checked |
    <BLANKLINE>
"""

from __future__ import annotations

SUM_GOAL = 0.80  # the 8M f32 sum's share of the device's memory bandwidth
TRACE_LINES = 40
NAMES = {"ti_notebook": "ti_notebook", "taichi": "Taichi 1.7.4"}


def trim(text: str, lines: int = TRACE_LINES, chars: int = 6000) -> str:
    """The last ``lines`` lines of ``text`` (at most ``chars`` characters), marked when cut.

    >>> trim("a\\nb\\nc", lines=2)
    '[... 1 line(s) cut]\\nb\\nc'
    """
    kept = text.rstrip().splitlines()
    cut = max(0, len(kept) - lines)
    body = "\n".join(kept[cut:])[-chars:]
    return f"[... {cut} line(s) cut]\n{body}" if cut else body


def _ms(figure: dict | None, key: str = "median_ms") -> str:
    if not figure or key not in figure:
        return "-"
    if key == "median_ms":
        return f"{figure['median_ms']:.4g} ({figure['q1_ms']:.4g}-{figure['q3_ms']:.4g})"
    return f"{figure[key]:.4g}"


def _cell(entry: dict | None, fake: bool) -> str:
    if not entry:
        return "-"
    if "error" in entry:
        return "FAILED (see Failures)"
    if "skipped" in entry:
        return f"not run ({entry['skipped']})"
    if "figure" not in entry:
        return "-"
    return "ran, result checked" if fake else _ms(entry["figure"])


def _title(results: dict, key: str) -> str:
    for peer in results["peers"].values():
        title = peer["rows"].get(key, {}).get("title")
        if title:
            return title
    return key


def _median(results: dict, peer: str, key: str, where: str = "figure") -> float | None:
    entry = results["peers"].get(peer, {}).get("rows", {}).get(key, {})
    figure = entry.get(where) or {}
    value = figure.get("median_ms" if where == "figure" else "device_ms")
    return value if "error" not in entry else None


def bench_markdown(results: dict) -> list[str]:
    """The table, then goals and failures, as markdown lines."""
    fake = results["mode"] == "fake"
    peers = list(results["peers"])
    head = ["row"]
    for peer in peers:
        arch = results["peers"][peer]["meta"].get("arch", "?")
        head.append(f"{NAMES.get(peer, peer)} ({arch})" if fake else f"{NAMES.get(peer, peer)} ms")
    both = not fake and {"ti_notebook", "taichi"} <= set(peers)
    if both:
        head += ["ti/Taichi", "ti device ms", "Taichi device ms", "ti GB/s (device)"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for key in results["order"]:
        cells = [_title(results, key)]
        cells += [_cell(results["peers"][p]["rows"].get(key), fake) for p in peers]
        if both:
            cells += _comparison(results, key)
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if not fake:
        lines += [
            "Wall times: median (IQR) ms per call by the timing protocol, calls queued "
            "back to back with a sync after each sample; device times: CUDA events of the "
            "kernel profiler, per call.",
            "",
        ]
    lines += goals(results) + failures(results)
    return lines


def _comparison(results: dict, key: str) -> list[str]:
    ours, theirs = _median(results, "ti_notebook", key), _median(results, "taichi", key)
    ratio = f"{ours / theirs:.2f}" if ours and theirs else "-"
    rows = results["peers"]["ti_notebook"]["rows"]
    device = rows.get(key, {}).get("device") or {}
    taichi_device = results["peers"]["taichi"]["rows"].get(key, {}).get("device") or {}
    gbps = f"{device['gbps_device']:.0f}" if "gbps_device" in device else "-"
    return [ratio, _ms(device, "device_ms"), _ms(taichi_device, "device_ms"), gbps]


def goals(results: dict) -> list[str]:
    """The two goals: the sum at >= 80 % of the bandwidth, every row at or below Taichi."""
    lines = ["### Goals", ""]
    if results["mode"] == "fake":
        return lines + ["Not measured: fake device (SIMT emulator), no GPU figures.", ""]
    peak = results["device"].get("peak_gbps")
    sum_entry = results["peers"].get("ti_notebook", {}).get("rows", {}).get("sum", {})
    device = sum_entry.get("device") or {}
    if peak and "gbps_device" in device:
        share = device["gbps_device"] / peak
        wall = sum_entry.get("figure", {}).get("gbps")
        wall_text = f"; by wall time {wall / peak:.0%}" if wall else ""
        verdict = "met" if share >= SUM_GOAL else "NOT met"
        lines.append(
            f"- 8M f32 sum: {device['gbps_device']:.0f} GB/s on the device = {share:.0%} of "
            f"{peak:.0f} GB/s{wall_text} (goal >= {SUM_GOAL:.0%}): {verdict}"
        )
    else:
        lines.append("- 8M f32 sum: no figure (see Failures) or no bandwidth from the device")
    compared = [
        (key, ours, theirs)
        for key in results["order"]
        if (ours := _median(results, "ti_notebook", key))
        and (theirs := _median(results, "taichi", key))
    ]
    slower = [f"{key} ({ours / theirs:.2f}x)" for key, ours, theirs in compared if ours > theirs]
    every_row = len(compared) == len(results["order"])  # a missing figure is not a pass
    verdict = "met" if every_row and not slower else "NOT met"
    lines.append(
        f"- rows at or below Taichi's CUDA wall time: {len(compared) - len(slower)} of "
        f"{len(results['order'])} ({len(compared)} with both figures): {verdict}"
    )
    if slower:
        lines.append(f"- slower than Taichi: {', '.join(slower)}")
    wrong = _wrong_results(results, "taichi")
    if wrong and not any(_wrong_results(results, "ti_notebook")):
        lines.append(
            f"- no comparison where Taichi's own result was wrong (ti_notebook's was "
            f"right): {', '.join(wrong)}"
        )
    return lines + [""]


def _wrong_results(results: dict, peer: str) -> list[str]:
    """The rows whose result ``peer`` got wrong (its check failed, so it was not timed)."""
    rows = results["peers"].get(peer, {}).get("rows", {})
    return [key for key in results["order"] if "WrongResult" in rows.get(key, {}).get("error", "")]


def failures(results: dict) -> list[str]:
    """Every failed row of every peer with its traceback (trimmed), and the peers' notes."""
    lines = ["### Failures", ""]
    count = 0
    for peer, data in results["peers"].items():
        for note in data.get("notes", []):
            lines.append(f"- {NAMES.get(peer, peer)}: {note}")
        for crash in data.get("crashes", []):
            count += 1
            groups = ", ".join(crash["groups"])
            lines += [f"#### {NAMES.get(peer, peer)} process, groups {groups}: {crash['why']}"]
            lines += ["", "```", trim(crash["log"] or "(no output)"), "```", ""]
        for key, entry in data["rows"].items():
            for prefix, phase in (("", "wall-clock run"), ("device_", "CUDA-events run")):
                if f"{prefix}error" not in entry:
                    continue
                count += 1
                lines += [
                    f"#### {NAMES.get(peer, peer)} / {key} ({phase}): {entry[f'{prefix}error']}",
                    "",
                    "```",
                    trim(entry.get(f"{prefix}traceback") or "(no traceback)"),
                    "```",
                    "",
                ]
    if count == 0:
        lines.append("None: every row that ran matched NumPy.")
        lines.append("")
    return lines
