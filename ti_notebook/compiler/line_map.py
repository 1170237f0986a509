"""Which optimised IR statements each source line produced: ``kernel.stages()["annotate"]``.

Every IR statement keeps the source position it came from (a ``ti.func`` inlined from
another cell keeps its own). Grouped by line, the statements left after the passes say
what a line costs and what the passes did there: a ``+=`` that stayed ``atomic_add``, or
became a load, an add and a store (``demote_atomics``), or a local (``tls_acc``,
``promoted_y``), a bounds ``assert`` that was not proven away. ``%%kernel --show
annotate`` draws it beside the cell (magics/annotate_view.py). The stage is JSON::

    {"kernel": "fill", "lines": [{"file": ..., "line": 4, "source": "    x[i] = v",
                                  "ir": ["$7 : f32 = ...", ...]}, ...]}

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import i32
    >>> from ti_notebook.errors import SourcePos
    >>> block = ir.Block()
    >>> const = block.append(ir.ConstStmt(1, i32))
    >>> const.pos = SourcePos("cell.py", 3, 4, 5, "    x = 1")
    >>> json.loads(line_map(KernelIR("k", block)))["lines"][0]["ir"]
    ['$... : i32 = const 1']
"""

from __future__ import annotations

import json
import linecache

from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.printer import format_stmt

# the words for what a statement means, in the order a line lists them
NOTE_ORDER = ("atomic", "thread-local", "in a register", "bounds check", "load", "store")


def line_map(kernel: KernelIR) -> str:
    """The annotate stage of ``kernel`` (after its passes), as JSON text."""
    lines: dict[tuple[str, int], list[str]] = {}
    notes: dict[tuple[str, int], set] = {}
    for stmt in kernel.block.walk():
        pos = stmt.pos
        if pos is None or not pos.filename:
            continue
        where = (pos.filename, pos.lineno)
        lines.setdefault(where, []).append(format_stmt(stmt))
        note = _note(stmt)
        if note:
            notes.setdefault(where, set()).add(note)
    entries = [
        {
            "file": filename,
            "line": lineno,
            "source": linecache.getline(filename, lineno).rstrip("\n"),
            "ir": texts,
            "notes": [n for n in NOTE_ORDER if n in notes.get((filename, lineno), ())],
        }
        for (filename, lineno), texts in sorted(lines.items())
    ]
    return json.dumps({"kernel": kernel.name, "lines": entries})


def _local_name(stmt: ir.Stmt) -> str:
    return stmt.name if isinstance(stmt, ir.AllocaStmt) else ""


def _note(stmt: ir.Stmt) -> str | None:
    """What one statement says about its line, if anything worth a word."""
    if isinstance(stmt, ir.AtomicOpStmt):
        local = _local_name(stmt.dest)
        if local.startswith("tls_"):
            return "thread-local"
        return None if local else "atomic"
    if isinstance(stmt, (ir.LocalLoadStmt, ir.LocalStoreStmt)):
        local = _local_name(stmt.alloca)
        if local.startswith("tls_"):
            return "thread-local"
        return "in a register" if local.startswith("promoted_") else None
    if isinstance(stmt, ir.AssertStmt) and getattr(stmt, "kind", "") in ("bounds", "bounds_offset"):
        return "bounds check"
    if isinstance(stmt, ir.GlobalLoadStmt):
        return "load"
    if isinstance(stmt, ir.GlobalStoreStmt):
        return "store"
    return None
