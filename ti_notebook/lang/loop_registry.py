"""Where Python-scope field code finds the compiled loops of ``session/field_loops.py``.

``Field.fill``, ``to_numpy``, ``from_numpy``, ``copy_from`` and the active-cell queries
of ``lang/sparse.py`` run kernels for fields without a NumPy view. Those kernels need
the compiler, which imports the field modules, so the field modules cannot import them:
``field_loops`` registers itself here when the package is imported, and the field code
asks for it at call time.

    >>> import ti_notebook  # noqa: F401  (registers the loops)
    >>> loops().__name__
    'ti_notebook.session.field_loops'
"""

from __future__ import annotations

_loops = None


def register(module) -> None:
    """Sets the module whose kernels run the Python-scope methods of fields."""
    global _loops
    _loops = module


def loops():
    """The registered module (``session/field_loops.py``)."""
    return _loops
