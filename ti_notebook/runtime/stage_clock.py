"""Where a compile's time goes: seconds per stage, summed while a recording is open.

The compile driver opens a recording around one compile; the code of each stage (the
frontend, LLVM's optimisation in ``runtime/cpu/jit.py``, machine code emission) times itself
with :func:`stage`, wherever it runs. Outside a recording :func:`stage` costs one
context-variable read, so the JIT's other users (the thread pool, the SIMT emulator) pay
nothing for it. A recording is per thread (a context variable): two kernels compiling at
once in two threads keep their own figures.

    >>> with recording() as seconds:
    ...     with stage("llvm_optimise"):
    ...         pass
    ...     with stage("llvm_optimise"):
    ...         pass
    >>> list(seconds), seconds["llvm_optimise"] >= 0.0
    (['llvm_optimise'], True)
    >>> with stage("machine_code"):  # nobody records: nothing happens
    ...     pass
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator


class _Recording:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.inner: list[float] = []  # per open stage: seconds its nested stages took


_current: contextvars.ContextVar[_Recording | None] = contextvars.ContextVar(
    "ti_notebook_stage_clock", default=None
)


@contextlib.contextmanager
def recording() -> Iterator[dict[str, float]]:
    """Collects ``{stage: seconds}`` for the stages run inside it (a nested recording
    gets its own figures; the outer one gets none of them)."""
    record = _Recording()
    token = _current.set(record)
    try:
        yield record.seconds
    finally:
        _current.reset(token)


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Adds the time spent inside to ``name`` in the open recording, if any; a stage
    opened inside another counts for itself only (the outer one's figure excludes it).

    >>> import time
    >>> with recording() as seconds:
    ...     with stage("codegen"):
    ...         with stage("llvm_parse"):
    ...             time.sleep(0.02)
    >>> seconds["codegen"] < 0.02 <= seconds["llvm_parse"]
    True
    """
    record = _current.get()
    if record is None:
        yield
        return
    record.inner.append(0.0)
    started = time.perf_counter()
    try:
        yield
    finally:
        took = time.perf_counter() - started
        nested = record.inner.pop()
        record.seconds[name] = record.seconds.get(name, 0.0) + took - nested
        if record.inner:
            record.inner[-1] += took


def credit(name: str, seconds: float) -> None:
    """Adds ``seconds`` spent elsewhere (a compile worker's stages) to ``name`` in the open
    recording, if any, as a stage nested where the call is would count.

    >>> import time
    >>> with recording() as seconds:
    ...     with stage("load"):
    ...         time.sleep(0.02)  # waiting for the worker's answer
    ...         credit("llvm_optimise", 0.015)  # what it says its O3 took
    >>> seconds["llvm_optimise"], sorted(seconds)
    (0.015, ['llvm_optimise', 'load'])
    """
    record = _current.get()
    if record is None:
        return
    record.seconds[name] = record.seconds.get(name, 0.0) + seconds
    if record.inner:
        record.inner[-1] += seconds
