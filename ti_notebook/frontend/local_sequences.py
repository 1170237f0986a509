"""Lists and tuples of kernel values bound to a name, whose items the kernel assigns.

In Taichi, ``v = [a, b, c]`` inside a kernel makes one local variable per item, so
``v[1] = x`` and the swap ``v[1], v[2] = v[2], v[1]`` work, under a runtime ``if``
too. The items are chosen while compiling: an index must be a constant or
``ti.static(...)`` (a loop variable of ``for i in ti.static(range(n))`` is one), and
``len(v)`` and ``for e in ti.static(v)`` see the items' current values.

A list or tuple whose items the function never assigns stays what it always was: a
compile-time list of the values it was made from. Reading it is the same as reading
locals that nothing changes, and its constant items stay usable where a compile-time
value is needed (``ti.static(range(n[0]))``). A function assigns a name's items when
a target of ``=``, ``+=`` or a ``for`` is rooted at the name (``v[1] = ...``,
``v[0].x = ...``), or ``ti.atomic_*`` or ``.fill()`` updates one in place.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def ordered(a: ti.i32, b: ti.i32, c: ti.i32) -> ti.i32:
    ...     v = [a, b, c]
    ...     for i in ti.static(range(2)):
    ...         if v[i] > v[i + 1]:
    ...             v[i], v[i + 1] = v[i + 1], v[i]
    ...     return v[0] * 100 + v[1] * 10 + v[2]
    >>> ordered(3, 1, 2)
    123
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import operator

from ti_notebook.errors import TiIndexError, TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.struct_values import StructSlots
from ti_notebook.frontend.values import Slots, Vector, VectorVariable
from ti_notebook.ir import nodes as ir


@dataclasses.dataclass(frozen=True)
class LocalSequence:
    """A list or tuple of places: per item an alloca, a VectorVariable, a struct's
    slots, a nested LocalSequence, or (a field, a type...) the compile-time value."""

    kind: type  # list or tuple: what reading the name gives
    items: tuple


@functools.lru_cache(maxsize=256)
def _written_names(function: ast.AST) -> frozenset[str]:
    """The names whose items ``function`` assigns (see the module docstring)."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            roots = [node]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "fill":
                roots = [node.func.value]
            elif node.func.attr.startswith("atomic_") and node.args:
                roots = [node.args[0]]
            else:
                continue
        else:
            continue
        for root in roots:
            if isinstance(root, (ast.Subscript, ast.Attribute)):  # only through an item
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name):
                    names.add(root.id)
    return frozenset(names)


def items_assigned(ctx: TraceContext, name: str) -> bool:
    """Whether the function being traced assigns items of ``name`` anywhere."""
    return name in _written_names(ctx.frame.source.function_def)


class PythonItem(TiSyntaxError):
    """``seq[k]`` of a Python tuple or list as an assignment target: not a place."""


def make(ctx: TraceContext, name: str, value: list | tuple, variable) -> LocalSequence:
    """Taichi's ``v = [a, b]`` in a kernel: ``variable(ctx, label, item)`` (a fresh
    local holding the item, or the item itself) per item, nested lists too."""
    places = []
    for k, entry in enumerate(value):
        label = f"{name}[{k}]"
        if isinstance(entry, (list, tuple)):
            places.append(make(ctx, label, entry, variable))
        else:
            places.append(variable(ctx, label, entry))
    return LocalSequence(list if isinstance(value, list) else tuple, tuple(places))


def place(ctx: TraceContext, sequence: LocalSequence, node: ast.Subscript):
    """``v[k]`` of a list or tuple of locals: the item's place; an item that is a
    compile-time value (a field) is not one, but what indexes it may be."""
    found = _item(ctx, sequence, node)
    if isinstance(found, VectorVariable):
        return Slots(found.allocas, found.shape)
    if isinstance(found, ir.AllocaStmt | StructSlots | LocalSequence):
        return found
    raise PythonItem(
        f"cannot assign to '{ast.unparse(node)}': it is a compile-time value "
        f"({type(found).__name__}), not a local",
        ctx.pos(node),
        "assign to what it holds instead: an element of a field, fields[k][i] = ...",
    )


def _item(ctx: TraceContext, sequence: LocalSequence, node: ast.Subscript):
    """What ``node`` (``v[k]``) selects in ``sequence``: the item's variable."""
    what = "list" if sequence.kind is list else "tuple"
    name = ast.unparse(node.value)
    if isinstance(node.slice, ast.Slice):
        raise ctx.error(
            TiSyntaxError,
            node,
            f"cannot assign to a slice of the {what} '{name}'",
            f"assign its items one at a time: {name}[0] = ...",
        )
    value = ctx.expr(node.slice)
    runs = isinstance(value, (ir.Stmt, Vector))
    try:
        index = None if runs else operator.index(value)
    except TypeError:
        index = None
    if index is None:
        known = "known only when the kernel runs" if runs else "not an integer"
        raise ctx.error(
            TiTypeError,
            node.slice,
            f"cannot assign to '{ast.unparse(node)}': the items of the {what} '{name}' are "
            f"chosen while compiling, and '{ast.unparse(node.slice)}' is {known}",
            f"index it with a constant or a ti.static(range(...)) loop variable, or make "
            f"'{name}' a vector (ti.Vector([...])) to index it at run time",
        )
    if not -len(sequence.items) <= index < len(sequence.items):
        raise ctx.error(
            TiIndexError,
            node.slice,
            f"index {index} out of range for the {what} '{name}' of {len(sequence.items)} items",
            f"its items are {name}[0] to {name}[{len(sequence.items) - 1}]; a {what} made in "
            "a kernel keeps its length",
        )
    return sequence.items[index]
