"""The compile pipeline with explicit inputs: a :class:`CompileRequest` → machine code.

Everything that decides the generated code is in the request (source, template values,
argument types, config), and tracing reports what else it read (reached funcs and
captured globals), so the offline cache can key on inputs before tracing.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def add(a: ti.i32, b: ti.i32) -> ti.i32:
    ...     return a + b
    >>> sorted(add.stages(1, 2))[:3]
    ['asm', 'ast', 'ir']
"""

from __future__ import annotations

import ast
import dataclasses
import time

from ti_notebook.codegen.cpu import CpuModuleGenerator
from ti_notebook.frontend import local_storage
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.frontend.tracer import kernel_tracer
from ti_notebook.frontend.values import NdarrayArg
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.printer import format_block
from ti_notebook.lang.config import Config
from ti_notebook.lang.types import DataType
from ti_notebook.passes import pipeline
from ti_notebook.runtime import cpu as cpu_runtime
from ti_notebook.runtime.launch import ArgLayout, ArgSlot, CompiledKernel


@dataclasses.dataclass
class Param:
    """A kernel parameter: ``kind`` is scalar, template or ndarray."""

    name: str
    kind: str
    dtype: DataType | None = None
    ndim: int | None = None


@dataclasses.dataclass
class CompileRequest:
    """The inputs of one compilation."""

    name: str
    source: FunctionSource
    params: list[Param]
    template_values: dict  # param name -> value
    return_type: DataType | None
    config: Config


class Stages(dict):
    """``kernel.stages()``: stage name → text, plus ``report``; ``asm`` made on demand."""

    def __init__(self, llvm_optimized: str, **stages) -> None:
        super().__init__(stages, llvm_optimized=llvm_optimized)
        self["asm"] = None

    def __getitem__(self, key):
        if key == "asm" and dict.__getitem__(self, "asm") is None:
            from ti_notebook.runtime.jit import jit

            engine = jit()
            self["asm"] = engine.assembly(engine.parse(dict.__getitem__(self, "llvm_optimized")))
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        return self[key] if key in self else default  # noqa: SIM401 - self.get recurses

    def items(self):
        return [(k, self[k]) for k in self]

    def values(self):
        return [self[k] for k in self]


def trace(request: CompileRequest) -> tuple[KernelIR, dict]:
    """Frontend: the request's function → IR (plus what tracing read)."""
    tracer = kernel_tracer(request.name, request.config, request.source, request.return_type)
    state, b = tracer.state, tracer.builder
    slot = 0
    for param in request.params:
        if param.kind == "template":
            tracer.bind(param.name, request.template_values[param.name])
            state.reads.template(param.name, request.template_values[param.name])
        elif param.kind == "ndarray":
            tracer.bind(param.name, NdarrayArg(slot, param.dtype, param.ndim, param.name))
            slot += 1
        else:
            arg = b.emit(ir.ArgLoadStmt(slot, param.dtype))
            tracer.bind(param.name, arg)
            slot += 1
    tracer.run_block(request.source.function_def.body)
    local_storage.check_none_pending(state)
    kernel = KernelIR(request.name, b.blocks[0], request.return_type)
    inputs = {"captured": state.captured, "funcs": state.reached_funcs}
    return kernel, dict(inputs, uncacheable=state.reads.refused)


def runtime_layout(params: list[Param], written: list[str] = ()) -> ArgLayout:
    """The launch-time argument layout; ``written`` names the ndarrays the code stores
    into (a read-only NumPy array passed there is refused before launching)."""
    slots = []
    for p in params:
        if p.kind == "ndarray":
            slots.append(ArgSlot(p.name, "ndarray", p.dtype, p.ndim, p.name in written))
        elif p.kind == "scalar":
            kind = "float" if p.dtype.is_float else "int" if p.dtype.is_signed else "uint"
            slots.append(ArgSlot(p.name, kind, p.dtype, 0))
    return ArgLayout(slots)


def written_arguments(block: ir.Block, params: list[Param]) -> list[str]:
    """The names of the ndarray arguments the kernel stores into (plainly or atomically)."""
    slots = [p.name for p in params if p.kind != "template"]
    written = set()
    for stmt in block.walk():
        target = stmt.ptr if isinstance(stmt, ir.GlobalStoreStmt) else None
        target = stmt.dest if isinstance(stmt, ir.AtomicOpStmt) else target
        if isinstance(target, ir.ExternalPtrStmt):
            written.add(slots[target.arg_index])
    return sorted(written)


def compile_kernel(request: CompileRequest, hooks=None) -> tuple[CompiledKernel, Stages, dict]:
    """Runs the whole pipeline; returns the launchable kernel, its stages and inputs read.

    ``hooks`` (the offline cache's) may choose the symbol prefix once tracing has shown
    what the kernel reads (``hooks.prefix(inputs)``) and receive the object code
    (``hooks.keep(object_code, generator)``).
    """
    started = time.perf_counter()
    kernel, inputs = trace(request)
    kernel.report["written_arguments"] = written_arguments(kernel.block, request.params)
    ir_text = format_block(kernel.block)
    pipeline.run(kernel, request.config)
    ir_optimized = format_block(kernel.block)
    layout = runtime_layout(request.params, kernel.report["written_arguments"])
    prefix = hooks.prefix(inputs) if hooks is not None else None
    generator = CpuModuleGenerator(kernel, request.config, layout.offsets, prefix)
    llvm_text = generator.generate()
    if hooks is not None and hooks.wants_object:
        entry_address, llvm_optimized, code = cpu_runtime.load_as_object(
            llvm_text, generator.entry_name
        )
        hooks.keep(code, generator)
    else:
        entry_address, llvm_optimized = cpu_runtime.load(llvm_text, generator.entry_name)
    compiled = CompiledKernel(
        request.name,
        entry_address,
        layout,
        request.return_type,
        generator.prints,
        generator.asserts,
        generator.tree_slots,
    )
    report = dict(kernel.report)
    report["compile_time_s"] = time.perf_counter() - started
    stages = Stages(
        llvm_optimized,
        ast=ast.dump(request.source.function_def, indent=2),
        ir=ir_text,
        ir_optimized=ir_optimized,
        llvm=llvm_text,
        report=report,
    )
    return compiled, stages, inputs
