"""The name a field is assigned to (``x`` in ``x = ti.field(...)``), for errors and pictures.

The caller's frame says which call is running: Python 3.11's code positions give the
call's line and column, and the statement around it is found in the parsed source. So
``a = ti.field(ti.f32); b = ti.field(ti.f32)`` names ``a`` and ``b``, and so does
``a, b = ti.field(ti.f32), ti.field(ti.f32)``. A call nested in a bigger expression
(``r = [ti.field(ti.f32) for _ in range(3)]``) takes the assignment's single name.

    >>> import sys
    >>> def made_here():
    ...     return assigned_name(sys._getframe(1))
    >>> first, second = made_here(), made_here()
    >>> first, second
    ('first', 'second')
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
from types import FrameType

_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]")


def assigned_name(frame: FrameType) -> str:
    """The target the running call of ``frame`` is assigned to; "" when there is none."""
    code = frame.f_code
    lines = linecache.getlines(code.co_filename)
    position = _call_position(frame)
    if position is not None and lines:
        tree = _parse("".join(lines))
        if tree is not None:
            return _name_in(tree, *position)
    # No positions or no parsable source: the line's leading "name =", if any.
    match = _ASSIGNMENT.match(linecache.getline(code.co_filename, frame.f_lineno))
    return match.group(1) if match else ""


def _call_position(frame: FrameType) -> tuple[int, int] | None:
    """(line, column) where the expression of the frame's current instruction starts."""
    try:
        positions = list(frame.f_code.co_positions())
        line, _end_line, column, _end_column = positions[frame.f_lasti // 2]
    except (AttributeError, IndexError):
        return None
    if line is None or column is None:
        return None
    return line, column


@functools.lru_cache(maxsize=16)
def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:  # source changed on disk since it ran, or not Python
        return None


def _name_in(tree: ast.Module, line: int, column: int) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if _starts_at(value, line, column):
            return _target_name(targets[0])
        if isinstance(value, ast.Tuple):
            for k, element in enumerate(value.elts):
                if _starts_at(element, line, column):
                    return _element_name(targets[0], k, len(value.elts))
        if _contains(value, line, column):
            return _target_name(targets[0])
    return ""


def _target_name(target: ast.expr) -> str:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):  # self.x = ti.field(...)
        return target.attr
    return ""


def _element_name(target: ast.expr, k: int, count: int) -> str:
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == count:
        return _target_name(target.elts[k])
    return ""


def _starts_at(node: ast.expr, line: int, column: int) -> bool:
    return isinstance(node, ast.Call) and (node.lineno, node.col_offset) == (line, column)


def _contains(node: ast.expr, line: int, column: int) -> bool:
    return any(_starts_at(inner, line, column) for inner in ast.walk(node))
