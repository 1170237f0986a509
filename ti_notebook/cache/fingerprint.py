"""Fingerprints: a text per Python value that is the same in every process, or None.

The offline cache reuses object code only when every value tracing read still has the
fingerprint it had (``cache/keys.py``). Values a kernel reads by name or by
attribute path (``frontend/recorder.py``) print as follows:

- numbers, strings, enum members, tuples, lists, dicts and small arrays: their value;
- fields and SNodes: their memory plan; ``ti.func``\\ s: their source, defaults and
  the values their parameter and return annotations hold (``x: DT``, resolved now);
  struct types: their members' types and their methods' prints;
- ``ti.Vector``/``ti.Matrix`` values: their element type and items; vector and matrix
  types (``ti.math.vec3``): their shape and element type;
- namespaces (modules, classes, ``types.SimpleNamespace``, ``@ti.data_oriented``
  instances): their name only, because the recorder follows every attribute read from
  them as a path of its own;
- plain Python functions, which run while compiling (``range(helper(4))``): everything
  that decides what they return - their code (nested code objects and the names they
  use included), closure cells, defaults, and the globals their code names (recursively
  for the functions among them; of a module or class global, the attributes named in
  the code, or in its string constants, for ``getattr(cfg, "N")``). A function that
  reads names its code does not spell (``globals()``, ``vars``, ``eval``) has none;
- ti_notebook's own functions and modules print as their name (the compiler digest
  covers their code); installed libraries' (NumPy, the standard library) as their
  name and the library's version;
- anything else - an arbitrary object - has no fingerprint: the kernel is not cached.

Printing only reads: a field or SNode of a tree not finalised yet has no print (the
session finalises ``ti.root``'s pending tree before it keys a compile).

    >>> fingerprint(3), fingerprint((1.5, 2))
    ('int:3', "tuple:['float:1.5', 'int:2']")
    >>> fingerprint(object()) is None
    True
    >>> scope = {"K": 3}  # a user module's globals, holding one helper
    >>> exec("helper = lambda: K * 2", scope)
    >>> before = fingerprint(scope["helper"])
    >>> scope["K"] = 4
    >>> fingerprint(scope["helper"]) != before
    True
"""

from __future__ import annotations

import enum
import functools
import hashlib
import inspect
import sys
import types as pytypes

import numpy as np

from ti_notebook.frontend.origins import compiler_owned, is_ours, library_version
from ti_notebook.frontend.source import source_of
from ti_notebook.ir.types import DataType
from ti_notebook.lang.data_oriented import is_data_oriented
from ti_notebook.lang.element_type import ElementType
from ti_notebook.lang.field import Field
from ti_notebook.lang.func import Func, KernelBase, resolve_annotation
from ti_notebook.lang.matrix import Matrix, MatrixField
from ti_notebook.lang.snode import SNode
from ti_notebook.lang.struct_base import StructTypeBase, describe
from ti_notebook.lang.struct_field import StructField
from ti_notebook.lang.struct_values import Struct

_MAX_DEPTH = 32  # a deeper chain of functions and namespaces is not worth following
_ARRAY_LIMIT = 1 << 20
_code_prints: dict[int, tuple[pytypes.CodeType, str, frozenset]] = {}
_struct_types_printing: set[int] = set()  # struct types whose methods are being printed
_DYNAMIC_READS = frozenset({"globals", "vars", "eval", "exec", "__dict__", "__import__"})


def fingerprint(value) -> str | None:
    """The fingerprint of a value a kernel read by name or attribute path."""
    return _Printer().print(value, None)


def _named(value) -> str:
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"


class _Printer:
    """One fingerprint computation; remembers what it is inside of, to stop at cycles."""

    def __init__(self) -> None:
        self.active: set[int] = set()

    def print(self, value, names: frozenset | None) -> str | None:
        """``names`` None: as a kernel read it. A set: as the Python code whose code
        names those reads it (namespaces then print the attributes it names)."""
        if value is None or isinstance(value, (bool, int, float, str, complex)):
            return f"{type(value).__name__}:{value!r}"
        if isinstance(value, (tuple, list, dict, set, frozenset, bytes)):
            return self.container(value, names)
        if isinstance(value, (np.generic, np.ndarray)):
            return _numpy(value)
        if isinstance(value, enum.Enum):
            member = self.print(value.value, names)
            return member and f"enum:{_named(type(value))}.{value.name}:{member}"
        from_compiler = _compiler_value(value, names)
        if from_compiler is not None:
            return from_compiler or None
        if is_data_oriented(value):  # its attributes are paths of their own, or named
            return self.namespace(value, names)
        if compiler_owned(value):
            return f"ti:{value.__name__ if inspect.ismodule(value) else _named(value)}"
        if id(value) in self.active:
            # A cycle (a function that calls itself): the outer print covers it.
            return f"cycle:{getattr(value, '__qualname__', type(value).__name__)}"
        if len(self.active) > _MAX_DEPTH:
            return None
        self.active.add(id(value))
        try:
            return self.callable_or_namespace(value, names)
        finally:
            self.active.discard(id(value))

    def container(self, value, names) -> str | None:
        if isinstance(value, bytes):
            return f"bytes:{hashlib.sha256(value).hexdigest()}"
        if isinstance(value, dict):
            items = [(self.print(k, names), self.print(v, names)) for k, v in value.items()]
            if any(None in pair for pair in items):
                return None
            return f"dict:{sorted(items)}"
        items = [self.print(v, names) for v in value]
        if None in items:
            return None
        if isinstance(value, (set, frozenset)):
            items.sort()
        return f"{type(value).__name__}:{items}"

    def callable_or_namespace(self, value, names) -> str | None:
        if isinstance(value, pytypes.FunctionType):
            return self.function(value)
        if isinstance(value, pytypes.MethodType):
            func = self.print(value.__func__, None)
            owner = self.print(
                value.__self__, _code_names(getattr(value.__func__, "__code__", None))
            )
            return None if func is None or owner is None else f"method:{func}:{owner}"
        if isinstance(value, functools.partial):
            parts = [self.print(p, None) for p in (value.func, value.args, value.keywords)]
            return None if None in parts else f"partial:{parts}"
        if isinstance(value, (pytypes.ModuleType, type, pytypes.SimpleNamespace)):
            return self.namespace(value, names)
        if isinstance(value, pytypes.BuiltinFunctionType):
            owner = value.__self__
            if owner is None or isinstance(owner, pytypes.ModuleType):
                version = library_version(getattr(value, "__module__", None) or "builtins")
                return f"lib:{_named(value)}@{version}" if version else None
            held = self.print(owner, None)  # a bound method of a value, like D.get
            return (
                None
                if held is None
                else f"bound:{type(owner).__qualname__}.{value.__name__}:{held}"
            )
        version = library_version(getattr(value, "__module__", None) or "")
        if version is not None and callable(value) and hasattr(value, "__qualname__"):
            return f"lib:{_named(value)}@{version}"  # a NumPy ufunc, a C-level callable
        return None

    def namespace(self, value, names) -> str | None:
        if isinstance(value, pytypes.ModuleType):
            version = library_version(value.__name__)
            if version is not None and sys.modules.get(value.__name__) is value:
                return f"module:{value.__name__}@{version}"
            head = f"module:{value.__name__}"
        elif isinstance(value, type):
            version = library_version(value.__module__)
            if version is not None:
                return f"lib:{_named(value)}@{version}"
            head = f"class:{_named(value)}"
        elif is_data_oriented(value):
            head = f"data_oriented:{_named(type(value))}"
        else:
            head = "namespace"
        if names is None:
            return head  # read by a kernel: each attribute read is a path of its own
        attributes = []
        for name in sorted(names):
            try:
                attribute = getattr(value, name)
            except Exception:  # absent, or a property that fails: the code cannot use it
                continue
            printed = self.print(attribute, names)
            if printed is None:
                return None
            attributes.append((name, printed))
        return f"{head}:{attributes}"

    def function(self, fn: pytypes.FunctionType) -> str | None:
        code = fn.__code__
        code_print, names = _code_print(code)
        if names & _DYNAMIC_READS:
            return None  # reads names the code does not spell: nothing to follow
        parts = [fn.__qualname__, code_print]
        for name, cell in zip(code.co_freevars, fn.__closure__ or (), strict=False):
            try:
                content = cell.cell_contents
            except ValueError:  # a name the enclosing function has not bound yet
                parts.append((name, "empty"))
                continue
            parts.append((name, self.print(content, names)))
        parts.append(self.print(fn.__defaults__, names))
        parts.append(self.print(fn.__kwdefaults__, names))
        scope = fn.__globals__
        # Every global the code could read, not only the names loaded as globals: an
        # attribute name that is also a global costs a print, never a wrong hit.
        parts.extend(
            (name, self.print(scope[name], names)) for name in sorted(names) if name in scope
        )
        if any(p is None or (isinstance(p, tuple) and p[1] is None) for p in parts):
            return None
        return f"py:{hashlib.sha256(repr(parts).encode()).hexdigest()}"


def _compiler_value(value, names) -> str | None:
    """Fields, SNodes, types and funcs: a print, "" for no print, None if not one."""
    if isinstance(value, DataType):
        return f"dtype:{value.name}"
    if isinstance(value, Field):
        # Printing only reads: the session finalises ti.root's pending tree before it
        # keys a compile (session/compiling.py), so a field with no tree here is one
        # no kernel can use yet (an unfinalised FieldsBuilder's, an unplaced one's).
        if value._tree is None or value._tree.destroyed:
            return ""
        adjoints = [
            relocatable(adjoint._layout)
            for adjoint in (value._grad, value._dual)
            if adjoint is not None and adjoint._tree is not None
        ]  # where the grad kernels find them
        return f"field:{relocatable(value._layout)!r}" + (f":{adjoints!r}" if adjoints else "")
    if isinstance(value, MatrixField):
        parts = [_compiler_value(c, names) for c in value.components]
        return "" if "" in parts else f"matrix_field:{value.n}x{value.m}:{parts}"
    if isinstance(value, StructField):
        parts = [_compiler_value(member, names) for member in value.members.values()]
        return "" if "" in parts else f"struct_field:{value.keys}:{parts}"
    if isinstance(value, Struct):  # a Python struct value read by a kernel: its members
        members = _Printer().print(dict(value.items), None)
        struct_type = value._type
        of_type = "untyped" if struct_type is None else _compiler_value(struct_type, names)
        return "" if members is None or of_type == "" else f"struct:{of_type}:{members}"
    if isinstance(value, StructTypeBase):  # its layout, and its methods' code
        if id(value) in _struct_types_printing:  # a method annotated with its own type
            return f"struct_type:{describe(value)}:within"
        _struct_types_printing.add(id(value))
        try:
            methods = [(k, _Printer().print(m, None)) for k, m in sorted(value.methods.items())]
        finally:
            _struct_types_printing.discard(id(value))
        if any(printed is None for _, printed in methods):
            return ""
        return f"struct_type:{describe(value)}:{methods}"
    if isinstance(value, SNode):
        if value.builder.tree is None:  # layout() would finalise ti.root's pending tree
            return ""
        try:
            return f"snode:{relocatable(value.layout())!r}"
        except Exception:
            return ""
    if isinstance(value, Func):
        defaults = _Printer().print((value.func.__defaults__, value.func.__kwdefaults__), None)
        annotations = _annotations(value)
        if defaults is None or annotations is None:
            return ""
        return f"func:{value.qualname}:{source_of(value).digest()}:{defaults}:{annotations}"
    if isinstance(value, KernelBase):
        return f"kernel:{value.name}"
    if isinstance(value, Matrix):  # a ti.Vector value: its type and its items
        spec = getattr(value._spec, "name", None) or value._spec.__name__
        return f"matrix:{spec}:{_numpy(value.entries)}"
    if isinstance(value, ElementType):  # ti.types.vector(3, ti.f32), ti.math.vec3
        return f"element_type:{value!r}"
    return None


def _annotations(func: Func) -> str | None:
    """The values a func's parameter and return annotations hold now: ``x: DT`` or
    ``-> ti.types.vector(3, cfg.DT)`` reads globals the source does not show, and the
    types decide the casts the func's code makes."""
    signature = func.signature
    annotations = [p.annotation for p in signature.parameters.values()]
    printed = []
    for annotation in [*annotations, signature.return_annotation]:
        if annotation is inspect.Parameter.empty:
            printed.append("-")
            continue
        value = resolve_annotation(func.func, annotation)
        text = _Printer().print(value, None)
        attributes = getattr(value, "__dict__", None)
        if text is None and is_ours(type(value).__module__) and attributes is not None:
            # ti.template(), ti.types.ndarray(...): a ti_notebook object, told by its state
            state = _Printer().print(dict(attributes), None)
            text = state and f"{_named(type(value))}:{state}"
        if text is None:
            return None
        printed.append(text)
    return repr(printed)


def relocatable(layout):
    """The plan without its tree id: the code finds trees through per-kernel slots."""
    import dataclasses

    return dataclasses.replace(layout, tree_id=0)


def _numpy(value) -> str | None:
    if isinstance(value, np.generic):
        return f"np:{value.dtype}:{value!r}"
    if value.dtype.hasobject or value.nbytes > _ARRAY_LIMIT:
        return None
    digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
    return f"ndarray:{value.dtype}:{value.shape}:{digest}"


def _code_print(code: pytypes.CodeType) -> tuple[str, frozenset]:
    """A digest of everything in a code object but its positions, and the names it and
    its nested code objects use (globals and attributes alike). Cached: code objects
    never change, and a hit re-prints the same helpers."""
    cached = _code_prints.get(id(code))
    if cached is not None and cached[0] is code:
        return cached[1], cached[2]
    consts, names = [], set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            nested, nested_names = _code_print(const)
            consts.append(("code", nested))
            names |= nested_names
        else:
            consts.append(_const(const))
            if isinstance(const, str) and const.isidentifier():
                names.add(const)  # getattr(cfg, "N") reads cfg.N too
    shape = (
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_argcount,
        code.co_posonlyargcount,
        code.co_kwonlyargcount,
        code.co_flags,
        consts,
    )
    digest = hashlib.sha256(code.co_code + repr(shape).encode()).hexdigest()
    if len(_code_prints) > 4096:
        _code_prints.clear()
    _code_prints[id(code)] = (code, digest, frozenset(names))  # holding code keeps id valid
    return digest, frozenset(names)


def _code_names(code) -> frozenset:
    return _code_print(code)[1] if isinstance(code, pytypes.CodeType) else frozenset()


def _const(value):
    if isinstance(value, (tuple, frozenset)):
        items = [_const(v) for v in value]
        return (
            type(value).__name__,
            sorted(items, key=repr) if isinstance(value, frozenset) else items,
        )
    return (type(value).__name__, repr(value))
