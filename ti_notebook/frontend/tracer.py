"""Python AST → ti_notebook IR: scopes, name lookup and the visitor's dispatch.

The statement, expression, loop and call rules live in mixins next to this file; this
module holds the state they share. A kernel is traced once per specialisation:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def seven() -> ti.i32:
    ...     return 3 + 4
    >>> seven()
    7
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses

from ti_notebook.errors import TiError, TiNameError, TiSyntaxError
from ti_notebook.frontend.builder import IRBuilder
from ti_notebook.frontend.calls import CallsMixin
from ti_notebook.frontend.expressions import ExpressionsMixin
from ti_notebook.frontend.loops import LoopsMixin
from ti_notebook.frontend.matrices import MatricesMixin
from ti_notebook.frontend.recorder import KERNEL_SCOPE, Reads
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.frontend.statements import StatementsMixin
from ti_notebook.frontend.values import MISSING as _MISSING
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.lang import types


@dataclasses.dataclass
class KernelState:
    """What the whole kernel's trace shares, across inlined funcs."""

    name: str
    config: CompileOptions
    builder: IRBuilder
    return_type: types.DataType | None = None
    captured: dict = dataclasses.field(default_factory=dict)  # (func, name) -> value
    reached_funcs: dict = dataclasses.field(default_factory=dict)  # qualname -> source digest
    prints: list = dataclasses.field(default_factory=list)  # print formats by id
    depth: int = 0  # enclosing non-static blocks; 0 = the kernel's top level
    loops: list = dataclasses.field(default_factory=list)  # (stmt, parallel) innermost last
    pending_loop_config: dict = dataclasses.field(default_factory=dict)
    pending_block_local: tuple | None = None  # (fields, pos) of a ti.block_local before a loop
    returned: bool = False
    inline_depth: int = 0
    reads: Reads = dataclasses.field(init=False)  # every Python value read, as paths

    def __post_init__(self) -> None:
        self.reads = Reads(self.captured)


class FunctionTracer(StatementsMixin, ExpressionsMixin, LoopsMixin, CallsMixin, MatricesMixin):
    """Traces one function body (the kernel's, or an inlined func's) into IR."""

    def __init__(self, state: KernelState, source: FunctionSource, is_kernel: bool) -> None:
        self.state = state
        self.source = source
        self.is_kernel = is_kernel
        self.builder: IRBuilder = state.builder
        self.scopes: list[dict[str, object]] = [{}]
        func = source.func
        self.globals = getattr(func, "__globals__", {})
        self.closure = closure_vars(func)
        # Names read are recorded per scope, so the offline cache can look them up
        # again in a later process without tracing (compiler/cache_keys.py).
        self.scope = KERNEL_SCOPE if is_kernel else scope_of(func)
        state.reads.enter(self.scope, func)
        self.func_return: ir.AllocaStmt | None = None
        self.func_return_value = _MISSING

    # -- positions and errors -------------------------------------------------------
    def at(self, node: ast.AST) -> None:
        self.builder.pos = self.source.pos(node, self.state.name)

    def error(self, cls, node: ast.AST | None, message: str, hint: str = "") -> TiError:
        pos = self.source.pos(node, self.state.name) if node is not None else self.builder.pos
        return cls(message, pos, hint)

    def unsupported(self, node: ast.AST, what: str, hint: str = "") -> TiError:
        return self.error(
            TiSyntaxError,
            node,
            f"{what} is not supported inside a kernel or ti.func",
            hint or "move this code out of the kernel, into Python scope",
        )

    # -- scopes ---------------------------------------------------------------------
    def push_scope(self) -> None:
        self.scopes.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()

    def bind(self, name: str, value: object) -> None:
        self.scopes[-1][name] = value

    def find_local(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return _MISSING

    def lookup(self, name: str, node: ast.AST):
        """A name's value: a local, else a captured closure/global, else a builtin."""
        value = self.find_local(name)
        if value is not _MISSING:
            return value
        if name in self.closure:
            value = self.closure[name]
        elif name in self.globals:
            value = self.globals[name]
        elif hasattr(builtins, name):
            value = getattr(builtins, name)  # recorded too: a later global may shadow it
        else:
            hint = "define it before this line"
            for scope in self.dead_scopes:
                if name in scope:
                    hint = (
                        f"'{name}' was defined in an inner block that has ended; define it "
                        f"before that block (e.g. '{name} = 0') to use it here"
                    )
            raise self.error(TiNameError, node, f"name '{name}' is not defined", hint)
        self.state.reads.root(self.scope, name, value)
        if getattr(value, "name", None) == "field" and hasattr(value, "layout"):
            value.name = name  # unnamed fields take the name the kernel uses: clearer errors
        return value

    @property
    def dead_scopes(self) -> list[dict]:
        return getattr(self, "_dead_scopes", [])

    def run_block(self, statements: list[ast.stmt], new_scope: bool = True) -> None:
        if new_scope:
            self.push_scope()
        try:
            for stmt in statements:
                if self.state.returned and self.is_kernel:
                    raise self.error(
                        TiSyntaxError,
                        stmt,
                        "code after 'return' never runs",
                        "remove it, or move the 'return' to the end of the kernel",
                    )
                self.visit_stmt(stmt)
        finally:
            if new_scope:
                dead = self.scopes.pop()
                self._dead_scopes = [*self.dead_scopes[-8:], dead]

    def visit_stmt(self, node: ast.stmt) -> None:
        self.at(node)
        handler = getattr(self, f"stmt_{type(node).__name__}", None)
        if handler is None:
            raise self.unsupported(node, f"the '{_describe(node)}' statement")
        handler(node)

    def expr(self, node: ast.expr):
        saved = self.builder.pos
        self.at(node)
        handler = getattr(self, f"expr_{type(node).__name__}", None)
        if handler is None:
            raise self.unsupported(node, f"the expression '{_describe(node)}'")
        try:
            return handler(node)
        finally:
            self.builder.pos = saved


def scope_of(func) -> str:
    """The scope name of a ti.func's Python function (its module and qualname)."""
    return f"{func.__module__}.{func.__qualname__}"


def closure_vars(func) -> dict:
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


def _describe(node: ast.AST) -> str:
    names = {
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
    return names.get(type(node).__name__, type(node).__name__)


def new_state(name: str, config: CompileOptions) -> KernelState:
    return KernelState(name=name, config=config, builder=IRBuilder(config, ir.Block()))
