"""A kernel specialisation traced whole: its parameters bound, its body run, its IR.

The compile driver's one call into the frontend (``compiler/driver.py``): it passes its
request (name, options, source, parameters, template values, return type, the cache's
fingerprint function) and gets the kernel's IR and what tracing read.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def scale(a: ti.f32) -> ti.f32:
    ...     return a * 2
    >>> from ti_notebook.session.compiling import request_for
    >>> kernel, inputs = trace_kernel(request_for(scale, scale.params(), {}))
    >>> [type(s).__name__ for s in kernel.block.stmts][:2], sorted(inputs)
    (['ArgLoadStmt', 'ConstStmt'], ['captured', 'funcs', 'uncacheable'])
"""

from __future__ import annotations

from ti_notebook.frontend import compound_io, local_storage
from ti_notebook.frontend.tracer import kernel_tracer
from ti_notebook.frontend.values import NdarrayArg
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR


def trace_kernel(request) -> tuple[KernelIR, dict]:
    """``request``'s function (a ``CompileRequest``) as IR, plus what tracing read:
    ``captured`` globals, reached ``funcs`` and why it cannot be cached
    (``uncacheable``, empty when it can)."""
    tracer = kernel_tracer(
        request.name, request.options, request.source, request.return_type, request.fingerprint
    )
    state, b = tracer.state, tracer.builder
    slot = 0
    for param in request.params:
        if param.kind == "template":
            tracer.bind(param.name, request.template_values[param.name])
            state.reads.template(param.name, request.template_values[param.name])
        elif param.kind == "ndarray":
            outer = param.ndim - len(param.element_shape)
            arg = NdarrayArg(slot, param.dtype, outer, param.name, param.element_shape)
            tracer.bind(param.name, arg)
            slot += 1
        elif param.kind == "compound":  # a vector/matrix/struct: one slot per scalar
            tracer.bind(param.name, compound_io.argument(tracer, param.compound, slot))
            slot += len(param.compound.leaves)
        else:
            arg = b.emit(ir.ArgLoadStmt(slot, param.dtype))
            tracer.bind(param.name, arg)
            slot += 1
    tracer.run_block(request.source.function_def.body)
    local_storage.check_none_pending(state)
    kernel = KernelIR(request.name, b.blocks[0], request.return_type)
    kernel.no_activate = frozenset(state.no_activate)
    inputs = {"captured": state.captured, "funcs": state.reached_funcs}
    return kernel, dict(inputs, uncacheable=state.reads.refused)
