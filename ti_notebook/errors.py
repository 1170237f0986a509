"""Every error a user can cause, in one place.

Each class also subclasses the matching built-in (``SyntaxError``, ``NameError``,
``TypeError``, ``IndexError``) so ``except TypeError`` keeps working. An error made
while compiling or running a kernel knows where it happened and prints it like Python
does, with the offending line, a caret and a hint:

    >>> from ti_notebook.errors import SourcePos, TiTypeError
    >>> pos = SourcePos("demo.py", 3, 8, 11, "    x = 1 + 'a'", "f")
    >>> print(TiTypeError("cannot add i32 and str", pos, hint="use a number"))
    Kernel 'f': cannot add i32 and str
      File "demo.py", line 3, column 9, in f
        x = 1 + 'a'
            ^^^
    hint: use a number
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


_place_namers: list = []  # callables filename -> display name or None (newest first)
_namer_keys: list = []  # what each namer stands for: setting one again replaces it


def set_place_namer(namer, key: object = None) -> None:
    """Lets the notebook layer name source files: IPython's ``Cell In[7]`` instead of
    ipykernel's temporary file (``/tmp/ipykernel_123/456.py``) in every message.

        >>> set_place_namer(lambda f: "Cell In[7]" if f.endswith("456.py") else None)
        >>> place_of("/tmp/ipykernel_1/456.py"), place_of("a.py")
        ('Cell In[7]', 'File "a.py"')
        >>> _place_namers.clear(); _namer_keys.clear()
    """
    if key is not None and key in _namer_keys:
        k = _namer_keys.index(key)
        del _place_namers[k], _namer_keys[k]
    _place_namers.insert(0, namer)
    _namer_keys.insert(0, key)


def place_of(filename: str) -> str:
    """How messages name ``filename``: a namer's answer, else ``File "<filename>"``."""
    for namer in _place_namers:
        try:
            name = namer(filename)
        except Exception:  # a namer must never hide the error being reported
            name = None
        if name:
            return name
    return f'File "{filename}"'


@dataclass(frozen=True)
class SourcePos:
    """A place in user source: 1-based line, 0-based columns [col, end_col)."""

    filename: str
    lineno: int
    col: int
    end_col: int
    line_text: str
    kernel_name: str = ""

    def caret_block(self) -> str:
        stripped = self.line_text.lstrip()
        indent = len(self.line_text) - len(stripped)
        start = max(self.col - indent, 0)
        end_col = self.end_col if self.end_col > self.col else self.col + 1
        width = max(min(end_col, len(self.line_text)) - self.col, 1)
        return f"    {stripped.rstrip()}\n    {' ' * start}{'^' * width}"


def headline(kernel_name: str, message: str) -> str:
    """``Kernel 'f': message``, naming the kernel once: a message that already starts
    with ``kernel 'f'`` (the ones made before a position was known) keeps its own words.

        >>> headline("f", "kernel 'f': parameter 'x' has no type annotation")
        "kernel 'f': parameter 'x' has no type annotation"
        >>> headline("f", "cannot add i32 and str"), headline("", "no kernel")
        ("Kernel 'f': cannot add i32 and str", 'no kernel')
    """
    if not kernel_name:
        return message
    named = f"kernel '{kernel_name}'"
    if message[: len(named)].lower() == named.lower():
        return message
    return f"Kernel '{kernel_name}': {message}"


def located_text(
    message: str,
    pos: SourcePos | None,
    hint: str,
    kernel_name: str = "",
    place: Callable[[str], str] | None = None,
) -> str:
    """An error's or a warning's text: the headline, the place, the line with a caret
    under the offending code, and the hint (see the module's example). ``place`` names
    a file (default: the registered namers, so a cell reads ``Cell In[N]``)."""
    lines = [headline(kernel_name, message)]
    if pos is not None:
        where = f"  {(place or place_of)(pos.filename)}, line {pos.lineno}, column {pos.col + 1}"
        if pos.kernel_name:
            where += f", in {pos.kernel_name}"
        lines.append(where)
        if pos.line_text.strip():
            lines.append(pos.caret_block())
    if hint:
        lines.append(f"hint: {hint}")
    return "\n".join(lines)


class TiError(Exception):
    """Base of ti_notebook's errors; carries the source position when known."""

    def __init__(self, message: str, pos: SourcePos | None = None, hint: str = "") -> None:
        self.message = message
        self.pos = pos
        self.hint = hint
        self.kernel_name = pos.kernel_name if pos else ""
        self.filename = pos.filename if pos else None
        self.lineno = pos.lineno if pos else None
        self.offset = pos.col + 1 if pos else None
        self.text = pos.line_text if pos else None
        self.msg = message
        Exception.__init__(self, message)

    def locate(self, pos: SourcePos) -> TiError:
        """Attaches ``pos`` when the error has no position yet; returns self."""
        if self.pos is None:
            self.pos = pos
            self.kernel_name = pos.kernel_name
            self.filename, self.lineno = pos.filename, pos.lineno
            self.offset, self.text = pos.col + 1, pos.line_text
        return self

    def __str__(self) -> str:
        return located_text(self.message, self.pos, self.hint, self.kernel_name)


class TiSyntaxError(TiError, SyntaxError):
    """A construct the kernel language does not support, or one used where it can't be."""

    def __init__(self, message: str, pos: SourcePos | None = None, hint: str = "") -> None:
        TiError.__init__(self, message, pos, hint)

    # SyntaxError.__str__ would print only ``msg``; keep ours.
    __str__ = TiError.__str__


class TiNameError(TiError, NameError):
    """A name that is neither a kernel local, an argument nor a Python global."""


class TiTypeError(TiError, TypeError):
    """Mismatched types, or a kernel called with the wrong arguments."""


class TiIndexError(TiError, IndexError):
    """An index outside a field's or array's shape."""


class TiAttributeError(TiError, AttributeError):
    """An attribute a value does not have (``v.z`` of a 2-vector), so ``hasattr`` works."""


class TiRuntimeError(TiError, RuntimeError):
    """The runtime could not do what was asked (destroyed field, no device, ...)."""


class TiNotImplementedError(TiError, NotImplementedError):
    """A feature ti_notebook, or the chosen target, does not have yet: the message names
    the kernel and the feature; the hint says what works instead."""


class TiZeroDivisionError(TiError, ZeroDivisionError):
    """An integer division or modulo by a constant zero, found while compiling."""


class TiAssertionError(TiError, AssertionError):
    """A ``ti.static_assert`` that failed while compiling: the message is the user's."""


class TiOverflowError(TiError, OverflowError):
    """A value outside the range of the type it is given to (an argument, an element)."""


class TiMemoryError(TiError, MemoryError):
    """Memory that cannot be reserved: a field too large, too many trees alive."""


class TiOSError(TiError, OSError):
    """A file ti_notebook was asked to write or read cannot be (a trace's path...)."""


class KernelInterrupted(KeyboardInterrupt):
    """SIGINT (Jupyter's interrupt button, Ctrl-C) stopped a running kernel.

    Fields keep what the kernel wrote before it stopped. IPython shows only the line of
    the cell that called the kernel (``_render_traceback_``), not the runtime's frames.
    """

    def _render_traceback_(self) -> list[str]:
        lines = [f"KeyboardInterrupt: {self}"]
        tb, caller = self.__traceback__, None
        while tb is not None:  # the innermost frame outside ti_notebook called the kernel
            if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
                caller = tb
            tb = tb.tb_next
        if caller is not None:
            import linecache

            code = caller.tb_frame.f_code
            text = linecache.getline(code.co_filename, caller.tb_lineno).strip()
            lines.append(f'  File "{code.co_filename}", line {caller.tb_lineno}')
            if text:
                lines.append(f"    {text}")
        return lines


class TiPrecisionWarning(UserWarning):
    """A value stored where its type cannot hold it exactly, as Taichi warns ("may lose
    precision"): a float into an integer field element, ndarray element, local or typed
    ti.func parameter/return, or an f64 into an f32 one. The value is cast (truncated).

    Issued while the kernel compiles, once per store and compile (not per launch), at
    the kernel's line; a kernel loaded from the offline cache is not traced again, so a
    warm cache start does not repeat it. The text names the kernel, the place, shows
    the line with a caret under the value and says how to silence it:

        >>> pos = SourcePos("demo.py", 4, 20, 27, "        counts[i] = 0.5 * i", "fill")
        >>> print(TiPrecisionWarning("storing f32 into the i32 field 'counts'", pos,
        ...                          "write ti.cast(value, ti.i32)"))
        Kernel 'fill': storing f32 into the i32 field 'counts'
          File "demo.py", line 4, column 21, in fill
            counts[i] = 0.5 * i
                        ^^^^^^^
        hint: write ti.cast(value, ti.i32)
    """

    def __init__(self, message: str, pos: SourcePos | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message, self.pos, self.hint = message, pos, hint
        self.kernel_name = pos.kernel_name if pos else ""

    def __str__(self) -> str:
        return located_text(self.message, self.pos, self.hint, self.kernel_name)


class TiValueError(TiError, ValueError):
    """A value of the right type but a wrong shape or range (``from_numpy`` shapes...)."""


class TiCompileError(TiError, RuntimeError):
    """Code the compiler made cannot be loaded: its machine code calls a native function
    this process does not have (a ti_notebook bug). Raised before the code runs, naming
    the kernel and the function; the process keeps working."""


class TiInternalError(TiError, RuntimeError):
    """The compiler broke one of its own rules (``ir/verify.py`` found it): a ti_notebook
    bug, not a mistake in the kernel. ``ti.init(debug=True)`` looks for these."""


class PassOrderError(AssertionError):
    """A pipeline lists its passes in an order that breaks one of the ordering rules
    (``passes/ordering.py``): a ti_notebook bug, raised when the pipeline is assembled
    (at import), naming the rule and why it holds."""


class GUIFrameLimit(RuntimeError):
    """A ``ti.GUI`` without a live view drew past its frame budget (``TI_GUI_MAX_FRAMES``).

    ``gui.running`` turns False after the budget; a loop that never reads it (``for
    frame in range(20000): ... gui.show()``) stops here on its next ``show()``. IPython
    shows the one line, without a traceback.

    >>> print(GUIFrameLimit(5))  # doctest: +ELLIPSIS
    ti.GUI stopped after 5 frames (TI_GUI_MAX_FRAMES=5): loop on `while gui.running:` ...
    """

    def __init__(self, frames: int) -> None:
        self.frames = frames
        RuntimeError.__init__(self, frames)

    def __str__(self) -> str:
        n = self.frames
        return (
            f"ti.GUI stopped after {n} frames (TI_GUI_MAX_FRAMES={n}): loop on "
            "`while gui.running:` to end cleanly, or set TI_GUI_MAX_FRAMES to draw more"
        )

    def _render_traceback_(self) -> list[str]:
        return [f"GUIFrameLimit: {self}"]


class GUIStopped(RuntimeError):
    """The live view's stop button or Esc stopped a GUI whose loop never reads
    ``running`` (``for frame in range(20000): ... gui.show()``): its next ``show()``
    ends the loop here. A loop that reads ``running`` never gets it. IPython shows the
    one line, without a traceback.

    >>> print(GUIStopped("ti.GUI", "mpm", 12))  # doctest: +ELLIPSIS
    ti.GUI 'mpm' was stopped (stop button or Esc) after 12 frames; ... `while gui.running:` ...
    """

    def __init__(self, owner: str, name: str, frames: int) -> None:
        self.owner, self.name, self.frames = owner, name, frames
        RuntimeError.__init__(self, owner, name, frames)

    def __str__(self) -> str:
        var = "window" if "Window" in self.owner else "gui"
        return (
            f"{self.owner} {self.name!r} was stopped (stop button or Esc) after "
            f"{self.frames} frames; this loop never reads `{var}.running`: loop on "
            f"`while {var}.running:` to end cleanly"
        )

    def _render_traceback_(self) -> list[str]:
        return [f"GUIStopped: {self}"]
