"""What a compile is doing right now, for whoever listens (``ti.watch_compiles``).

The driver announces each stage of a compile as it enters it: ``tracing``, ``running
passes (NAME)`` once per pass, ``generating LLVM IR``, ``LLVM: optimising and emitting
code``, then ``done``, or ``stopped`` with the exception that ended it (a compile error,
or a ``KeyboardInterrupt`` from the interrupt button). Listeners are called in the
compiling thread and must be quick; the ``%%kernel`` magic keeps the latest event and
shows it from a timer thread while a long compile runs. With no listener the driver
pays one list check per stage.

    >>> seen = []
    >>> remove = listen(lambda event: seen.append((event.kernel, event.stage)))
    >>> with compiling("fill"):
    ...     announce("fill", "generating LLVM IR")
    >>> remove()
    >>> seen
    [('fill', 'tracing'), ('fill', 'generating LLVM IR'), ('fill', 'done')]
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator

TRACING = "tracing"
DONE = "done"
STOPPED = "stopped"


@dataclasses.dataclass(frozen=True)
class CompileEvent:
    """One step of one compile: the kernel's name, the stage it enters, and for
    ``stopped`` the exception that stopped it."""

    kernel: str
    stage: str
    error: BaseException | None = None


Listener = Callable[[CompileEvent], object]
_listeners: list[Listener] = []


def listen(callback: Listener) -> Callable[[], None]:
    """Calls ``callback(event)`` at every stage of every compile; returns a function that
    stops it. See the module docstring for an example."""
    _listeners.append(callback)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            _listeners.remove(callback)

    return remove


def announce(kernel: str, stage: str, error: BaseException | None = None) -> None:
    """Tells the listeners that ``kernel``'s compile enters ``stage``."""
    if not _listeners:
        return
    event = CompileEvent(kernel, stage, error)
    for callback in list(_listeners):
        callback(event)


@contextlib.contextmanager
def compiling(kernel: str) -> Iterator[None]:
    """Brackets one compile: ``tracing`` first, then ``done`` or ``stopped``."""
    announce(kernel, TRACING)
    try:
        yield
    except BaseException as error:  # an interrupt too: a listener may be showing progress
        announce(kernel, STOPPED, error)
        raise
    announce(kernel, DONE)


def announced(kernel: str, passes: tuple) -> tuple:
    """``passes`` (``(name, run)`` pairs) with each announcing itself before it runs;
    ``passes`` unchanged when nobody listens."""
    if not _listeners:
        return passes
    return tuple((name, _announcing(kernel, name, run)) for name, run in passes)


def _announcing(kernel: str, name: str, run: Callable) -> Callable:
    @functools.wraps(run)
    def wrapped(*args, **kwargs):
        announce(kernel, f"running passes ({name})")
        return run(*args, **kwargs)

    return wrapped
