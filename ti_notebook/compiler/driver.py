"""The compile driver: a :class:`CompileRequest` → traced IR → passes → backend → code.

The same steps for every target; what differs (the passes' capabilities, code
generation, loading) is the request's backend (``compiler/backends/``). Tracing
(``frontend/kernel_trace.py``) reports what else it read (reached funcs and captured
globals), so the offline cache (``cache/compile.py``) can key on inputs before tracing.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def add(a: ti.i32, b: ti.i32) -> ti.i32:
    ...     return a + b
    >>> sorted(add.stages(1, 2))[:3]
    ['annotate', 'asm', 'ast']
    >>> [record.name for record in add.report.pass_records][:2]
    ['typecheck', 'make_adjoint']
"""

from __future__ import annotations

import ast
import time

from ti_notebook.compiler import compile_stages, progress
from ti_notebook.compiler.line_map import line_map
from ti_notebook.compiler.report import KernelReport
from ti_notebook.compiler.request import CompileRequest, Param, return_count, return_slots
from ti_notebook.compiler.stages import Stages
from ti_notebook.errors import TiCompileError
from ti_notebook.frontend.kernel_trace import trace_kernel
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.printer import format_block
from ti_notebook.passes import pipeline
from ti_notebook.runtime import stage_clock
from ti_notebook.runtime.stage_clock import stage


def adjoint_slots(params: list[Param]) -> dict:
    """("grad" | "dual", an ndarray's slot) -> the slot of the array holding its
    gradient or dual: the parameters a grad kernel has after its own, named
    ``"x.grad"`` (``session/ad_kernel.py``)."""
    slots, at = {}, 0
    for param in params:
        slots[param.name] = at
        at += param.slots
    return {
        (name.rpartition(".")[2], slots[name.rpartition(".")[0]]): slot
        for name, slot in slots.items()
        if name.endswith((".grad", ".dual")) and name.rpartition(".")[0] in slots
    }


def written_arguments(block: ir.Block, params: list[Param]) -> list[str]:
    """The names of the ndarray arguments the kernel stores into (plainly or atomically)."""
    slots = [p.name for p in params for _ in range(p.slots)]
    written = set()
    for stmt in block.walk():
        target = stmt.ptr if isinstance(stmt, ir.GlobalStoreStmt) else None
        target = stmt.dest if isinstance(stmt, ir.AtomicOpStmt) else target
        if isinstance(target, ir.ExternalPtrStmt):
            written.add(slots[target.arg_index])
    return sorted(written)


def compile_kernel(request: CompileRequest, hooks=None) -> tuple[object, Stages, dict]:
    """Runs the whole pipeline; returns the launchable kernel, its stages and inputs read.

    ``hooks`` (the offline cache's) may choose the symbol prefix once tracing has shown
    what the kernel reads (``hooks.prefix(inputs)``) and receive the artifact with its
    code (``hooks.keep(artifact)``). Each stage is announced to ``ti.watch_compiles``
    listeners (``compiler/progress.py``).
    """
    with progress.compiling(request.name):
        return _compile(request, hooks)


def _compile(request: CompileRequest, hooks) -> tuple[object, Stages, dict]:
    started = time.perf_counter()
    with stage_clock.recording() as seconds:
        compiled, stages, inputs, notes = _stages(request, hooks)
    notes["compile_time_s"] = total = time.perf_counter() - started
    notes["stage_times"] = compile_stages.split(seconds, total)
    stages["report"] = KernelReport.from_dict(notes)
    return compiled, stages, inputs


def _stages(request: CompileRequest, hooks) -> tuple[object, Stages, dict, dict]:
    """Each stage timed (``runtime/stage_clock.py``): where a long compile's time went."""
    backend = request.backend
    with stage("tracing"):
        kernel, inputs = trace_kernel(request)
        kernel.adjoint_args = adjoint_slots(request.params)
        kernel.report["written_arguments"] = written_arguments(kernel.block, request.params)
    with stage("ir_text"):
        ir_text = format_block(kernel.block)
    passes = progress.announced(request.name, backend.passes)
    with stage("passes"):
        records = pipeline.run(kernel, request.options, backend.capabilities, passes)
    with stage("ir_text"):
        ir_optimized = format_block(kernel.block)
        annotate = line_map(kernel)
    returns = return_count(request.return_type)
    layout = backend.arg_layout(request.params, kernel.report["written_arguments"], returns)
    prefix = hooks.prefix(inputs) if hooks is not None else None
    progress.announce(request.name, "generating LLVM IR")
    with stage("llvm_ir"):
        module_text, artifact = backend.generate(kernel, request.options, layout.offsets, prefix)
    keep = hooks is not None and hooks.wants_object
    progress.announce(request.name, "LLVM: optimising and emitting code")
    try:
        with stage("load"):  # less what the JIT times itself: parse, optimise, emit
            entry, optimized = backend.load(module_text, artifact, keep_code=keep)
    except TiCompileError as error:  # the runtime does not know whose code it loads
        error.kernel_name = error.kernel_name or request.name
        raise
    if keep:
        hooks.keep(artifact)
    compiled = backend.launchable(
        request.name, entry, layout, return_slots(request.return_type), artifact
    )
    notes = dict(kernel.report, pass_records=[r.to_dict() for r in records])
    stages = Stages(
        backend,
        optimized,
        ast=_ast_text(request.source.function_def),
        ir=ir_text,
        ir_optimized=ir_optimized,
        annotate=annotate,
        llvm=module_text,
    )
    return compiled, stages, inputs, notes


def _ast_text(node: ast.AST) -> str:
    """The kernel's syntax tree as ``stages()["ast"]`` shows it; ``ast.dump`` recurses
    once per level, so a chain of thousands of ``+`` is summarised instead."""
    try:
        return ast.dump(node, indent=2)
    except RecursionError:
        return f"<the syntax tree of '{getattr(node, 'name', '?')}' is too deep to print>"
