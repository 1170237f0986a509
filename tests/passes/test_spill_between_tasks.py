"""spill_between_tasks: where every task is a kernel, nothing crosses tasks but memory.

The pass runs in the CUDA pipeline only; these tests trace kernels, run that pipeline in
debug mode (the verifier after every pass) and read the resulting IR.
"""

import pytest

import ti_notebook as ti
from ti_notebook.compiler.backends import backend_for
from ti_notebook.compiler.backends.cuda import ptx_backend
from ti_notebook.compiler.request import CompileRequest, Param
from ti_notebook.frontend.kernel_trace import trace_kernel
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import pipeline

pytestmark = pytest.mark.cpu


def _lowered(function, backend, params=()):
    request = CompileRequest(
        function.__name__,
        FunctionSource.of(function),
        params=list(params),
        template_values={},
        return_type=ti.i32,
        options=CompileOptions(debug=True),
        backend=backend,
    )
    kernel, _inputs = trace_kernel(request)
    records = pipeline.run(kernel, request.options, backend.capabilities, backend.passes)
    return kernel, {r.name: r.changed for r in records}


def _defined_in(task: ir.OffloadedStmt) -> set[int]:
    return {stmt.id for stmt in task.walk_all()}


def test_every_task_reads_only_what_it_defines_or_loads_from_temporaries():
    x = ti.field(ti.i32, shape=64)

    def mixed(n: ti.i32) -> ti.i32:
        first = x[0] + n  # a load: spilled, not recomputed (memory may change)
        count = n + 3  # arithmetic on an argument: recomputed where needed
        for i in range(count):
            x[i] = i
        total = first
        ti.loop_config(serialize=True)
        for i in range(n):
            total += x[i]
        return total

    kernel, changed = _lowered(mixed, ptx_backend(), [Param("n", "scalar", ti.i32)])
    assert changed["spill_between_tasks"]
    for task in kernel.tasks():
        own = _defined_in(task)
        for stmt in task.walk_all():
            assert all(operand.id in own for operand in stmt.operands()), stmt
        for bound in task.operands():  # begin, end: from the task's own prologue
            assert bound.id in own
    spilled = [s for s in kernel.tasks()[0].body.stmts if isinstance(s, ir.GlobalStoreStmt)]
    assert spilled and all(isinstance(s.ptr, ir.TempPtrStmt) for s in spilled)
    assert kernel.temps_size > 0


def test_a_serial_task_that_only_computed_a_bound_goes_away():
    x = ti.field(ti.i32, shape=(8, 8))

    def fill(n: ti.i32) -> ti.i32:
        for i, j in ti.ndrange(n, n):
            x[i, j] = i + j
        return 0

    kernel, _ = _lowered(fill, ptx_backend(), [Param("n", "scalar", ti.i32)])
    kinds = [task.kind for task in kernel.tasks()]
    assert kinds == ["range_for", "serial"]  # the extents' spill to temporaries is gone
    assert not [
        s
        for s in kernel.block.walk()
        if isinstance(s, ir.GlobalStoreStmt) and isinstance(s.ptr, ir.TempPtrStmt)
    ]


def test_the_cpu_pipeline_does_not_run_it():
    def nothing() -> ti.i32:
        return 1

    _kernel, changed = _lowered(nothing, backend_for("cpu", 2))
    assert "spill_between_tasks" not in changed
    assert "privatize_scatter" in changed
    cuda_names = [name for name, _ in ptx_backend().passes]
    assert "privatize_scatter" not in cuda_names
    assert cuda_names.index("spill_between_tasks") == cuda_names.index("eliminate_dead_code") - 1
