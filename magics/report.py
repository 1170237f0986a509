"""What a ``%%kernel`` cell prints: one line per kernel, and ``--show`` stages.

Everything comes from ``kernel.stages(...)`` and its ``report`` (DESIGN.md section 3):

    >>> report = {
    ...     "compile_time_s": 0.0123,
    ...     "cache": "miss",
    ...     "tasks": [
    ...         {"kind": "serial", "loop_config": {}},
    ...         {"kind": "struct_for", "field": "x", "loop_config": {"parallelize": 2},
    ...          "description": "parallel loop over the cells of x (dense 64)"},
    ...     ],
    ...     "passes": ["offload", "make_thread_local"],
    ... }
    >>> print(summary_line("fill", report))
    fill: compiled in 12.3 ms (cache miss)
      tasks: parallel loop over the cells of x (dense 64) [parallelize=2]; 1 serial
      passes: offload, make_thread_local
"""

from __future__ import annotations

import html
import json
import re
import textwrap

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers import GasLexer, JsonLexer, LlvmLexer, PythonLexer, TextLexer
from pygments.lexers.ptx import PtxLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text

from ti_notebook.magics.compile_split import slow_note

STAGES = (
    "ast",
    "ir",
    "ir_optimized",
    "annotate",  # the cell's lines with the IR each produced (magics/annotate_view.py)
    "llvm",
    "llvm_optimized",
    "asm",
    "ptx",
    "resources",  # CUDA: ptxas -v and the occupancy per block_dim
    "report",  # tables to read (magics/report_view.py)
    "report-json",  # the same report as JSON
    "layout",  # not a stage's text: the layout view (magics/layout_option.py)
)

# stages a CPU session shows by compiling the kernel for CUDA too (no device needed)
CUDA_STAGES = ("ptx", "resources")

_CACHE_TEXT = {
    "hit": "cache hit",
    "miss": "cache miss",
    "off": "cache off",
    "uncacheable": "not cacheable",
}


def task_text(task: dict) -> str:
    """What a task does, in the report's plain words, with its loop_config.

    >>> task_text({"kind": "range_for", "description": "parallel loop over i in [0, 8)",
    ...            "loop_config": {"block_dim": 64}})
    'parallel loop over i in [0, 8) [block_dim=64]'
    >>> task_text({"kind": "struct_for", "field": "x"})  # a report without descriptions
    'struct-for over x'
    """
    text = task.get("description")
    if not text:
        text = str(task.get("kind", "?")).replace("_", "-")
        if task.get("field"):
            text += f" over {task['field']}"
    config = task.get("loop_config") or {}
    if config:
        text += " [" + ", ".join(f"{k}={v}" for k, v in sorted(config.items())) + "]"
    return text


SUMMARY_WIDTH = 100  # an output area's width in characters, about


def summary_line(name: str, report: dict) -> str:
    """Compile (or cache load) time, cache status, tasks and passes fired: one line, or,
    when that would be wider than :data:`SUMMARY_WIDTH`, one line each, wrapped between
    words (an output area breaks a long line anywhere, even mid-word).

        >>> print(summary_line("k", {"compile_time_s": 0.002, "cache": "hit"}))
        k: loaded in 2.0 ms (cache hit) | tasks: none | passes: none
    """
    ms = 1000.0 * float(report.get("compile_time_s") or 0.0)
    cache = report.get("cache", "unknown")
    verb = "loaded" if cache == "hit" else "compiled"
    tasks = tasks_text(report.get("tasks", []))
    passes = ", ".join(report.get("passes") or []) or "none"
    head = f"{name}: {verb} in {ms:.1f} ms ({_CACHE_TEXT.get(cache, cache)})"
    line = f"{head} | tasks: {tasks} | passes: {passes}"
    slow = slow_note(report)  # a compile over a second says where its time went
    # the decision ignores the time's digits, so a re-run prints the same shape
    if len(line) - len(f"{ms:.1f}") + 5 <= SUMMARY_WIDTH:
        return line if slow is None else f"{line}\n{slow}"
    parts = [head] + [
        textwrap.fill(
            f"{label}: {text}",
            SUMMARY_WIDTH,
            initial_indent="  ",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        for label, text in (("tasks", tasks), ("passes", passes))
    ]
    return "\n".join(parts + ([slow] if slow is not None else []))


def tasks_text(tasks: list) -> str:
    """The parallel tasks in words, then how many serial ones run between them (the
    code around the loops: setup, bounds, results).

        >>> tasks_text([{"kind": "serial"}, {"kind": "range_for",
        ...             "description": "parallel loop over i in [0, 8)"}, {"kind": "serial"}])
        'parallel loop over i in [0, 8); 2 serial'
        >>> tasks_text([{"kind": "serial", "description": "serial code"}])
        'serial code'
        >>> tasks_text([])
        'none'
    """
    parallel = [task_text(t) for t in tasks if t.get("kind") != "serial"]
    serial = len(tasks) - len(parallel)
    if not parallel:
        return "serial code" if serial else "none"
    return "; ".join(parallel) + (f"; {serial} serial" if serial else "")


def deferred_line(name: str) -> str:
    """The line for a kernel that compiles at its first call."""
    return (
        f"{name}: compiles at its first call (template or untyped ndarray arguments decide "
        f"its types)"
    )


class IrLexer(RegexLexer):
    """Highlights ti_notebook IR as ``ir/printer.py`` writes it."""

    name = "ti_notebook IR"
    aliases = ["ti-ir"]
    tokens = {
        "root": [
            (r"#.*$", Comment),
            (r"\$\d+", Name.Variable),
            (r"\b[iuf](8|16|32|64)\b", Keyword.Type),
            (r"^(\s*)(prologue|body|epilogue|else|then)(:)", bygroups(Text, Keyword, Punctuation)),
            (r"\b(offloaded|range_for|struct_for|serial|if|while|return|const|arg)\b", Keyword),
            (r"'[^']*'|\"[^\"]*\"", String),
            (r"-?\d+(\.\d+)?([eE][-+]?\d+)?", Number),
            (r"[=:+,{}\[\]()]|\.\.", Operator),
            (r"[A-Za-z_][A-Za-z_0-9]*", Name),
            (r"\s+", Text),
            (r".", Text),
        ]
    }


_LEXERS = {
    "ast": PythonLexer,
    "ir": IrLexer,
    "ir_optimized": IrLexer,
    "llvm": LlvmLexer,
    "llvm_optimized": LlvmLexer,
    "asm": GasLexer,
    "ptx": PtxLexer,
    "report-json": JsonLexer,
}


def stage_text(stages, stage: str) -> str | None:
    """The text of ``stage`` (``report`` and ``report-json`` as JSON); None when this kernel
    has no such stage."""
    if stage in ("report", "report-json"):
        return json.dumps(dict(stages["report"]), indent=2, sort_keys=True, default=str)
    if stage not in stages:
        return None
    text = stages[stage]
    return None if text is None else str(text)


def stage_bundle(name: str, stage: str, text: str) -> dict:
    """A mime bundle: highlighted HTML (inline styles, so exports keep colours) in a
    ``<details>`` that folds and scrolls (open when short), + plain text."""
    text = readable_symbols(text)
    lexer = _LEXERS.get(stage, TextLexer)()
    body = highlight(text, lexer, HtmlFormatter(noclasses=True, style="default"))
    count = text.count("\n") + 1
    title = f"<b>{html.escape(name)}</b> &middot; {html.escape(stage)} ({count} lines)"
    opened = " open" if count <= 60 else ""
    scroll = f'<div style="max-height:32em;overflow:auto">{body}</div>'
    folded = f'<details class="ti-stage"{opened}><summary>{title}</summary>{scroll}</details>'
    return {
        "text/html": folded,
        "text/plain": f"--- {name} · {stage} ---\n{text.rstrip()}\n",
    }


# tin_<kernel>_<24 hex of the cache key>[_n]_ or tin_<kernel>_<n>_ : the unique symbol
# prefix of one compilation, unreadable in a listing
_SYMBOL_PREFIX = re.compile(
    r"\btin_([A-Za-z0-9_]+?)_(?:[0-9a-f]{24}(?:_\d+)?|\d+)"
    r"_((?:entry|run|task|snapshot|dynamic_shared|sign|format)\w*)"
)


def readable_symbols(text: str) -> str:
    """``tin_fill_9f2c…e1_task0`` → ``fill.task0`` (display only; the code keeps its names).

    >>> readable_symbols('call @"tin_fill_0123456789abcdef01234567_task0"(ptr %0)')
    'call @"fill.task0"(ptr %0)'
    """
    return _SYMBOL_PREFIX.sub(r"\1.\2", text)
