"""The frontend's handler modules: every one is in the dispatcher, each name once."""

import ast
import importlib
import pkgutil

import pytest

from ti_notebook import frontend
from ti_notebook.frontend import tracer
from ti_notebook.frontend.dispatch import Dispatcher, Handlers
from ti_notebook.frontend.starred import KnownValue

pytestmark = pytest.mark.unit

# What kernels may contain; anything else is an "is not supported" error at its line.
STATEMENTS = {
    ast.Pass,
    ast.Expr,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.If,
    ast.While,
    ast.For,
    ast.Break,
    ast.Continue,
    ast.Return,
    ast.Assert,
}
EXPRESSIONS = {
    ast.Constant,
    ast.Name,
    ast.Tuple,
    ast.List,
    ast.Attribute,
    ast.Subscript,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.NamedExpr,  # name := value
    ast.Call,
    # issue 17: comprehensions, unpacking, dict displays
    ast.ListComp,
    ast.GeneratorExp,
    ast.DictComp,
    ast.Dict,
    ast.Starred,
    KnownValue,
}
METHODS = {
    "dot",
    "norm",
    "norm_sqr",
    "norm_inv",
    "normalized",
    "outer_product",
    "transpose",
    "trace",
    "cross",
    "sum",
    "max",
    "min",
    "cast",
    "any",
    "all",
    "determinant",
    "inverse",
    "fill",
    "get_shape",
}


def test_the_dispatcher_handles_the_kernel_language():
    assert set(tracer.DISPATCHER.statements) == STATEMENTS
    assert set(tracer.DISPATCHER.expressions) == EXPRESSIONS
    assert set(tracer.DISPATCHER.methods) == METHODS


def test_every_module_that_registers_handlers_is_dispatched():
    registering = set()
    for info in pkgutil.iter_modules(frontend.__path__, "ti_notebook.frontend."):
        module = importlib.import_module(info.name)
        if isinstance(getattr(module, "HANDLERS", None), Handlers):
            registering.add(module.__name__)
    assert registering == {m.__name__ for m in tracer.HANDLER_MODULES}


def test_a_call_claimed_by_two_modules_is_refused():
    first, second = Handlers(), Handlers()
    first.call(print)(lambda ctx, node: None)
    second.call(print)(lambda ctx, node: None)
    with pytest.raises(ValueError, match="two handlers"):
        Dispatcher(first, second)


def test_a_module_cannot_register_a_node_type_twice():
    handlers = Handlers()
    handlers.statement(ast.Pass)(lambda ctx, node: None)
    with pytest.raises(ValueError, match="two handlers"):
        handlers.statement(ast.Pass)(lambda ctx, node: None)
