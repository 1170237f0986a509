"""Checks that a kernel's error points at its line (imported by name: tests/ has no
packages): the ti_notebook class, the kernel's name, this file, ``line N``, the line's
text, a caret and a hint."""

import inspect
import os

import pytest


def raises_at(cls, kernel, text: str, *args):
    """Calls ``kernel(*args)``, expecting ``cls`` at the one line of its source holding
    ``text``; returns the error."""
    with pytest.raises(cls) as info:
        kernel(*args)
    err = info.value
    lines, start = inspect.getsourcelines(kernel.func)
    hits = [start + k for k, line in enumerate(lines) if text in line]
    assert len(hits) == 1, f"{text!r} must occur once in {kernel.func.__name__}"
    message = str(err)
    assert err.lineno == hits[0], message
    assert kernel.func.__name__ in message, message
    assert os.path.basename(inspect.getsourcefile(kernel.func)) in message, message
    assert f"line {hits[0]}" in message and text in message, message
    assert any(line.strip() and set(line.strip()) == {"^"} for line in message.splitlines())
    assert "hint:" in message, message
    return err
