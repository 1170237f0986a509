"""Where a kernel's error points (imported by name: tests/ has no packages).

``raises_at`` calls a kernel expecting a ti_notebook error at the one source line that
holds ``text``: the class, the kernel's name, this file, ``line N``, the line, a caret
under ``under`` (when given) and a hint.
"""

import inspect
import os

import pytest


def raises_at(cls, kernel, text: str, *args, under: str | None = None, match: str | None = None):
    """Calls ``kernel(*args)``; returns the ``cls`` error it raised, checked."""
    with pytest.raises(cls, match=match) as info:
        kernel(*args)
    err = info.value
    func = kernel.func
    lines, start = inspect.getsourcelines(func)
    hits = [(start + k, line) for k, line in enumerate(lines) if text in line]
    assert len(hits) == 1, f"{text!r} must occur once in {func.__name__}"
    lineno, line = hits[0]
    message = str(err)
    assert err.lineno == lineno, message
    assert func.__name__ in message, message
    assert os.path.basename(inspect.getsourcefile(func)) in message, message
    assert f"line {lineno}" in message and text in message, message
    carets = [ln for ln in message.splitlines() if ln.strip() and set(ln.strip()) == {"^"}]
    assert carets, message
    assert "hint:" in message, message
    if under is not None:
        code = [ln for ln in message.splitlines() if text in ln and "File" not in ln][0]
        first = carets[0].index("^")
        width = carets[0].count("^")
        assert code[first : first + width] == under, f"caret not under {under!r}:\n{message}"
    return err
