"""Running a ``%%kernel`` cell's Python: source registered, statements in order, defs → kernels.

The cell's text, with the ``%%kernel`` line as its line 1, goes into IPython's compiler
cache (and so ``linecache``) under a name IPython shows as ``Cell In[N]``. The body is
parsed with one blank line in front, so every position - in Python tracebacks and in the
kernel compiler's error carets - is the line the user sees in the cell.

Top-level statements run one by one in the user namespace. Right after a top-level
``def`` runs, a plain function becomes a kernel (``ti.kernel``); ``@ti.func`` and
``@ti.kernel`` objects stay what they are. So statements above a ``def`` run before its
kernel is made, and statements below it may launch it.

    >>> import ast
    >>> parse_body("def f():\\n    pass\\n", "<cell>").body[0].lineno
    2
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
import types
from collections.abc import Callable

import ti_notebook as ti


@dataclasses.dataclass
class CellRun:
    """What a cell made: its kernels and funcs by name (definition order) and its value."""

    filename: str
    kernels: dict = dataclasses.field(default_factory=dict)  # name -> ti.Kernel
    funcs: dict = dataclasses.field(default_factory=dict)  # name -> ti.Func
    value: object = None


def register_source(shell, line: str, cell: str) -> str:
    """Caches the cell's text (magic line first) with IPython; returns its filename."""
    text = f"%%kernel {line}".rstrip() + "\n" + cell
    if not text.endswith("\n"):
        text += "\n"
    return shell.compile.cache(text, cell_number(shell))


def cell_number(shell) -> int:
    """The ``N`` of the running cell's ``In[N]``.

    IPython 9 counts up before a cell runs, older versions after, so the number is read
    from the nearest calling frame whose code IPython cached as a cell.
    """
    frame = sys._getframe(1)
    while frame is not None:
        label = shell.compile.format_code_name(frame.f_code.co_filename)
        digits = re.search(r"\d+", label[1]) if label else None
        if digits:
            return int(digits.group())
        frame = frame.f_back
    return shell.execution_count


def parse_body(cell: str, filename: str) -> ast.Module:
    """The cell body's AST, numbered as the cell shows it (the body starts at line 2)."""
    return ast.parse("\n" + cell, filename)


def run_body(
    shell,
    module: ast.Module,
    filename: str,
    configure: Callable[[ti.Kernel], object],
    before: Callable[[ast.AST, CellRun], object] | None = None,
) -> CellRun:
    """Runs the statements of ``module`` in the user namespace, making kernels as it goes.

    ``configure`` is applied to every kernel the cell defines, before any statement can
    launch it; ``before(statement, run)`` is called before each statement that is not a
    ``def`` (and the trailing expression) runs. A trailing expression's value is the
    run's ``value`` (IPython shows it).
    """
    namespace = shell.user_ns
    run = CellRun(filename)
    body = list(module.body)
    last_expr = body.pop() if body and isinstance(body[-1], ast.Expr) else None
    for stmt in body:
        is_def = isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if before is not None and not is_def:
            before(stmt, run)
        code = compile(ast.Module(body=[stmt], type_ignores=[]), filename, "exec")
        exec(code, shell.user_global_ns, namespace)  # noqa: S102 - the user's own cell
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _adopt(namespace, stmt.name, run, configure)
    if last_expr is not None:
        if before is not None:
            before(last_expr, run)
        code = compile(ast.Expression(body=last_expr.value), filename, "eval")
        run.value = eval(code, shell.user_global_ns, namespace)  # noqa: S307 - the user's cell
    return run


def _adopt(namespace: dict, name: str, run: CellRun, configure) -> None:
    value = namespace.get(name)
    if isinstance(value, types.FunctionType):
        value = ti.kernel(value)
        namespace[name] = value
    if isinstance(value, ti.Kernel):
        configure(value)
        run.funcs.pop(name, None)
        run.kernels.pop(name, None)  # a redefinition in the same cell moves to the end
        run.kernels[name] = value
    elif isinstance(value, ti.Func):
        run.kernels.pop(name, None)
        run.funcs[name] = value
