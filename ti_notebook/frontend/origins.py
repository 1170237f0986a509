"""Whose code a value is: ti_notebook's own, an installed library's, or the user's.

Tracing needs to know (``frontend/recorder.py``): ti_notebook's own functions and
classes are covered by the compiler's digest, a library's by its version, and only the
user's objects must be followed or refused. The offline cache's fingerprints
(``cache/fingerprint.py``) print the first two by name.

    >>> import math
    >>> compiler_owned(compiler_owned), compiler_owned(math)
    (True, False)
    >>> library_version("math") is not None, library_version("made_at_run_time")
    (True, None)
"""

from __future__ import annotations

import functools
import os
import site
import sys
import types as pytypes
from pathlib import Path


def compiler_owned(value) -> bool:
    """ti_notebook's own modules, functions and classes (not its instances: a field is
    the user's data).

        >>> import ti_notebook.frontend.origins as origins
        >>> compiler_owned(origins), compiler_owned(object())
        (True, False)
    """
    if isinstance(value, pytypes.ModuleType):
        return is_ours(value.__name__)
    if isinstance(value, (type, pytypes.FunctionType, pytypes.BuiltinFunctionType)):
        return is_ours(getattr(value, "__module__", None) or "")
    return False


def is_ours(module: str) -> bool:
    """Whether the dotted module name is ti_notebook or one of its modules.

    >>> is_ours("ti_notebook.lang.field"), is_ours("ti_notebook_extra")
    (True, False)
    """
    return module == "ti_notebook" or module.startswith("ti_notebook.")


_library_roots: dict[str, bool] = {}


@functools.cache
def _library_dirs() -> tuple[Path, ...]:
    # The standard library's folder (os lives there) and the site-packages folders;
    # not sysconfig.get_paths(), whose first call costs a warm start ~2 ms.
    found = {os.path.dirname(os.__file__), *site.getsitepackages()}
    if site.ENABLE_USER_SITE and site.USER_SITE:
        found.add(site.USER_SITE)
    return tuple(Path(p).resolve() for p in found)


def library_version(module: str) -> str | None:
    """The version of the installed library (or standard-library module) ``module``
    belongs to; None for user code: a script, a notebook, a module next to them, an
    editable checkout - also one named like a standard module (``test.py``), which is
    why this looks where the module's file is, not at its name.

        >>> library_version("math") is not None, library_version("made_at_run_time")
        (True, None)
    """
    root = module.partition(".")[0]
    known = _library_roots.get(root)
    if known is None:
        if root in sys.builtin_module_names:
            known = True
        else:
            file = getattr(sys.modules.get(root), "__file__", None)
            if not file:
                return None  # made at run time, or a notebook's __main__: user code
            path = Path(file).resolve()
            known = any(path.is_relative_to(folder) for folder in _library_dirs())
        _library_roots[root] = known
    if not known:
        return None
    if root in sys.stdlib_module_names or root in sys.builtin_module_names:
        return f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return str(getattr(sys.modules[root], "__version__", "?"))
