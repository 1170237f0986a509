"""The passes, in the order they run (DESIGN.md section 3), and the loop that runs them.

The rules that order must keep are data (``passes/ordering.py``): each pipeline built
here is checked against them when this module is imported.

Every pass is ``run(kernel, options, capabilities) -> changed``. :func:`run` records each
pass's name, whether it changed the IR and its time; with ``options.print_ir`` it prints
the IR after each pass (as Taichi's ``print_ir=True`` does), and with ``options.debug``
the verifier (``ir/verify.py``) checks the IR after each one.

    >>> [name for name, _ in PASSES][:3]
    ['typecheck', 'make_adjoint', 'make_dual']
    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.capabilities import Capabilities
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.options import CompileOptions
    >>> kernel = KernelIR("empty", ir.Block())
    >>> records = run(kernel, CompileOptions(debug=True), Capabilities("cpu", 4, 32))
    >>> [(r.name, r.changed) for r in records][:5:2]
    [('typecheck', False), ('make_dual', False), ('offload', True)]
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable

from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.ir.printer import format_block
from ti_notebook.ir.verify import verify
from ti_notebook.passes import (
    demote_atomics,
    eliminate_dead_code,
    if_convert,
    interchange_loops,
    lower_access,
    lower_sparse,
    lower_struct_for,
    make_adjoint,
    make_block_local,
    make_dual,
    make_thread_local,
    offload,
    ordering,
    privatize_scatter,
    promote_accumulators,
    prove_bounds,
    spill_between_tasks,
    typecheck,
)
from ti_notebook.passes.analysis import memory_traffic, warp_accesses

Pass = Callable[[KernelIR, CompileOptions, Capabilities], bool]

# The order keeps the rules of passes/ordering.py (each with its reason), checked below.
PASSES: tuple[tuple[str, Pass], ...] = (
    ("typecheck", typecheck.run),
    ("make_adjoint", make_adjoint.run),
    ("make_dual", make_dual.run),
    ("make_block_local", make_block_local.run),
    ("offload", offload.run),
    ("make_thread_local", make_thread_local.run),
    ("demote_atomics", demote_atomics.run),
    ("privatize_scatter", privatize_scatter.run),
    ("promote_accumulators", promote_accumulators.run),
    ("interchange_loops", interchange_loops.run),
    ("memory_traffic", memory_traffic.run),  # an analysis: changes nothing
    ("prove_bounds", prove_bounds.run),
    ("if_convert", if_convert.run),
    ("lower_sparse", lower_sparse.run),
    ("lower_access", lower_access.run),
    ("lower_struct_for", lower_struct_for.run),
    ("eliminate_dead_code", eliminate_dead_code.run),
    ("typecheck_final", typecheck.run),
)


def _kernel_per_task_passes() -> tuple[tuple[str, Pass], ...]:
    """Where each task is a kernel (CUDA): the CPU's passes without privatize_scatter
    (its per-chunk copies come from the host heap, and a GPU runs too many threads for
    copies to pay), with the values that cross tasks spilled to temporaries once the
    lowering is done, and the warps' access patterns analysed last."""
    steps = []
    for name, run_pass in PASSES:
        if name == "privatize_scatter":
            continue
        if name == "eliminate_dead_code":
            steps.append(("spill_between_tasks", spill_between_tasks.run))
        steps.append((name, run_pass))
    # an analysis of the final IR: sectors per warp access, bank conflicts
    steps.append(("warp_accesses", warp_accesses.run))
    return tuple(steps)


KERNEL_PER_TASK_PASSES = _kernel_per_task_passes()

# Every pipeline this module assembles, by the name an ordering error gives it.
PIPELINES: dict[str, tuple[tuple[str, Pass], ...]] = {
    "PASSES (CPU)": PASSES,
    "KERNEL_PER_TASK_PASSES (CUDA)": KERNEL_PER_TASK_PASSES,
}


def check_order(pipelines: dict[str, tuple[tuple[str, Pass], ...]] = PIPELINES) -> None:
    """Raises :class:`~ti_notebook.errors.PassOrderError` when one of ``pipelines`` (its
    name: its ``(name, run)`` steps) breaks a rule of ``passes/ordering.py``.

    >>> check_order({"reversed": PASSES[::-1]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ti_notebook.errors.PassOrderError: reversed runs 'typecheck_final' before 'typecheck', ...
    """
    for title, passes in pipelines.items():
        ordering.check([name for name, _ in passes], title)


# at import: no pipeline that breaks a rule compiles a kernel, and no rule names a step
# that nothing runs (it would hold nothing)
check_order()
ordering.check_names({name for passes in PIPELINES.values() for name, _ in passes})


@dataclasses.dataclass(frozen=True)
class PassRecord:
    """One pass over one kernel: its name, whether it changed the IR, seconds it took."""

    name: str
    changed: bool
    time_s: float

    def to_dict(self) -> dict:
        return {"name": self.name, "changed": self.changed, "time_s": self.time_s}


def run(
    kernel: KernelIR,
    options: CompileOptions,
    capabilities: Capabilities,
    passes: tuple[tuple[str, Pass], ...] = PASSES,
) -> tuple[PassRecord, ...]:
    """Runs ``passes`` in order over ``kernel``; returns what each did.

    The names of the passes that changed something also go to ``kernel.report["passes"]``.
    """
    if options.print_ir:
        _print(kernel, "initial IR")
    if options.debug:
        verify(kernel.block, "the frontend")
    records = []
    for name, run_pass in passes:
        started = time.perf_counter()
        changed = bool(run_pass(kernel, options, capabilities))
        records.append(PassRecord(name, changed, time.perf_counter() - started))
        if options.print_ir:
            _print(kernel, f"after {name}" + ("" if changed else " (unchanged)"))
        if options.debug:
            verify(kernel.block, name)
    kernel.report["passes"] = [r.name for r in records if r.changed]
    return tuple(records)


def _print(kernel: KernelIR, title: str) -> None:
    print(f"[ti_notebook] kernel '{kernel.name}', {title}:", file=sys.stdout)
    print(format_block(kernel.block), file=sys.stdout)
