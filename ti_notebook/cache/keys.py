"""Offline-cache keys, computed before tracing (DESIGN.md section 7).

A kernel's cache key has two parts:

- the *pre-key*, known before tracing: the kernel's source, its parameter kinds and
  types, its template arguments, the code-changing ``ti.init`` options, the backend and
  its capabilities, the target machine and the versions of ti_notebook, llvmlite and LLVM;
- its *dependencies*, learnt by the first trace: every Python value the kernel and the
  ``ti.func``\\ s it reaches read, as a path from a name in a scope
  (``["<kernel>", "Params.scale", fingerprint]``, ``frontend/recorder.py``), with the
  value's fingerprint (``cache/fingerprint.py``: a func's is its source, a field's its
  memory plan, a Python helper's its code, closure, defaults and the globals it names),
  and what such helpers read from the process (an environment variable, a file,
  ``sys.argv``: ``frontend/process_reads.py``).

The index stores, per pre-key, the dependency lists seen so far. A later process
resolves each path again (the root name in the same scope, then the attribute chain; no
tracing), fingerprints the values, and if they all match, the full key - and the object
code - is known without running the frontend.

    >>> full_key("pre", [["<kernel>", "Params.scale", "int:1"]]) != full_key(
    ...     "pre", [["<kernel>", "Params.scale", "int:2"]]
    ... )
    True
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import json
from pathlib import Path

from ti_notebook.cache.fingerprint import fingerprint
from ti_notebook.compiler.request import CompoundType
from ti_notebook.frontend import process_reads
from ti_notebook.frontend.recorder import KERNEL_SCOPE, TEMPLATE_SCOPE, closure_vars, scope_of
from ti_notebook.lang.field import Field
from ti_notebook.lang.func import Func
from ti_notebook.lang.snode import SNode
from ti_notebook.lang.struct_base import StructTypeBase
from ti_notebook.version import __version__

FORMAT_VERSION = 2  # 2: func annotations in their prints, entries name their pre-key
_MISSING = object()


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


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


def tree_of(value) -> int | None:
    """The SNode tree a field, vector field or SNode lives in (None for other values)."""
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
def target_description(backend) -> dict:
    """What the code depends on besides the kernel: versions and the backend's target
    (fixed for the process, so computed once per backend)."""
    import llvmlite
    import llvmlite.binding as llvm

    return {
        "format": FORMAT_VERSION,
        "ti_notebook": __version__,
        "compiler": compiler_digest(),
        "llvmlite": llvmlite.__version__,
        "llvm": list(llvm.llvm_version_info),
        "arch": backend.arch,
        **backend.target_description(),
    }


def pre_key(request, target: dict) -> str | None:
    """The key part known before tracing, or None when a template value has no print."""
    templates = {}
    for name, value in request.template_values.items():
        templates[name] = fingerprint(value)
        if templates[name] is None:
            return None
    params = [
        (p.name, p.kind, p.dtype.name if p.dtype else None, p.ndim, p.element_shape)
        + ((p.compound.description,) if p.compound is not None else ())
        for p in request.params
    ]
    # the methods of struct types a parameter or the return value has: their code
    methods = [fingerprint(t) for t in compound_types(request)]
    if None in methods:
        return None
    return _digest(
        target,
        request.source.text,
        request.name,
        params,
        request.return_type.name if request.return_type else None,
        templates,
        *([methods] if methods else []),
        [repr(v) for v in request.options.codegen_key()],
        request.backend.capabilities.key(),
    )


def compound_types(request) -> list:
    """The struct types of the request's compound parameters and return value, nested
    ones included: their ``@ti.func`` methods are code the kernel may inline."""
    found = []
    roots = [p.compound.lang_type for p in request.params if p.compound is not None]
    if isinstance(request.return_type, CompoundType):
        lang_type = request.return_type.lang_type
        roots.extend(lang_type if isinstance(lang_type, tuple) else [lang_type])
    while roots:
        value = roots.pop()
        if isinstance(value, StructTypeBase) and all(value is not t for t in found):
            found.append(value)
            roots.extend(value.members.values())
    return found


def full_key(pre: str, dependencies: list) -> str:
    return _digest(pre, dependencies)


def record_dependencies(
    captured: dict, template_values: dict, compounds: list = ()
) -> tuple[list | None, str]:
    """``([[scope, path, fingerprint], ...], "")`` from a trace, or ``(None, why)`` when
    the kernel cannot be cached.

    Objects the trace reached without a path (a field a helper returned, say) must also
    be reachable through a recorded path or a template value, else the cache could not
    tell when they change. Each path's scope must be one a warm start can find: the
    kernel's, the template arguments', or a ``ti.func``'s reached through a path before.
    """
    dependencies, covered = [], set()
    scopes = _template_scopes(template_values, compounds)
    for value in template_values.values():
        _cover(value, covered)
    for key, value in captured.items():
        scope, path = key
        if not isinstance(scope, str) or not isinstance(path, str):
            continue
        if scope not in scopes and scope not in process_reads.PROCESS_SCOPES:
            return None, f"it reads '{path}' in a ti.func that no name leads to"
        print_ = fingerprint(value)
        if print_ is None:
            return None, f"'{path}' has no stable fingerprint ({type(value).__name__})"
        dependencies.append([scope, path, print_])
        _add_scope(scopes, value)
        _cover(value, covered)
    for key, value in captured.items():
        if not isinstance(key[1], str) and id(value) not in covered:
            return None, f"the {key[0]} '{getattr(value, 'name', '?')}' is reached only indirectly"
    return dependencies, ""


def _cover(value, covered: set) -> None:
    covered.add(id(value))
    for component in getattr(value, "components", []) or []:
        covered.add(id(component))
    if isinstance(value, (tuple, list)):
        for item in value:
            _cover(item, covered)


def _template_scopes(template_values: dict, compounds: list = ()) -> dict:
    scopes = {KERNEL_SCOPE: None, TEMPLATE_SCOPE: None}
    for value in [*template_values.values(), *compounds]:
        _add_scope(scopes, value)
    return scopes


def _add_scope(scopes: dict, value) -> None:
    """The scopes of funcs a value leads to: a func's own, a struct type's methods'."""
    if isinstance(value, Func):
        scopes.setdefault(scope_of(value.func), value.func)
    elif isinstance(value, StructTypeBase):
        for method in value.methods.values():
            _add_scope(scopes, method)


def dependencies_hold(
    dependencies: list, kernel_function, template_values: dict, compounds: list = ()
):
    """The current values of the recorded paths when each still has its recorded
    fingerprint (resolved without tracing), else None.

        >>> K = 3
        >>> def body():
        ...     return K
        >>> dependencies_hold([["<kernel>", "K", "int:3"]], body, {})
        [3]
        >>> dependencies_hold([["<kernel>", "K.real", "int:4"]], body, {}) is None
        True
    """
    scopes = _template_scopes(template_values, compounds)
    scopes[KERNEL_SCOPE] = kernel_function
    values = []
    for scope, path, expected in dependencies:
        value = _resolve(scopes, scope, path, template_values)
        if value is _MISSING or fingerprint(value) != expected:
            return None
        _add_scope(scopes, value)
        values.append(value)
    return values


def _resolve(scopes: dict, scope: str, path: str, template_values: dict):
    """As tracing reached it: the root name in its scope, then each attribute."""
    if scope in process_reads.PROCESS_SCOPES:  # an environment variable, a file, argv
        return process_reads.value_now(scope, path)
    root, *attributes = path.split(".")
    if scope == TEMPLATE_SCOPE:
        value = template_values.get(root, _MISSING)
    elif scopes.get(scope) is None:
        return _MISSING
    else:
        value = _lookup(scopes[scope], root)
    for attribute in attributes:
        if value is _MISSING:
            break
        try:
            value = getattr(value, attribute)
        except Exception:  # gone, or a property that now fails: not the value traced
            return _MISSING
    return value


def _lookup(function, name: str):
    """As the tracer looks a name up: closure, then globals, then builtins."""
    closure = closure_vars(function)
    if name in closure:
        return closure[name]
    found = getattr(function, "__globals__", {}).get(name, _MISSING)
    if found is not _MISSING:
        return found
    return getattr(builtins, name, _MISSING)
