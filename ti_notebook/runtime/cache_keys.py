"""Offline-cache keys, computed before tracing (DESIGN.md section 7).

A kernel's cache key has two parts:

- the *pre-key*, known before tracing: the kernel's source, its parameter kinds and
  types, its template arguments, the code-changing ``ti.init`` options, the target CPU
  and the versions of ti_notebook, llvmlite and LLVM;
- its *dependencies*, learnt by the first trace: every name the kernel and the
  ``ti.func``\\ s it reaches read from their globals or closures, with a fingerprint of
  the value (a func's fingerprint is its source; a field's is its memory plan).

The index stores, per pre-key, the dependency lists seen so far. A later process looks
each name up again in the same scopes (no tracing), fingerprints the values, and if they
all match, the full key - and the object code - is known without running the frontend.

    >>> fingerprint(3), fingerprint((1.5, 2))
    ('int:3', "tuple:['float:1.5', 'int:2']")
    >>> fingerprint(object()) is None
    True
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import hashlib
import json
import types as pytypes
from pathlib import Path

import numpy as np

from ti_notebook.frontend.tracer import KERNEL_SCOPE, closure_vars, scope_of

FORMAT_VERSION = 1
_MISSING = object()


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def fingerprint(value) -> str | None:
    """A stable text for ``value`` across processes, or None if it has none."""
    from ti_notebook.lang.field import Field
    from ti_notebook.lang.kernel import Func, Kernel
    from ti_notebook.lang.matrix import MatrixField
    from ti_notebook.lang.snode import SNode
    from ti_notebook.lang.types import DataType

    if value is None or isinstance(value, (bool, int, float, str, complex)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (tuple, list)):
        items = [fingerprint(v) for v in value]
        return None if None in items else f"{type(value).__name__}:{items}"
    if isinstance(value, DataType):
        return f"dtype:{value.name}"
    if isinstance(value, np.generic):
        return f"np:{value.dtype}:{value!r}"
    if isinstance(value, Field):
        try:
            # as tracing would: a field of ti.root's pending tree finalises that tree
            value._materialize()
        except Exception:
            return None
        return f"field:{_relocatable(value.layout())!r}"
    if isinstance(value, MatrixField):
        parts = [fingerprint(c) for c in value.components]
        return None if None in parts else f"matrix_field:{value.n}x{value.m}:{parts}"
    if isinstance(value, SNode):
        try:
            return f"snode:{_relocatable(value.layout())!r}"
        except Exception:
            return None
    if isinstance(value, Func):
        return f"func:{value.qualname}:{value.source().digest()}"
    if isinstance(value, Kernel):
        return f"kernel:{value.name}"
    if isinstance(value, (pytypes.FunctionType, pytypes.BuiltinFunctionType, type)):
        # Python callables run at compile time: their code decides what gets traced.
        code = getattr(value, "__code__", None)
        body = hashlib.sha256(code.co_code).hexdigest() if code is not None else ""
        consts = repr(code.co_consts) if code is not None else ""
        return f"py:{getattr(value, '__module__', '')}.{value.__qualname__}:{body}:{consts}"
    if isinstance(value, np.ndarray) and value.nbytes <= 1 << 20:
        return f"ndarray:{value.dtype}:{value.shape}:{hashlib.sha256(value.tobytes()).hexdigest()}"
    return None


@functools.cache
def compiler_digest() -> str:
    """Identifies the compiler's own source files: a changed pass or codegen (an edited
    checkout, an upgrade without a version bump) must not load code the old one made.

    Names, sizes and modification times, not contents: 0.3 ms instead of 5 ms, and an
    edit always changes the time (a fresh clone of the same code only costs misses).
    """
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def _relocatable(layout):
    """The plan without its tree id: the code finds trees through per-kernel slots."""
    return dataclasses.replace(layout, tree_id=0)


def tree_of(value) -> int | None:
    """The SNode tree a field, vector field or SNode lives in (None for other values)."""
    from ti_notebook.lang.field import Field
    from ti_notebook.lang.snode import SNode

    components = getattr(value, "components", None)
    if components:
        value = components[0]
    if isinstance(value, Field):
        return value._tree.tree_id if value._tree is not None else None
    if isinstance(value, SNode) and value.builder.tree is not None:
        return value.builder.tree.tree_id
    return None


def locate_trees(tree_ids: list[int], templates: dict, dependency_values: list) -> list | None:
    """For each tree the code uses, where to find it again: a template argument or a
    dependency holding a field of it. None when one cannot be found."""
    found = []
    for tree in tree_ids:
        where = next((["template", n] for n, v in templates.items() if tree_of(v) == tree), None)
        if where is None:
            where = next(
                (["dependency", k] for k, v in enumerate(dependency_values) if tree_of(v) == tree),
                None,
            )
        if where is None:
            return None
        found.append(where)
    return found


def trees_now(locators: list, templates: dict, dependency_values: list) -> list[int] | None:
    """The tree ids the locators point at in this process."""
    trees = []
    for kind, ref in locators:
        if kind == "template" and ref in templates:
            tree = tree_of(templates[ref])
        elif kind == "dependency" and isinstance(ref, int) and ref < len(dependency_values):
            tree = tree_of(dependency_values[ref])
        else:
            return None
        if tree is None:
            return None
        trees.append(tree)
    return trees


@functools.cache
def target_description() -> dict:
    """What the object code depends on besides the kernel: versions and the CPU (fixed
    for the process, so computed once)."""
    import llvmlite
    import llvmlite.binding as llvm

    import ti_notebook
    from ti_notebook.runtime.jit import jit

    engine = jit()
    return {
        "format": FORMAT_VERSION,
        "ti_notebook": ti_notebook.__version__,
        "compiler": compiler_digest(),
        "llvmlite": llvmlite.__version__,
        "llvm": list(llvm.llvm_version_info),
        "triple": engine.triple,
        "cpu": engine.cpu_name,
        "features": engine.cpu_features,
    }


def pre_key(request, target: dict) -> str | None:
    """The key part known before tracing, or None when a template value has no print."""
    templates = {}
    for name, value in request.template_values.items():
        templates[name] = fingerprint(value)
        if templates[name] is None:
            return None
    params = [(p.name, p.kind, p.dtype.name if p.dtype else None, p.ndim) for p in request.params]
    return _digest(
        target,
        request.source.text,
        request.name,
        params,
        request.return_type.name if request.return_type else None,
        templates,
        [repr(v) for v in request.config.codegen_key()],
        request.config.num_threads,
    )


def full_key(pre: str, dependencies: list) -> str:
    return _digest(pre, dependencies)


def record_dependencies(captured: dict, template_values: dict) -> list | None:
    """``[[scope, name, fingerprint], ...]`` from a trace, or None if not cacheable.

    Objects the trace reached without a name (a field behind an attribute, say) must
    also be reachable through a named dependency or a template value, else the cache
    could not tell when they change.
    """
    dependencies, covered = [], set()
    for value in template_values.values():
        _cover(value, covered)
    for key, value in captured.items():
        scope, name = key
        if not isinstance(scope, str) or not isinstance(name, str):
            continue
        print_ = fingerprint(value)
        if print_ is None:
            return None
        dependencies.append([scope, name, print_])
        _cover(value, covered)
    for key, value in captured.items():
        if not isinstance(key[1], str) and id(value) not in covered:
            return None
    return dependencies


def _cover(value, covered: set) -> None:
    covered.add(id(value))
    for component in getattr(value, "components", []) or []:
        covered.add(id(component))
    if isinstance(value, (tuple, list)):
        for item in value:
            _cover(item, covered)


def dependencies_hold(dependencies: list, kernel_function, template_values: dict):
    """The current values of the recorded names when each still has its recorded
    fingerprint (looked up without tracing), else None."""
    from ti_notebook.lang.kernel import Func

    scopes = {KERNEL_SCOPE: kernel_function}
    for value in template_values.values():
        if isinstance(value, Func):
            scopes[scope_of(value.func)] = value.func
    values = []
    for scope, name, expected in dependencies:
        function = scopes.get(scope)
        if function is None:
            return None
        value = _lookup(function, name)
        if value is _MISSING or fingerprint(value) != expected:
            return None
        if isinstance(value, Func):
            scopes.setdefault(scope_of(value.func), value.func)
        values.append(value)
    return values


def _lookup(function, name: str):
    """As the tracer looks a name up: closure, then globals, then builtins."""
    closure = closure_vars(function)
    if name in closure:
        return closure[name]
    found = getattr(function, "__globals__", {}).get(name, _MISSING)
    if found is not _MISSING:
        return found
    return getattr(builtins, name, _MISSING)
