"""``*args`` and ``**kwargs`` in kernels: unpacked while compiling.

``f(*t)`` passes the items of ``t`` one by one: a tuple or list known at compile time
(``ti.ndrange(*shape)``), or a kernel vector (its components; a matrix's row by row).
``f(**kw)`` passes the entries of a dict known at compile time. The call is rewritten
before any handler sees it: each unpacked item becomes a :class:`KnownValue` argument
that evaluates to the item, so every call handler (``ti.*`` functions, ``ti.func``
inlining, Python helpers) works on plain positional and keyword arguments. Displays
unpack too: ``(*a, 1)``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> shape = (2, 3)
    >>> @ti.func
    ... def weighted(a, b, c, scale=1):
    ...     return (a + 2 * b + 3 * c) * scale
    >>> @ti.kernel
    ... def count() -> ti.i32:
    ...     n = 0
    ...     for i, j in ti.ndrange(*shape):
    ...         n += 1
    ...     v = ti.Vector([1, 2, 3])
    ...     return n * 100 + weighted(*v, **{"scale": 2})
    >>> count()
    628
"""

from __future__ import annotations

import ast

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.values import Vector
from ti_notebook.ir import nodes as ir

HANDLERS = Handlers()


class KnownValue(ast.Name):
    """An argument already evaluated: one item of an unpacked ``*t`` or ``**kw``.

    It is an ``ast.Name`` whose ``id`` is the item's source text (``shape[1]``), so
    errors and ``ast.unparse`` show the call as the user could have written it; the
    dispatcher tells it from a real name by its type.
    """

    def __init__(self, value, text: str, where: ast.AST) -> None:
        super().__init__(id=text, ctx=ast.Load())
        self.value = value
        ast.copy_location(self, where)


# ``ast.unparse`` picks its printer by the class's name: print it as the name it is.
KnownValue.__name__ = "Name"


@HANDLERS.expression(KnownValue)
def _known_value(ctx: TraceContext, node: KnownValue):
    return node.value


@HANDLERS.expression(ast.Starred)
def _starred(ctx: TraceContext, node: ast.Starred):
    raise ctx.error(
        TiSyntaxError,
        node,
        f"'{ast.unparse(node)}' can only unpack into a call's arguments or a tuple/list",
        "write the items out, or index them: t[0], t[1]",
    )


def has_unpacking(node: ast.Call) -> bool:
    """Whether a call has ``*args`` or ``**kwargs`` to unpack."""
    return any(isinstance(a, ast.Starred) for a in node.args) or any(
        kw.arg is None for kw in node.keywords
    )


def expand_call(ctx: TraceContext, node: ast.Call) -> ast.Call:
    """``node`` with its ``*args``/``**kwargs`` unpacked into plain arguments (``node``
    itself when it has none)."""
    if not has_unpacking(node):
        return node
    args: list[ast.expr] = []
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            args.extend(_unpacked_items(ctx, arg))
        else:
            args.append(arg)
    keywords: list[ast.keyword] = []
    for kw in node.keywords:
        if kw.arg is None:
            keywords.extend(_unpacked_entries(ctx, kw))
        else:
            keywords.append(kw)
    return ast.copy_location(ast.Call(func=node.func, args=args, keywords=keywords), node)


def display_items(ctx: TraceContext, elements: list[ast.expr]) -> list:
    """The values of a tuple or list display's elements, ``*t`` unpacked in place."""
    values: list = []
    for element in elements:
        if isinstance(element, ast.Starred):
            values.extend(item.value for item in _unpacked_items(ctx, element))
        else:
            values.append(ctx.expr(element))
    return values


def _unpacked_items(ctx: TraceContext, node: ast.Starred) -> list[KnownValue]:
    value = ctx.expr(node.value)
    text = ast.unparse(node.value)
    if isinstance(value, Vector):
        items = list(value.items)  # a matrix's components row by row, as Taichi unpacks it
    elif isinstance(value, (tuple, list, range, str)):
        items = list(value)
    elif isinstance(value, (ir.Stmt, bool, int, float)):
        raise ctx.error(
            TiTypeError,
            node,
            f"cannot unpack '{text}': it is a single number",
            "'*' unpacks a tuple, a list or a vector",
        )
    else:
        try:
            items = list(value)
        except TypeError:
            raise ctx.error(
                TiTypeError,
                node,
                f"cannot unpack '{text}' ({type(value).__name__}) with '*'",
                "'*' unpacks a tuple, a list or a vector known at compile time",
            ) from None
    if not isinstance(text, str) or not text.isidentifier():
        text = f"({text})"
    return [KnownValue(item, f"{text}[{k}]", node) for k, item in enumerate(items)]


def _unpacked_entries(ctx: TraceContext, kw: ast.keyword) -> list[ast.keyword]:
    value = ctx.expr(kw.value)
    text = ast.unparse(kw.value)
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ctx.error(
            TiTypeError,
            kw.value,
            f"cannot unpack '{text}' with '**': it is not a dict with string keys",
            "'**' unpacks a dict known at compile time, e.g. **{'scale': 2}",
        )
    keywords = []
    for key, item in value.items():
        known = KnownValue(item, f"{text}[{key!r}]", kw.value)
        keywords.append(ast.copy_location(ast.keyword(arg=key, value=known), kw.value))
    return keywords
