"""Python AST → ti_notebook IR: where a kernel's trace starts.

The frontend is a :class:`~ti_notebook.frontend.context.TraceContext` (the trace's
state) and handler modules, one per topic, that register what they trace in a
:class:`~ti_notebook.frontend.dispatch.Handlers`; this module merges them into the one
dispatcher every trace uses. A kernel is traced once per specialisation:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def seven() -> ti.i32:
    ...     return 3 + 4
    >>> seven()
    7
"""

from __future__ import annotations

from ti_notebook.frontend import (
    assignments,
    atomic_ops,
    bit_ops,
    calls,
    comprehensions,
    control_flow,
    decompositions,
    expressions,
    if_expressions,
    local_storage,
    loop_config_ops,
    loops,
    matrix_algebra,
    matrix_constructors,
    operators,
    printing,
    python_builtins,
    random_ops,
    scalar_ops,
    snode_builtins,
    sparse_ops,
    starred,
    static_checks,
    structs,
    vector_fill,
    vector_methods,
    vectors,
)
from ti_notebook.frontend.builder import IRBuilder
from ti_notebook.frontend.context import KernelState, TraceContext
from ti_notebook.frontend.dispatch import Dispatcher
from ti_notebook.frontend.recorder import Fingerprint
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.lang import types

# Every module that registers handlers; a node type or function claimed twice fails here.
HANDLER_MODULES = (
    assignments,
    control_flow,
    loops,
    expressions,
    operators,
    calls,
    scalar_ops,
    atomic_ops,
    printing,
    vectors,
    vector_methods,
    vector_fill,
    matrix_algebra,
    matrix_constructors,
    decompositions,
    loop_config_ops,
    local_storage,
    random_ops,
    sparse_ops,
    bit_ops,
    snode_builtins,
    # Python in kernels as Taichi accepts it
    comprehensions,
    if_expressions,
    python_builtins,
    starred,
    static_checks,
    structs,
)
DISPATCHER = Dispatcher(*(module.HANDLERS for module in HANDLER_MODULES))


def kernel_tracer(
    name: str,
    config: CompileOptions,
    source: FunctionSource,
    return_type: types.DataType | None = None,
    fingerprint: Fingerprint | None = None,
) -> TraceContext:
    """The tracing context of one kernel specialisation, its IR in a new block.

    The caller binds the parameters, then runs the body; the IR is in
    ``ctx.builder.blocks[0]``. ``fingerprint`` is the offline cache's, when it will
    store the trace (what tracing reads is then checked against it):

        >>> def add_one(a):
        ...     return a + 1
        >>> ctx = kernel_tracer("add_one", CompileOptions(), FunctionSource.of(add_one), types.i32)
        >>> ctx.bind("a", 41)
        >>> ctx.run_block(ctx.frame.source.function_def.body)
        >>> [type(s).__name__ for s in ctx.builder.blocks[0].stmts]
        ['ConstStmt', 'ReturnStmt']
    """
    builder = IRBuilder(config, ir.Block())
    state = KernelState(name, config, builder, return_type, fingerprint=fingerprint)
    return TraceContext(state, DISPATCHER, source)
