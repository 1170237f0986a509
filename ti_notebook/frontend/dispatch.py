"""Which rule traces each piece of kernel code: the tables the handler modules fill.

Each topic module of the frontend (``assignments``, ``loops``, ``calls``...) owns one
:class:`Handlers` and registers in it what it handles: AST statement and expression
node types, the ``ti.*`` and Python functions a call may name, and the methods of
kernel vectors. A :class:`Dispatcher` merges the modules' tables once, when the
frontend is imported (``frontend/tracer.py``), and the tracing context looks each node
up there. A name claimed by two modules is a bug, reported at import.

    >>> import ast
    >>> handlers = Handlers()
    >>> @handlers.statement(ast.Pass)
    ... def skip(ctx, node):
    ...     pass
    >>> Dispatcher(handlers).statements[ast.Pass] is skip
    True
    >>> Dispatcher(handlers, handlers).calls
    {}
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Iterable

_TABLES = ("statements", "expressions", "calls", "methods")


class Handlers:
    """What one handler module handles; its decorators register a function.

    Statement and expression handlers take ``(ctx, node)``; call handlers take
    ``(ctx, node)`` with the ``ast.Call``; method handlers take ``(ctx, method, args,
    keywords, node)``, ``method`` a :class:`~ti_notebook.frontend.values.BoundMethod`.

        >>> handlers = Handlers()
        >>> @handlers.method("twice")
        ... def twice(ctx, method, args, keywords, node):
        ...     return [2 * x for x in method.value]
        >>> sorted(handlers.methods)
        ['twice']
    """

    def __init__(self) -> None:
        self.statements: dict[type, Callable] = {}
        self.expressions: dict[type, Callable] = {}
        self.calls: dict[Hashable, Callable] = {}
        self.methods: dict[str, Callable] = {}

    def statement(self, *node_types: type) -> Callable:
        """Registers the handler of these ``ast.stmt`` types."""
        return _registrar(self.statements, node_types)

    def expression(self, *node_types: type) -> Callable:
        """Registers the handler of these ``ast.expr`` types."""
        return _registrar(self.expressions, node_types)

    def call(self, *functions: Hashable) -> Callable:
        """Registers the handler of calls to these functions (``ti.sqrt``, ``print``)."""
        return _registrar(self.calls, functions)

    def method(self, *names: str) -> Callable:
        """Registers the handler of these methods of kernel vectors (``v.dot(w)``)."""
        return _registrar(self.methods, names)


class Dispatcher:
    """The handler modules' tables, merged: what the tracing context looks up.

    >>> a, b = Handlers(), Handlers()
    >>> @a.call(len)
    ... def length(ctx, node):
    ...     return 0
    >>> @b.call(len)
    ... def other_length(ctx, node):
    ...     return 1
    >>> Dispatcher(a, b)
    Traceback (most recent call last):
    ...
    ValueError: two handlers for <built-in function len> in calls
    """

    def __init__(self, *modules: Handlers) -> None:
        self.statements: dict[type, Callable] = {}
        self.expressions: dict[type, Callable] = {}
        self.calls: dict[Hashable, Callable] = {}
        self.methods: dict[str, Callable] = {}
        for handlers in modules:
            for table in _TABLES:
                _merge(getattr(self, table), getattr(handlers, table), table)


def _registrar(table: dict, keys: Iterable[Hashable]) -> Callable:
    def register(handler: Callable) -> Callable:
        _merge(table, dict.fromkeys(keys, handler), "one module")
        return handler

    return register


def _merge(into: dict, table: dict, what: str) -> None:
    for key, handler in table.items():
        if into.get(key, handler) is not handler:
            raise ValueError(f"two handlers for {key!r} in {what}")
        into[key] = handler


_NAMES = {
    "Lambda": "lambda",
    "With": "with",
    "Try": "try",
    "ClassDef": "class",
    "FunctionDef": "def",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Delete": "del",
    "Raise": "raise",
    "Import": "import",
    "ImportFrom": "import",
    "Yield": "yield",
    "Await": "await",
    "ListComp": "list comprehension",
    "DictComp": "dict comprehension",
    "SetComp": "set comprehension",
    "GeneratorExp": "generator expression",
    "JoinedStr": "f-string",
    "Starred": "starred",
    "Dict": "dict display",
    "Set": "set display",
}


def describe(node: ast.AST) -> str:
    """How an error names a statement or expression that no handler takes.

    >>> describe(ast.parse("del x").body[0])
    'del'
    """
    return _NAMES.get(type(node).__name__, type(node).__name__)
