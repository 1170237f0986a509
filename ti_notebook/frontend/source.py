"""A kernel's or func's source text, parsed, with positions mapped back to the file.

Sources come from ``inspect``/``linecache``; notebook cells register theirs in
``linecache`` (IPython does, and so does ``%%kernel``), so this always works.

    >>> def f(x):
    ...     return x + 1
    >>> src = FunctionSource.of(f)
    >>> src.name, src.tree.body[0].name
    ('f', 'f')
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import inspect
import linecache
import textwrap

from ti_notebook.errors import SourcePos, TiSyntaxError


@dataclasses.dataclass
class FunctionSource:
    """Parsed source of one Python function, plus how to map AST positions back."""

    func: object
    name: str
    filename: str
    first_lineno: int  # file line of the source's first line (a decorator, maybe)
    text: str  # dedented source
    indent: int  # columns removed by dedenting
    tree: ast.Module

    @classmethod
    def of(cls, func) -> FunctionSource:
        func = inspect.unwrap(func)
        filename = func.__code__.co_filename
        try:
            lines, first_lineno = inspect.getsourcelines(func)
        except (OSError, TypeError) as exc:
            raise TiSyntaxError(
                f"cannot read the source of '{func.__name__}' ({exc})",
                hint="kernels must be defined in a file or a notebook cell, not in exec()",
            ) from None
        raw = "".join(lines)
        text = textwrap.dedent(raw)
        first = next((ln for ln in lines if ln.strip()), "")
        indent = len(first) - len(first.lstrip())
        tree = ast.parse(text)
        return cls(func, func.__name__, filename, first_lineno, text, indent, tree)

    @property
    def function_def(self) -> ast.FunctionDef:
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        raise TiSyntaxError(f"no function definition found in the source of '{self.name}'")

    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def pos(self, node: ast.AST | None, kernel_name: str) -> SourcePos | None:
        """The file position of ``node`` (its line text read from the file)."""
        if node is None or not hasattr(node, "lineno"):
            return None
        lineno = self.first_lineno + node.lineno - 1
        line = linecache.getline(self.filename, lineno).rstrip("\n")
        if not line:
            line = self.text.splitlines()[node.lineno - 1] if node.lineno else ""
            shift = 0
        else:
            shift = self.indent
        col = node.col_offset + shift
        end_lineno = getattr(node, "end_lineno", node.lineno)
        end_col = (node.end_col_offset or col) + shift if end_lineno == node.lineno else len(line)
        return SourcePos(self.filename, lineno, col, end_col, line, kernel_name)
