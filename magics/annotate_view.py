"""``%%kernel --show annotate``: the cell's source with what each line compiled to.

Cython's ``--annotate`` is the model. Each source line of a kernel is shaded by how many
optimised IR statements it produced (``kernel.stages()["annotate"]``,
``compiler/line_map.py``), says in a few words what the passes left there (an atomic, a
bounds check, a register instead of memory, a thread-local sum), and opens (a
``<details>``) to the statements themselves. Lines of ``ti.func`` s from other cells
follow under their cell's name. The plain-text form lists the same, one line each.

The code keeps its indentation (``white-space: pre``, left-aligned: notebook styles
right-align table cells) and a legend says what the shading and the notes mean. A
stage loaded from the offline cache names the cell that first compiled it; when the
running cell holds the same lines (perhaps moved), :func:`in_cell` names that cell
instead.

    >>> data = {"kernel": "k", "lines": [{"file": "c.py", "line": 2,
    ...     "source": "    x[i] += 1", "ir": ["$1 : f32 = atomic_add $0, $2"]}]}
    >>> print(annotate_bundle(json.dumps(data), lambda f: "Cell In[3]")["text/plain"], end="")
    --- k · annotate (Cell In[3]) ---
       2   1 |     x[i] += 1    [atomic]
    (line, IR statements | source    [what the passes left there])
"""

from __future__ import annotations

import html
import json
import linecache
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


LEGEND = (
    "shade: how many optimised IR statements the line produced (darker: more); "
    "click a line's count for the statements. Notes: atomic = an atomic read-modify-write "
    "stayed; thread-local = accumulated per thread, combined once; in a register = a "
    "local instead of memory; bounds check = an index check the compiler could not prove "
    "away; load/store = plain memory accesses."
)

PLAIN_LEGEND = "(line, IR statements | source    [what the passes left there])"


def in_cell(entries: list[dict], filename: str | None) -> list[dict]:
    """``entries`` with the lines of another file that ``filename`` holds too, the same
    text at a common shift, moved to ``filename`` (a stage cached from an earlier cell).

        >>> import linecache
        >>> linecache.cache["<new>"] = (0, None, ["\\n", "def f():\\n", "    x = 1\\n"], "<new>")
        >>> old = [{"file": "<old>", "line": 5, "source": "    x = 1", "ir": []}]
        >>> [(e["file"], e["line"]) for e in in_cell(old, "<new>")]
        [('<new>', 3)]
    """
    if not filename:
        return entries
    mine = [line.rstrip("\n") for line in linecache.getlines(filename)]
    out = list(entries)
    for other in dict.fromkeys(e["file"] for e in entries if e["file"] != filename):
        theirs = [e for e in entries if e["file"] == other]
        shift = _shift(theirs, mine)
        if shift is None:
            continue
        moved = {id(e): dict(e, file=filename, line=e["line"] + shift) for e in theirs}
        out = [moved.get(id(e), e) for e in out]
    return out


def _shift(entries: list[dict], lines: list[str]) -> int | None:
    """The shift that puts every entry's text on a line of ``lines`` with that text."""
    first = entries[0]
    for number, text in enumerate(lines, start=1):
        if text != first["source"]:
            continue
        shift = number - first["line"]
        if all(
            0 < e["line"] + shift <= len(lines) and lines[e["line"] + shift - 1] == e["source"]
            for e in entries
        ):
            return shift
    return None


def annotate_bundle(
    stage_json: str, place: Callable[[str], str], cell_file: str | None = None
) -> dict:
    """text/html (shaded, expandable lines, a legend) and text/plain for one kernel;
    ``cell_file`` is the running cell's file (see :func:`in_cell`)."""
    data = json.loads(stage_json or '{"kernel": "?", "lines": []}')
    name = data["kernel"]
    entries = sorted(in_cell(data["lines"], cell_file), key=lambda e: (e["file"], e["line"]))
    files = list(dict.fromkeys(entry["file"] for entry in entries))
    most = max((len(entry["ir"]) for entry in entries), default=1)
    plain, rows = [], []
    for filename in files:
        where = place(filename)
        plain.append(f"--- {name} · annotate ({where}) ---")
        rows.append(f'<tr><td colspan="3" style="{_TD}"><b>{html.escape(where)}</b></td></tr>')
        for entry in (e for e in entries if e["file"] == filename):
            count = len(entry["ir"])
            notes = entry["notes"] if "notes" in entry else notes_of(entry["ir"])
            said = f"    [{', '.join(notes)}]" if notes else ""
            plain.append(f"{entry['line']:4d} {count:3d} | {entry['source']}{said}")
            rows.append(_row(entry, count, notes, most))
    plain.append(PLAIN_LEGEND)
    table = (
        '<table class="ti-annotate" style="font-family:monospace;border-collapse:collapse;'
        'margin:0;text-align:left">' + "".join(rows) + "</table>"
    )
    title = f"<b>{html.escape(name)}</b> &middot; annotate"
    legend = f'<div style="color:#888;margin-top:4px;max-width:60em">{html.escape(LEGEND)}</div>'
    body = f'<div style="max-height:36em;overflow:auto">{table}</div>{legend}'
    return {
        "text/html": f'<details class="ti-stage" open><summary>{title}</summary>{body}</details>',
        "text/plain": "\n".join(plain) + "\n",
    }


# every cell styled here: JupyterLab's own table style right-aligns and pads cells
_TD = "text-align:left;vertical-align:top;border:none;padding:0 6px"


def _row(entry: dict, count: int, notes: list[str], most: int) -> str:
    shade = 0.08 + 0.5 * count / max(most, 1)
    source = html.escape(entry["source"]) or "&nbsp;"
    code = html.escape("\n".join(entry["ir"]))
    summary = f"{count} IR" + (f" · {html.escape(', '.join(notes))}" if notes else "")
    return (
        f'<tr><td style="{_TD};color:#888;text-align:right">{entry["line"]}</td>'
        f'<td style="{_TD};white-space:pre;background:rgba(255,152,0,{shade:.2f})">'
        f"{source}</td>"
        f'<td style="{_TD}"><details><summary>{summary}</summary>'
        f'<pre style="margin:0;text-align:left">{code}</pre></details></td></tr>'
    )
