"""Short error reports for ``%%kernel`` cells: the cell's line, a caret and a hint.

A failing cell raises :class:`KernelCellError`, whose ``_render_traceback_`` gives IPython
the lines to show instead of a traceback through the magic and the compiler. A
ti_notebook error shows its message, the cell line and column, the caret and the hint;
any other error shows IPython's usual traceback, cut to start at the cell's own frame.
``TI_DEBUG=1`` turns all of this off: the original exception propagates with every frame.

    >>> from ti_notebook.errors import SourcePos, TiTypeError
    >>> pos = SourcePos("<cell>", 3, 8, 11, "    x = 1 + 'a'", "f")
    >>> error = TiTypeError("cannot add i32 and str", pos, hint="use a number")
    >>> print("\\n".join(ti_error_lines(error, lambda name: name)))
    TiTypeError: Kernel 'f': cannot add i32 and str
      <cell>, line 3, column 9, in f
        x = 1 + 'a'
            ^^^
    hint: use a number
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable

from ti_notebook.errors import TiError, located_text


def debug_enabled() -> bool:
    """True when ``TI_DEBUG`` asks for full tracebacks (any value but "", "0")."""
    return os.environ.get("TI_DEBUG", "") not in ("", "0")


class KernelCellError(Exception):
    """A ``%%kernel`` cell failed; IPython shows :attr:`lines` instead of a traceback.

    The class a cell actually raises is a subclass named after the original error
    (``TiTypeError``, ``NameError``...), so the notebook's error output carries that name;
    the original exception is :attr:`original`.
    """

    def __init__(self, original: BaseException, lines: list[str]) -> None:
        super().__init__(str(original))
        self.original = original
        self.lines = lines

    def _render_traceback_(self) -> list[str]:
        return self.lines


@functools.cache
def _named(name: str) -> type[KernelCellError]:
    return type(name, (KernelCellError,), {"__module__": __name__})


def cell_error(original: BaseException, lines: list[str]) -> KernelCellError:
    """The exception a cell raises for ``original``, rendered as ``lines``."""
    return _named(type(original).__name__)(original, lines)


def ti_error_lines(error: TiError, place: Callable[[str], str]) -> list[str]:
    """A ti_notebook error as short lines; ``place(filename)`` names the cell."""
    text = located_text(error.message, error.pos, error.hint, error.kernel_name, place)
    lines = text.splitlines()
    lines[0] = f"{type(error).__name__}: {lines[0]}"
    return lines


def python_error_lines(shell, error: BaseException, filename: str) -> list[str]:
    """IPython's traceback for ``error``, starting at the first frame of ``filename``."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if isinstance(error, SyntaxError):
        return shell.SyntaxTB.structured_traceback(type(error), error, [])
    try:
        return shell.InteractiveTB.structured_traceback(
            type(error), error, tb or error.__traceback__
        )
    except Exception:  # a formatter bug must not hide the user's error
        return traceback.format_exception(type(error), error, tb)


def internal_error_lines(error: BaseException, kernel_name: str, where: str) -> list[str]:
    """A compiler failure that is not a user error: one line and how to see more."""
    return [
        f"{type(error).__name__} while compiling kernel '{kernel_name}' ({where}): {error}",
        "this is a ti_notebook bug; set TI_DEBUG=1 to see the compiler's traceback",
    ]
