"""Runs one program with ``advanced_optimization`` on and off, for differential tests.

>>> on, off = both(lambda ti: 1)
>>> on == off
True
"""

from __future__ import annotations

from collections.abc import Callable

import ti_notebook as ti


def both(build_and_run: Callable, **init) -> tuple:
    """``build_and_run(ti)`` in a fresh session with the passes on, then off."""
    results = []
    for optimise in (True, False):
        ti.init(arch=ti.cpu, advanced_optimization=optimise, **init)
        results.append(build_and_run(ti))
    return tuple(results)
