"""The state of one kernel's trace, handed explicitly to every handler.

A :class:`TraceContext` holds the kernel-wide state (:class:`KernelState`: the IR
builder, the loop stack, what tracing read), the function being traced
(:class:`FunctionFrame`: its scopes and where its names come from) and the
:class:`~ti_notebook.frontend.dispatch.Dispatcher` that finds each node's handler.
Blocks, loops and inlined functions are context managers, so what they change is
undone on every exit, errors included:

    >>> from ti_notebook.frontend.source import FunctionSource
    >>> from ti_notebook.frontend.tracer import kernel_tracer
    >>> from ti_notebook.ir.options import CompileOptions
    >>> def k():
    ...     pass
    >>> ctx = kernel_tracer("k", CompileOptions(), FunctionSource.of(k))
    >>> with ctx.scope():
    ...     ctx.bind("n", 4)
    ...     ctx.find_local("n")
    4
    >>> ctx.find_local("n") is MISSING
    True
    >>> with ctx.loop("a loop statement", parallel=True):
    ...     ctx.state.depth, ctx.state.loops
    (1, [('a loop statement', True)])
    >>> ctx.state.depth, ctx.state.loops
    (0, [])
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
from collections.abc import Iterator

from ti_notebook.errors import SourcePos, TiError, TiNameError, TiSyntaxError
from ti_notebook.frontend.builder import IRBuilder
from ti_notebook.frontend.constants import kernel_value
from ti_notebook.frontend.dispatch import Dispatcher, describe
from ti_notebook.frontend.recorder import (
    KERNEL_SCOPE,
    Fingerprint,
    Reads,
    closure_vars,
    scope_of,
)
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.lang import types

MISSING = object()  # what find_local returns for a name no scope binds
STATIC = "static"  # the loop stack's entry for a ti.static loop (unrolled, no IR loop)


@dataclasses.dataclass
class KernelState:
    """What the whole kernel's trace shares, across inlined funcs."""

    name: str
    config: CompileOptions
    builder: IRBuilder
    return_type: types.DataType | None = None
    captured: dict = dataclasses.field(default_factory=dict)  # (func, name) -> value
    reached_funcs: dict = dataclasses.field(default_factory=dict)  # qualname -> source digest
    depth: int = 0  # enclosing non-static blocks; 0 = the kernel's top level
    loops: list = dataclasses.field(default_factory=list)  # (stmt, parallel) innermost last
    pending_loop_config: dict = dataclasses.field(default_factory=dict)
    pending_block_local: tuple | None = None  # (fields, pos) of a ti.block_local before a loop
    no_activate: set = dataclasses.field(default_factory=set)  # FieldRefs (ti.no_activate)
    returned: bool = False
    inline_depth: int = 0
    warned: set = dataclasses.field(default_factory=set)  # precision warnings given (pos)
    # the offline cache's, when it will store this trace: checks what tracing reads
    fingerprint: Fingerprint | None = None
    reads: Reads = dataclasses.field(init=False)  # every Python value read, as paths

    def __post_init__(self) -> None:
        self.reads = Reads(self.captured, self.fingerprint)


class FunctionFrame:
    """One function body being traced (the kernel's, or an inlined func's): its block
    scopes, innermost last, and the closure and globals its other names come from."""

    def __init__(self, source: FunctionSource, is_kernel: bool, entry_depth: int) -> None:
        self.source = source
        self.is_kernel = is_kernel
        self.scopes: list[dict[str, object]] = [{}]
        # The last blocks that ended: a name read after its block gets a precise hint.
        self.dead_scopes: list[dict[str, object]] = []
        func = source.func
        self.globals = getattr(func, "__globals__", {})
        self.closure = closure_vars(func)
        self.scope_name = KERNEL_SCOPE if is_kernel else scope_of(func)
        self.entry_depth = entry_depth  # a func's return must be at its call's depth
        self.return_value = MISSING
        self.return_type = None  # a ti.func's scalar return annotation: returns cast to it


class TraceContext:
    """One kernel's trace: its state, the current function and the dispatcher."""

    def __init__(self, state: KernelState, dispatch: Dispatcher, source: FunctionSource) -> None:
        self.state = state
        self.builder: IRBuilder = state.builder
        self.dispatch = dispatch
        self.frame = self._new_frame(source, is_kernel=True)

    def _new_frame(self, source: FunctionSource, is_kernel: bool) -> FunctionFrame:
        frame = FunctionFrame(source, is_kernel, self.state.depth)
        # Names read are recorded per scope, so the offline cache can look them up
        # again in a later process without tracing (cache/keys.py).
        self.state.reads.enter(frame.scope_name, source.func)
        return frame

    @property
    def config(self) -> CompileOptions:
        return self.state.config

    # -- positions and errors -------------------------------------------------------
    def pos(self, node: ast.AST | None) -> SourcePos | None:
        """Where ``node`` is in its file, for errors and warnings."""
        return self.frame.source.pos(node, self.state.name)

    def at(self, node: ast.AST) -> None:
        """Statements emitted from now on carry ``node``'s position."""
        self.builder.pos = self.pos(node)

    def error(self, cls, node: ast.AST | None, message: str, hint: str = "") -> TiError:
        """An error of class ``cls`` at ``node`` (at the current statement without one)."""
        pos = self.pos(node) if node is not None else self.builder.pos
        return cls(message, pos, hint)

    def unsupported(self, node: ast.AST, what: str, hint: str = "") -> TiError:
        """The error for Python a kernel cannot run."""
        return self.error(
            TiSyntaxError,
            node,
            f"{what} is not supported inside a kernel or ti.func",
            hint or "move this code out of the kernel, into Python scope",
        )

    # -- names ----------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self, remember: bool = True) -> Iterator[dict]:
        """A block scope; with ``remember``, its names give the "defined in an inner
        block" hint once it has ended (loop variables do not: they are not locals)."""
        frame = self.frame
        frame.scopes.append({})
        try:
            yield frame.scopes[-1]
        finally:
            dead = frame.scopes.pop()
            if remember:
                frame.dead_scopes = [*frame.dead_scopes[-8:], dead]  # the last nine

    def bind(self, name: str, value: object) -> None:
        """``name`` means ``value`` until the innermost scope ends."""
        self.frame.scopes[-1][name] = value

    def find_local(self, name: str):
        """What a scope of the current function binds to ``name``, else ``MISSING``."""
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return MISSING

    def lookup(self, name: str, node: ast.AST):
        """A name's value: a local, else a captured closure/global, else a builtin."""
        value = self.find_local(name)
        if value is not MISSING:
            return value
        frame = self.frame
        if name in frame.closure:
            value = frame.closure[name]
        elif name in frame.globals:
            value = frame.globals[name]
        elif hasattr(builtins, name):
            value = getattr(builtins, name)  # recorded too: a later global may shadow it
        else:
            hint = "define it before this line"
            for scope in frame.dead_scopes:
                if name in scope:
                    hint = (
                        f"'{name}' was defined in an inner block that has ended; define it "
                        f"before that block (e.g. '{name} = 0') to use it here"
                    )
            raise self.error(TiNameError, node, f"name '{name}' is not defined", hint)
        self.state.reads.root(frame.scope_name, name, value)
        if getattr(value, "name", None) == "field" and hasattr(value, "layout"):
            value.name = name  # unnamed fields take the name the kernel uses: clearer errors
        return value

    # -- nesting --------------------------------------------------------------------
    @property
    def outermost(self) -> bool:
        """At the kernel's top level: not in an if, a while or a for (ti.static loops
        are unrolled, and inlined funcs count as where they are called)."""
        return self.state.depth == 0

    @contextlib.contextmanager
    def nested(self) -> Iterator[None]:
        """The body of an if or a loop: not the kernel's top level any more."""
        self.state.depth += 1
        try:
            yield
        finally:
            self.state.depth -= 1

    @contextlib.contextmanager
    def loop(self, stmt: ir.Stmt | str, parallel: bool = False) -> Iterator[None]:
        """A loop's body: nested, and the target of its break and continue."""
        loops = self.state.loops
        with self.nested():
            loops.append((stmt, parallel))
            try:
                yield
            finally:
                loops.pop()

    @contextlib.contextmanager
    def unrolled(self) -> Iterator[None]:
        """A ti.static loop: unrolled, so not nested, and no break or continue in it."""
        self.state.loops.append((STATIC, False))
        try:
            yield
        finally:
            self.state.loops.pop()

    @contextlib.contextmanager
    def function(self, source: FunctionSource) -> Iterator[FunctionFrame]:
        """An inlined ti.func's body: its own scopes and names, the kernel's state."""
        caller = self.frame
        self.frame = self._new_frame(source, is_kernel=False)
        try:
            yield self.frame
        finally:
            self.frame = caller

    # -- visiting -------------------------------------------------------------------
    def run_block(self, statements: list[ast.stmt], new_scope: bool = True) -> None:
        """Traces ``statements`` in order, in a new scope unless told otherwise."""
        if not new_scope:
            self._run(statements)
            return
        with self.scope():
            self._run(statements)

    def _run(self, statements: list[ast.stmt]) -> None:
        for stmt in statements:
            frame = self.frame
            if frame.return_value is not MISSING and not frame.is_kernel:
                # a ti.func returned (at its top level, or in a `ti.static` if's body):
                # what follows is dead code, as in Python, and Taichi does not trace it
                # (`if ti.static(n == 2): return f2(x)` then `ti.static_assert(n == 3)`)
                return
            if self.state.returned and frame.is_kernel:
                raise self.error(
                    TiSyntaxError,
                    stmt,
                    "code after 'return' never runs",
                    "remove it, or move the 'return' to the end of the kernel",
                )
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        """Traces one statement with the handler registered for its type."""
        self.at(node)
        handler = self.dispatch.statements.get(type(node))
        if handler is None:
            raise self.unsupported(node, f"the '{describe(node)}' statement")
        try:
            handler(self, node)
        except RecursionError:  # unwound to here, the stack has room for the error
            raise self.error(
                TiSyntaxError,
                node,
                "an expression in this statement nests too deeply to compile (thousands of "
                "levels: a long chain of '**', unary operators or conditional expressions)",
                "split it over several statements (s = a ** b, then s = s ** c, ...), or "
                "compute it in a loop: for i in ti.static(range(n)): ...",
            ) from None

    def expr(self, node: ast.expr):
        """The value of an expression: an IR statement, a Python value or a Vector."""
        saved = self.builder.pos
        self.at(node)
        handler = self.dispatch.expressions.get(type(node))
        if handler is None:
            raise self.unsupported(node, f"the expression '{describe(node)}'")
        try:
            # a Python-scope ti.Vector read from a global, an attribute...: constants
            return kernel_value(self, handler(self, node))
        finally:
            self.builder.pos = saved
