"""What tracing reads from Python, recorded by construction for the offline cache.

Every Python-level value a kernel reads is either the value of a name in a scope (the
kernel's or a ``ti.func``'s globals, closure and builtins, or a template argument) or an
attribute of a value read before. The tracer reports both here, and each value is
recorded as a *path* from its root name: ``("<kernel>", "Params.scale")`` or
``("<template>", "cfg.grid.N")``. Values keep their paths through local aliases and
``ti.static(...)`` because the paths belong to the objects themselves (by ``id``, the
objects held alive until the trace ends). A warm start resolves each path again - the
root name, then ``getattr`` along the chain - and compares fingerprints
(``cache/keys.py``).

What cannot be followed makes the kernel uncacheable, with the first reason kept for
the cache's debug log: an attribute read from a value that came from no path (an object
a helper returned), or a namespace handed to a Python function run while compiling
(which may read any of its attributes). The checks that compare values need the
offline cache's fingerprint function (``cache/fingerprint.py``), which the cache hands
in through the compile request: the frontend never imports the cache, and a trace the
cache will not store makes no such checks.

    >>> import types
    >>> reads = Reads({})
    >>> cfg = types.SimpleNamespace(N=4)
    >>> reads.root("<kernel>", "cfg", cfg)
    >>> reads.attribute(cfg, "N", cfg.N, None)
    >>> sorted(path for _scope, path in reads.captured)
    ['cfg', 'cfg.N']
"""

from __future__ import annotations

import ast
import contextlib
import types as pytypes
from collections.abc import Callable

import numpy as np

from ti_notebook.frontend.origins import compiler_owned, library_version
from ti_notebook.lang.data_oriented import is_data_oriented

KERNEL_SCOPE = "<kernel>"
TEMPLATE_SCOPE = "<template>"
LIBRARY_SCOPE = "ti_notebook."  # ti_notebook's own ti.funcs: lang/linalg_funcs.py, math/
_MISSING = object()
_DATA = (type(None), bool, int, float, str, complex, tuple, list, dict, np.generic, np.ndarray)
_NAMESPACES = (pytypes.ModuleType, type, pytypes.SimpleNamespace)
Fingerprint = Callable[[object], str | None]  # a value's print, None when it has none


class Reads:
    """The paths one kernel's trace read, shared by the funcs it inlines."""

    def __init__(self, captured: dict, fingerprint: Fingerprint | None = None) -> None:
        self.captured = captured  # (scope, path) -> value; also holds unnamed fields
        self.fingerprint = fingerprint  # None: no cache keys this trace, nothing to compare
        self.paths: dict[int, list[tuple[str, str]]] = {}
        self._alive: list = []  # every value in ``paths``: their ids stay theirs
        self._scopes: dict[str, object] = {}  # scope name -> the function it stands for
        self.refused: str | None = None

    def refuse(self, why: str) -> None:
        """Makes the kernel uncacheable; the first reason is the one logged."""
        if self.refused is None:
            self.refused = why

    def enter(self, scope: str, function) -> None:
        """A function's body is traced; its names are read in ``scope``. Two functions
        under one scope name (funcs made by one factory, with their own closures) would
        have their names checked in only one of them on a warm start."""
        if self._scopes.setdefault(scope, function) is not function:
            self.refuse(f"two different ti.funcs are both named '{scope}'")

    # -- roots and attribute chains ------------------------------------------------------
    def root(self, scope: str, name: str, value) -> None:
        """A name read from a scope's closure, globals or builtins. Recorded even when
        it holds one of ti_notebook's own values (``ti``, ``ti.atomic_add``): the
        compiler digest covers their code, but not which of them the name holds now
        (``op = ti.atomic_sub`` in a closure, say); their fingerprint is their name.
        Names read inside ti_notebook's own ti.funcs (``ti.svd``, ``ti.math.clamp``) are
        not: the compiler digest covers their code, and a warm start could not find their
        scope."""
        if scope.startswith(LIBRARY_SCOPE):
            return
        self._record(scope, name, value)

    def template(self, name: str, value) -> None:
        """A template argument: already in the key; attributes read from it are paths."""
        self._register(TEMPLATE_SCOPE, name, value)

    def attribute(self, base, attr: str, value, node: ast.AST | None) -> None:
        """``base.attr`` evaluated to ``value`` while tracing."""
        ours = compiler_owned(base) or type(base).__module__.startswith("ti_notebook")
        if ours and (compiler_owned(base) or attr not in getattr(base, "__dict__", ())):
            return  # ti.f32, x.shape, x.parent: the compiler or the field's plan covers it
        paths = self.paths.get(id(base))
        if paths:  # (of ours: an attribute set on the object itself, maybe by the user)
            for scope, path in list(paths):
                self._record(scope, f"{path}.{attr}", value)
        elif not ours and not isinstance(base, _DATA):
            what = ast.unparse(node) if node is not None else attr
            self.refuse(f"it reads '{what}' from a value that no name leads to")

    # -- Python code run while compiling ----------------------------------------------------
    def python_call(self, func, args: list, kwargs: dict, node: ast.AST) -> None:
        """Before ``func(*args, **kwargs)`` runs while compiling."""
        if compiler_owned(func):
            return
        name = ast.unparse(node.func) if isinstance(node, ast.Call) else "a function"
        fingerprint = self.fingerprint or _no_check
        if isinstance(func, type) and (fingerprint(func) or "").startswith("class:"):
            self.refuse(f"it constructs '{name}' while compiling")  # runs its __init__
        for value in [*args, *kwargs.values()]:
            if _holds_namespace(value):
                self.refuse(f"it passes a module or class to '{name}' while compiling")
            elif self.fingerprint is not None and _user_object(value, fingerprint):
                self.refuse(f"it passes an object with no fingerprint to '{name}'")

    def python_result(self, value, node: ast.AST) -> None:
        """What a Python call returned. Built-in and library values (a range, a zip) are
        fixed by the call's inputs; an object of a user class may hold anything."""
        if self.fingerprint is not None and _user_object(value, self.fingerprint):
            name = ast.unparse(node.func) if isinstance(node, ast.Call) else "a function"
            self.refuse(f"'{name}' returned an object with no fingerprint while compiling")

    # -- bookkeeping ----------------------------------------------------------------------
    def _record(self, scope: str, path: str, value) -> None:
        key = (scope, path)
        old = self.captured.get(key, _MISSING)
        if old is _MISSING:
            self.captured[key] = value
        elif (
            old is not value
            and self.fingerprint is not None
            and self.fingerprint(old) != self.fingerprint(value)
        ):
            # Two funcs with one qualname but different closures, say: one path, two values.
            self.refuse(f"'{path}' had two different values while tracing")
        self._register(scope, path, value)

    def _register(self, scope: str, path: str, value) -> None:
        known = self.paths.setdefault(id(value), [])
        if not known:
            self._alive.append(value)
        if (scope, path) not in known:
            known.append((scope, path))


def scope_of(func) -> str:
    """The scope name of a ti.func's Python function (its module and qualname).

    >>> def helper():
    ...     pass
    >>> scope_of(helper).endswith(".helper")
    True
    """
    return f"{func.__module__}.{func.__qualname__}"


def closure_vars(func) -> dict:
    """The values of a function's closure cells, by name: the names it reads from an
    enclosing function (looked up before its globals, as Python does).

    >>> def outer():
    ...     n = 4
    ...     def inner():
    ...         return n
    ...     return inner
    >>> closure_vars(outer())
    {'n': 4}
    """
    code = getattr(func, "__code__", None)
    cells = getattr(func, "__closure__", None) or ()
    if code is None:
        return {}
    found = {}
    for name, cell in zip(code.co_freevars, cells, strict=False):
        # An empty cell is a name the enclosing function defines later: skip it.
        with contextlib.suppress(ValueError):
            found[name] = cell.cell_contents
    return found


def _no_check(_value) -> str:
    return ""  # no fingerprint function: every value passes


def _user_object(value, fingerprint: Fingerprint) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_user_object(v, fingerprint) for v in value)
    module = type(value).__module__
    if module.startswith("ti_notebook") or library_version(module) is not None:
        return False
    return fingerprint(value) is None


def _holds_namespace(value) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_holds_namespace(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_namespace(v) for v in value.values())
    if is_data_oriented(value):  # Python code may read any attribute of it
        return True
    return isinstance(value, _NAMESPACES) and not compiler_owned(value)
