"""``ti.func`` calls: inlined where they are called, with their own scopes.

Arguments are evaluated in the caller; a number or a vector is copied into a local of
the callee (cast to the parameter's annotated type), so the callee may assign to it;
a template parameter, or any other value (a field, a tuple), is bound as it is (a
local variable given to a template parameter is that variable, as in Taichi). The
body is traced in place, in a new :class:`~ti_notebook.frontend.context.FunctionFrame`
(names resolve in the func's own module and closure), and its one ``return`` gives
the call's value.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.func
    ... def clamp(v: ti.f32, hi) -> ti.f32:
    ...     if v > hi:
    ...         v = hi
    ...     return v
    >>> @ti.kernel
    ... def clamped(a: ti.f32) -> ti.f32:
    ...     return clamp(a, 2.5) + clamp(1, 2.5)
    >>> clamped(7.0)
    3.5
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import precision
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.context import MISSING, TraceContext
from ti_notebook.frontend.local_sequences import LocalSequence
from ti_notebook.frontend.matrix_types import convert
from ti_notebook.frontend.places import declare, read
from ti_notebook.frontend.source import source_of
from ti_notebook.frontend.struct_values import StructSlots, is_struct
from ti_notebook.frontend.struct_values import convert as convert_struct
from ti_notebook.frontend.structs import bind_struct_parameter
from ti_notebook.frontend.values import LoopIndex, Vector, VectorVariable
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import types
from ti_notebook.lang.element_type import ElementType
from ti_notebook.lang.func import BoundFunc, resolve_annotation
from ti_notebook.lang.struct_base import StructTypeBase as StructType

_MAX_INLINE_DEPTH = 48


def inline(ctx: TraceContext, func, node: ast.Call):
    """The value of ``func(...)`` (None without a return), its body traced in place."""
    args = [_argument(ctx, func, a, k) for k, a in enumerate(node.args)]
    kwargs = {kw.arg: _argument(ctx, func, kw.value, kw.arg) for kw in node.keywords}
    return call_func(ctx, func, args, kwargs, node)


def _argument(ctx: TraceContext, func, arg: ast.expr, key: int | str | None):
    """An argument's value; for a template parameter given a local variable, the
    variable itself: Taichi passes it by reference, so ``color.rgb += ...`` in the
    callee changes the caller's ``color``."""
    if isinstance(arg, ast.Name) and _is_template(func, key):
        local = ctx.find_local(arg.id)
        if isinstance(local, ir.AllocaStmt | VectorVariable | StructSlots | LocalSequence):
            return local
    return ctx.expr(arg)


def _is_template(func, key: int | str | None) -> bool:
    names = list(func.signature.parameters)
    if isinstance(func, BoundFunc):
        names = names[1:]  # the owner is bound to the first parameter
    if isinstance(key, int):
        params = func.signature.parameters
        if key >= len(names) or params[names[key]].kind not in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            return False
        key = names[key]
    return func.parameters().get(key) == "template"


def call_func(ctx: TraceContext, func, args: list, kwargs: dict, node: ast.AST):
    """``func(*args, **kwargs)`` on values already traced (a handler calling a ti.func
    of the library, ``frontend/decompositions.py``), inlined at ``node``."""
    state = ctx.state
    if state.inline_depth >= _MAX_INLINE_DEPTH:
        raise ctx.error(
            TiSyntaxError, node, "ti.func calls nest too deep (recursion is not supported)"
        )
    source = source_of(func)
    state.reached_funcs[func.qualname] = source.digest()
    params = func.parameters()
    if isinstance(func, BoundFunc):  # obj.method(...): obj is the first argument
        args = [func.owner, *args]
    try:
        bound = func.signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise ctx.error(TiTypeError, node, f"calling {func.name}(): {exc}") from None
    bound.apply_defaults()
    b = ctx.builder
    saved_pos = b.pos
    # An error inside one of ti_notebook's own funcs (ti.math.cross of 4-vectors) is
    # the caller's mistake: it points at the call, not at the library's line.
    call_pos = ctx.pos(node) if func.qualname.startswith("ti_notebook.") else None
    # where a lossy argument is, found in the caller's source before the callee's frame;
    # a library func's casts are its own business: warn only for the user's funcs
    lossy = [n for n, v in bound.arguments.items() if precision.is_lossy(v, params.get(n))]
    warn_at = _argument_positions(ctx, func, node, lossy) if call_pos is None and lossy else {}
    with ctx.function(source) as frame:
        frame.return_type = _return_dtype(func)
        try:
            for name, value in bound.arguments.items():
                _bind_parameter(ctx, name, value, params.get(name), warn_at.get(name))
            state.inline_depth += 1
            try:
                ctx.run_block(source.function_def.body, new_scope=False)
            finally:
                state.inline_depth -= 1
                b.pos = saved_pos
        except TiError as error:
            if call_pos is None or not _in_library(error):
                raise
            raise type(error)(error.message, call_pos, error.hint) from None
    return None if frame.return_value is MISSING else frame.return_value


_PACKAGE = str(Path(__file__).resolve().parents[1])


def _in_library(error: TiError) -> bool:
    filename = error.pos.filename if error.pos is not None else ""
    return filename.startswith(_PACKAGE)


def _argument_positions(ctx: TraceContext, func, node: ast.AST, names: list) -> dict:
    """parameter name -> where its argument is at the call (where a warning points),
    for ``names``; the call itself where the argument has no code of its own."""
    nodes = {}
    if isinstance(node, ast.Call):
        args = [None, *node.args] if isinstance(func, BoundFunc) else list(node.args)
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        try:
            nodes = func.signature.bind_partial(*args, **keywords).arguments
        except TypeError:  # *args at the call
            nodes = {}
    found = {}
    for name in names:
        arg = nodes.get(name)
        found[name] = ctx.pos(arg if isinstance(arg, ast.AST) else node)
    return found


def _return_dtype(func):
    """The type a ti.func's return annotation names: a scalar type (``-> ti.i32``), a
    vector/matrix type or a struct type; else None (tuples are converted where used)."""
    annotation = func.signature.return_annotation
    if annotation is inspect.Signature.empty:
        return None
    try:
        resolved = resolve_annotation(func.func, annotation)
        if isinstance(resolved, (ElementType, StructType)):
            return resolved
        cfg = _settings.current()
        dtype = types.to_dtype(resolved, cfg.default_ip, cfg.default_fp)
    except Exception:  # not a type: nothing to cast to
        return None
    return dtype if isinstance(dtype, types.DataType) else None


def _bind_parameter(ctx: TraceContext, name: str, value, annotation, at=None) -> None:
    if isinstance(annotation, StructType) or (annotation != "template" and is_struct(value)):
        bind_struct_parameter(ctx, name, value, annotation)  # a copy, as Taichi passes it
        return
    if isinstance(annotation, ElementType):  # p: vec3 checks the shape, casts each item
        declare(ctx, name, convert(ctx, annotation, value, None, f"parameter '{name}'"))
        return
    if annotation != "template" and isinstance(value, (list, tuple)):
        declare(ctx, name, value)  # a copy whose items the func may assign, as in Taichi
        return
    if annotation == "template" or not (isinstance(value, (ir.Stmt, Vector)) or is_constant(value)):
        ctx.bind(name, value)
        return
    if annotation is not None and not isinstance(value, Vector):
        if at is not None:
            place = f"the {annotation} parameter '{name}'"
            precision.warn_if_lossy(ctx, value, annotation, place, at)
        value = ctx.builder.cast(value, annotation)  # a typed parameter converts its argument
    declare(ctx, name, value)  # a fresh local, as `name = value` would make


def return_from_func(ctx: TraceContext, node: ast.Return) -> None:
    """A ti.func's ``return``: its value becomes the call's."""
    frame = ctx.frame
    if ctx.state.depth != frame.entry_depth or frame.return_value is not MISSING:
        raise ctx.error(
            TiSyntaxError,
            node,
            "a ti.func may return only once, as its last statement, outside loops and ifs",
            "store the result in a local and return it at the end",
        )
    value = None if node.value is None else ctx.expr(node.value)
    value = _returned(ctx, value)
    dtype = frame.return_type
    what = f"the return value of '{getattr(frame.source.func, '__name__', 'func')}'"
    if isinstance(dtype, ElementType) and isinstance(value, Vector):
        # as for a scalar: each component cast to the annotated element type
        value = convert(ctx, dtype, value, node.value, what)
    elif isinstance(dtype, StructType) and is_struct(value):
        value = convert_struct(ctx, dtype, value, node.value, what)
    elif isinstance(dtype, types.DataType) and (isinstance(value, ir.Stmt) or is_constant(value)):
        # Taichi casts a func's return value to its annotated type
        func = frame.source.func
        if not getattr(func, "__module__", "").startswith("ti_notebook."):
            place = f"the {dtype} return value of '{func.__name__}'"
            precision.warn_if_lossy(ctx, value, dtype, place, node.value)
        value = ctx.builder.cast(value, dtype)
    frame.return_value = value


def _returned(ctx: TraceContext, value):
    """What a ti.func returns: values now, not places (``return s[i], p``: the struct
    field's element as it is when the func returns)."""
    if isinstance(value, tuple):
        return tuple(_returned(ctx, item) for item in value)
    if isinstance(value, ir.AllocaStmt | VectorVariable | LoopIndex | StructSlots):
        return read(ctx, value)
    return value
