"""A long compile in a cell: its elapsed time and stage while it runs, and a short report
when the interrupt button stops it.

One listener (``ti.watch_compiles``), installed with the extension, keeps the latest
:class:`ti_notebook.compiler.progress.CompileEvent`-like event: which kernel compiles,
since when, at which stage, and which exception stopped the last compile.

:class:`CellProgress` runs beside a ``%%kernel`` cell: a compile that lasts longer than
:data:`SHOW_AFTER_S` gets a line in the cell, redrawn every :data:`EVERY_S` from a timer
thread (``compiling fill: 3.2 s, running passes (make_block_local)``), which the
kernel's summary line replaces when the compile ends.

An interrupt during a compile shows as one line naming the kernel, the stage, and the
user's line that started the compile (:func:`interrupt_lines`): the compiler's frames
mean nothing to the user, and IPython's formatter is never asked to format them.

    >>> watch = CompileWatch()
    >>> watch.on_event(type("E", (), {"kernel": "fill", "stage": "tracing", "error": None}))
    >>> watch.compiling, watch.stage
    ('fill', 'tracing')
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections.abc import Callable

from IPython.core.displaypub import DisplayPublisher
from IPython.display import display

import ti_notebook as ti

SHOW_AFTER_S = 1.0  # a shorter compile shows nothing but its summary line
EVERY_S = 0.5  # how often the line is redrawn


class CompileWatch:
    """The latest compile event (see the module docstring); one per process."""

    def __init__(self) -> None:
        self.compiling: str | None = None  # the kernel compiling now, or None
        self.stage = ""
        self.started = 0.0
        self.stopped: tuple[str, str, float, BaseException] | None = None  # kernel, stage, s, why
        self.listeners: list[Callable[[object], object]] = []

    def on_event(self, event) -> None:
        """Records ``event`` (called by the compiler, in the compiling thread)."""
        if event.stage == "tracing":
            self.compiling, self.started, self.stopped = event.kernel, time.monotonic(), None
        if event.stage in ("done", "stopped"):
            if event.stage == "stopped":
                elapsed = time.monotonic() - self.started
                self.stopped = (event.kernel, self.stage, elapsed, event.error)
            self.compiling = None
        else:
            self.stage = event.stage
        for listener in list(self.listeners):
            listener(event)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stopped_by(self, error: BaseException) -> tuple[str, str, float] | None:
        """(kernel, stage, seconds) when ``error``, or the exception it was raised while
        handling (a kernel call reports an interrupt as its own), stopped a compile."""
        seen = 0
        while error is not None and seen < 8:
            if self.stopped is not None and self.stopped[3] is error:
                return self.stopped[:3]
            error, seen = error.__cause__ or error.__context__, seen + 1
        return None


_watch: CompileWatch | None = None


def compile_watch() -> CompileWatch:
    """The process's watch, listening from its first use on."""
    global _watch
    if _watch is None:
        _watch = CompileWatch()
        ti.watch_compiles(_watch.on_event)
    return _watch


def progress_text(kernel: str, elapsed: float, stage: str) -> str:
    """``compiling fill: 3.2 s, running passes (offload)``."""
    return f"compiling {kernel}: {elapsed:.1f} s, {stage}"


class CellProgress:
    """The progress line of the compiles of one cell (a context manager).

    ``summary(name, text)`` replaces a kernel's progress line with ``text`` and returns
    True, or returns False when no line was shown (the caller prints ``text`` itself).
    """

    def __init__(self, shell, quiet: bool = False) -> None:
        self.shell, self.quiet = shell, quiet
        self.watch = compile_watch()
        self.handles: dict[str, object] = {}  # kernel -> display handle shown for it
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._terminal = type(shell.display_pub) is DisplayPublisher  # no display updates
        self._width = 0

    def __enter__(self) -> CellProgress:
        self.watch.listeners.append(self._on_event)
        return self

    def __exit__(self, *exc) -> None:
        self.watch.listeners.remove(self._on_event)
        self._end_timer()

    # -- compiles start and end (the compiling thread) --------------------------------
    def _on_event(self, event) -> None:
        if event.stage == "tracing":
            self._end_timer()
            self._stop = threading.Event()
            # the cell's context goes along: ipykernel routes output by it
            context = contextvars.copy_context()
            self._thread = threading.Thread(
                target=context.run, args=(self._tick, event.kernel, self._stop), daemon=True
            )
            self._thread.start()
        elif event.stage in ("done", "stopped"):
            self._end_timer()
            elapsed = self.watch.elapsed()
            if event.stage == "done":
                text = "" if self.quiet else f"{event.kernel}: compiled in {elapsed:.1f} s"
            else:
                text = f"{event.kernel}: compile stopped after {elapsed:.1f} s"
            self._draw(event.kernel, text, final=True)

    def _end_timer(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._thread.join()
            self._stop = self._thread = None

    # -- the timer thread ------------------------------------------------------------------
    def _tick(self, kernel: str, stop: threading.Event) -> None:
        if stop.wait(SHOW_AFTER_S):
            return
        while not stop.is_set():
            text = progress_text(kernel, self.watch.elapsed(), self.watch.stage)
            with self._lock:
                if not stop.is_set():  # the compile may have ended meanwhile
                    self._draw(kernel, text)
            stop.wait(EVERY_S)

    def _draw(self, kernel: str, text: str, final: bool = False) -> None:
        if final and kernel not in self.handles:
            return  # never shown: nothing to replace
        if self._terminal:  # one line redrawn in place, wiped at the end: the summary
            # line (or the interrupt's) follows as usual
            shown = "" if final else text
            sys.stderr.write(f"\r{shown}{' ' * max(self._width - len(shown), 0)}\r")
            sys.stderr.flush()
            self._width = 0 if final else len(text)
            self.handles[kernel] = None
            return
        bundle = {"text/plain": text, "text/html": _html(text)}
        handle = self.handles.get(kernel)
        if handle is None:
            self.handles[kernel] = display(bundle, raw=True, display_id=True)
        else:
            handle.update(bundle, raw=True)

    def summary(self, kernel: str, text: str) -> bool:
        """Puts ``text`` in place of ``kernel``'s progress line; False if none was shown."""
        if kernel not in self.handles or self._terminal:
            return False
        self.handles.pop(kernel).update({"text/plain": text, "text/html": _html(text)}, raw=True)
        return True


def _html(text: str) -> str:
    import html

    if not text:
        return ""  # an empty output takes no room in the cell
    return f'<pre style="margin:0">{html.escape(text)}</pre>'


class KernelCellInterrupt(KeyboardInterrupt):
    """The interrupt button stopped a cell while a kernel compiled; IPython shows
    :attr:`lines` (``_render_traceback_``), not the compiler's frames."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines[0].removeprefix("KeyboardInterrupt: "))
        self.lines = lines

    def _render_traceback_(self) -> list[str]:
        return self.lines


def interrupt_lines(
    stopped: tuple[str, str, float],
    error: BaseException,
    place: Callable[[str], str | None],
    default: tuple[str, str, int] | None = None,
) -> list[str]:
    """``KeyboardInterrupt: compiling kernel 'fill' was stopped after 3.2 s (tracing)``
    and the user's line that started the compile: the innermost frame of ``error``'s
    traceback that ``place`` names (a cell), else ``default`` (name, filename, line).

        >>> interrupt_lines(("fill", "tracing", 3.21), KeyboardInterrupt(), lambda f: None)
        ["KeyboardInterrupt: compiling kernel 'fill' was stopped after 3.2 s (tracing)"]
    """
    kernel, stage, elapsed = stopped
    lines = [f"KeyboardInterrupt: compiling kernel '{kernel}' was stopped after {elapsed:.1f} s"]
    lines[0] += f" ({stage})" if stage else ""
    where = default
    tb = error.__traceback__
    while tb is not None:
        name = place(tb.tb_frame.f_code.co_filename)
        if name is not None and tb.tb_lineno is not None:
            where = (name, tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    if where is not None:
        import linecache

        lines.append(f"  {where[0]}, line {where[2]}")
        text = linecache.getline(where[1], where[2]).strip()
        if text:
            lines.append(f"    {text}")
    return lines
