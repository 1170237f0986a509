"""``pytest --nbval notebooks/`` as a new user types it: the project's nbval settings.

nbval compares every cell's stored outputs with a fresh run's. What cannot repeat - the
time in a ``%%kernel`` summary line, pygments' HTML of ``--show``, ipykernel's file names -
is masked by ``tests/notebooks/nbval_sanitize.cfg`` (cells whose whole output is a timing
say ``# NBVAL_IGNORE_OUTPUT``). Options given on the command line win.

The notebooks run on the "Python 3 (ti_notebook)" kernel, which ``make setup`` (and so
``make test`` and ``make lab``) installs into ``.venv``; ``--nbval-current-env`` runs
them on the interpreter running pytest instead.
"""

from __future__ import annotations

from pathlib import Path

SANITIZE = Path(__file__).resolve().parents[1] / "tests" / "notebooks" / "nbval_sanitize.cfg"
CELL_TIMEOUT_S = 120  # a tutorial cell takes seconds; a hung one fails instead of waiting


def pytest_configure(config) -> None:
    option = config.option
    if not getattr(option, "nbval", False) and not getattr(option, "nbval_lax", False):
        return
    if getattr(option, "nbval_sanitize_with", None) is None:
        option.nbval_sanitize_with = str(SANITIZE)
    if getattr(option, "nbval_cell_timeout", None) in (None, 2000):
        option.nbval_cell_timeout = CELL_TIMEOUT_S
