"""What a task does, in plain words: the report's ``description`` of each task.

The report, the magic's summary and the profiler name tasks by what they run, not by
the compiler's words for them (``struct_for`` over ``pointer(i,j)``):

    >>> describe("serial")
    'serial code'
    >>> describe("range_for", loop="i in range(1024)", span=(0, 1024))
    'parallel loop over i in [0, 1024)'
    >>> describe("range_for", loop="i, j in ti.ndrange(n, 8)")
    'parallel loop over i, j in ti.ndrange(n, 8)'
    >>> describe("struct_for", subject="x", levels="dense 64x64")
    'parallel loop over the cells of x (dense 64x64)'
    >>> describe("struct_for", subject="x", levels="pointer 16x16, dense 8x8", sparse=True)
    'parallel loop over the active cells of x (pointer 16x16, dense 8x8)'
"""

from __future__ import annotations

import ast
import re

_SPARSE = ("pointer", "bitmasked", "dynamic", "hash")


def describe(
    kind: str,
    *,
    subject: str | None = None,
    levels: str | None = None,
    sparse: bool = False,
    loop: str | None = None,
    span: tuple | None = None,
) -> str:
    """The words for one task (see the module's examples); ``loop`` is the loop's
    header as written (``i in range(n)``), ``span`` its ``[begin, end)`` when known."""
    if kind == "serial":
        return "serial code"
    if kind == "struct_for":
        cells = "active cells" if sparse else "cells"
        text = f"parallel loop over the {cells} of {subject or 'a field'}"
        return f"{text} ({levels})" if levels else text
    known = span is not None and None not in span
    if loop is not None:
        targets, _, iterated = loop.partition(" in ")
        if known and iterated.startswith("range("):
            return f"parallel loop over {targets} in [{span[0]}, {span[1]})"
        return f"parallel loop over {loop}"
    if known:
        return f"parallel loop over [{span[0]}, {span[1]})"
    return "parallel loop over a range known when it runs"


def loop_header(line_text: str) -> str | None:
    """``i in range(n)`` from a loop's source line ``for i in range(n):``, or None.

    >>> loop_header("    for I in ti.grouped(x):  # all cells"), loop_header("x = 1")
    ('I in ti.grouped(x)', None)
    >>> loop_header("for i, j in ti.ndrange(4, 8):")
    'i, j in ti.ndrange(4, 8)'
    """
    try:
        node = ast.parse(line_text.strip() + "\n    pass").body[0]
    except SyntaxError:  # a header over several lines: the range's words only
        return None
    if not isinstance(node, ast.For):
        return None
    target = node.target
    parts = target.elts if isinstance(target, ast.Tuple) else [target]  # i, j: no parens
    return f"{', '.join(ast.unparse(p) for p in parts)} in {ast.unparse(node.iter)}"


def subject_of(ref) -> str:
    """How the user names what a struct-for visits: ``x``, ``vector field w`` (not its
    component ``w[0]``), ``the pointer level pointer(i,j)``."""
    label = getattr(ref, "label", None)
    if label is None:  # an SNode level (for I in node)
        return f"the {ref.kind} level {ref.name}"
    found = re.fullmatch(r"(.*?)\s*'(.+)'", label)
    if not found:
        return ref.name
    kind, name = found.groups()
    return name if kind == "field" else f"{kind} {name}"


def levels_of(ref) -> tuple[str, bool]:
    """(``pointer 16x16, dense 8x8``: each level's kind and its cells per parent cell,
    whether any level is sparse)."""
    path = getattr(ref, "path", None) or (ref,)
    words, outer = [], None
    for node in path:
        shape = tuple(node.shape)
        own = shape
        if outer is not None and len(outer) == len(shape) and all(shape):
            ratios = [
                s // o if o and s % o == 0 else None for s, o in zip(shape, outer, strict=True)
            ]
            own = shape if None in ratios else tuple(ratios)
        words.append(f"{node.kind} {'x'.join(str(s) for s in own) or '1'}")
        outer = shape
    return ", ".join(words), any(node.kind in _SPARSE for node in path)
