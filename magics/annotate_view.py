"""``%%kernel --show annotate``: the cell's source with what each line compiled to.

Cython's ``--annotate`` is the model. Each source line of a kernel is shaded by how many
optimised IR statements it produced (``kernel.stages()["annotate"]``,
``compiler/line_map.py``), says in a few words what the passes left there (an atomic, a
bounds check, a register instead of memory, a thread-local sum), and opens (a
``<details>``) to the statements themselves. Lines of ``ti.func`` s from other cells
follow under their cell's name. The plain-text form lists the same, one line each.

    >>> data = {"kernel": "k", "lines": [{"file": "c.py", "line": 2,
    ...     "source": "    x[i] += 1", "ir": ["$1 : f32 = atomic_add $0, $2"]}]}
    >>> print(annotate_bundle(json.dumps(data), lambda f: "Cell In[3]")["text/plain"])
    --- k · annotate (Cell In[3]) ---
       2   1 |     x[i] += 1    [atomic]
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

# what an IR statement's text says about the line, in a few words
_NOTES = (
    ("atomic_", "atomic"),
    ("assert", "bounds check"),
    ("promoted_", "in a register"),
    ("tls_", "thread-local"),
    ("globalstore", "store"),
    ("globalload", "load"),
)


def notes_of(ir_lines: list[str]) -> list[str]:
    """The few words for a line's statements (each kind once, in a fixed order)."""
    text = "\n".join(ir_lines)
    found = [word for key, word in _NOTES if key in text]
    if "atomic" in found:  # an atomic is a load and a store: say only the atomic
        found = [w for w in found if w not in ("load", "store")]
    return found


def annotate_bundle(stage_json: str, place: Callable[[str], str]) -> dict:
    """text/html (shaded, expandable lines) and text/plain for one kernel."""
    data = json.loads(stage_json or '{"kernel": "?", "lines": []}')
    name, entries = data["kernel"], data["lines"]
    files = list(dict.fromkeys(entry["file"] for entry in entries))
    most = max((len(entry["ir"]) for entry in entries), default=1)
    plain, rows = [], []
    for filename in files:
        where = place(filename)
        plain.append(f"--- {name} · annotate ({where}) ---")
        rows.append(f'<tr><td colspan="3"><b>{html.escape(where)}</b></td></tr>')
        for entry in (e for e in entries if e["file"] == filename):
            count = len(entry["ir"])
            notes = entry["notes"] if "notes" in entry else notes_of(entry["ir"])
            said = f"    [{', '.join(notes)}]" if notes else ""
            plain.append(f"{entry['line']:4d} {count:3d} | {entry['source']}{said}")
            rows.append(_row(entry, count, notes, most))
    table = (
        '<table class="ti-annotate" style="font-family:monospace;border-collapse:collapse">'
        + "".join(rows)
        + "</table>"
    )
    title = f"<b>{html.escape(name)}</b> &middot; annotate"
    body = f'<div style="max-height:36em;overflow:auto">{table}</div>'
    return {
        "text/html": f'<details class="ti-stage" open><summary>{title}</summary>{body}</details>',
        "text/plain": "\n".join(plain) + "\n",
    }


def _row(entry: dict, count: int, notes: list[str], most: int) -> str:
    shade = 0.08 + 0.5 * count / max(most, 1)
    source = html.escape(entry["source"]) or "&nbsp;"
    code = html.escape("\n".join(entry["ir"]))
    summary = f"{count} IR" + (f" · {html.escape(', '.join(notes))}" if notes else "")
    return (
        f'<tr><td style="color:#888;padding-right:8px;text-align:right">{entry["line"]}</td>'
        f'<td style="white-space:pre;background:rgba(255,152,0,{shade:.2f});padding:0 6px">'
        f"{source}</td>"
        f'<td style="padding-left:8px"><details><summary>{summary}</summary>'
        f'<pre style="margin:0">{code}</pre></details></td></tr>'
    )
