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
            lines, first_lineno = _fast_source_lines(func) or inspect.getsourcelines(func)
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


def _fast_source_lines(func) -> tuple[list[str], int] | None:
    """The function's lines by indentation, without ``inspect``'s tokenizer.

    ``inspect.getsourcelines`` tokenizes, which costs ~10 ms in a fresh process - most
    of a warm offline-cache start. The block is the first line (decorator or ``def``)
    and every following line indented deeper (blank and comment lines included); the
    result must parse to a function of the right name, else None (use ``inspect``).
    """
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    lines = linecache.getlines(code.co_filename)
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    end, in_header = start + 1, not lines[start].lstrip().startswith(("def ", "async def "))
    while end < len(lines):
        stripped = lines[end].strip()
        deeper = len(lines[end]) - len(lines[end].lstrip()) > indent
        if stripped and not stripped.startswith("#") and not deeper:
            if not in_header:
                break
            in_header = not stripped.startswith(("def ", "async def "))
        end += 1
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip()[0] == "#"):
        end -= 1
    block = lines[start:end]
    try:
        tree = ast.parse(textwrap.dedent("".join(block)))
    except SyntaxError:
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1 or defs[0].name != func.__name__:
        return None
    return block, start + 1


def source_of(decorated) -> FunctionSource:
    """The parsed source of a ``@ti.kernel``/``@ti.func`` object, read once and kept on
    it (a bound func shares its unbound func's). Parsing is the frontend's work: the
    objects themselves (``lang/func.py``) only hold the result, so ``lang`` imports no
    frontend.

        >>> import ti_notebook as ti
        >>> @ti.func
        ... def twice(v):
        ...     return 2 * v
        >>> source_of(twice) is source_of(twice), source_of(twice).name
        (True, 'twice')
    """
    owner = getattr(decorated, "unbound", decorated)
    if owner._source is None:
        owner._source = FunctionSource.of(owner.func)
    return owner._source
