"""IR → one NVPTX-form LLVM module per kernel: one CUDA kernel per task.

The launch contract (what a launcher of this module must do, and what
:attr:`NvptxModuleGenerator.launches` tells it):

- every task ``k`` is ``define ptx_kernel void @<prefix>_task<k>(ptr %ctx)``; the tasks
  run in order, one launch each, on one stream;
- ``ctx`` is the CPU's launch context (``codegen/common.py``: ``CTX_ROOTS``,
  ``CTX_TEMPS``, ``CTX_ERROR``..., arguments from ``CTX_ARGS`` as
  ``runtime/launch.py``'s ``ArgLayout`` packs them), in **device** memory: ``CTX_ROOTS``
  holds a device pointer to a table of the trees' device base addresses (by the
  artifact's ``tree_slots``), ``CTX_TEMPS`` a device buffer of ``temps_bytes`` bytes
  (values the tasks pass each other), ndarray slots device pointers; ``CTX_INTERRUPT``
  and ``CTX_PROFILE`` are unused. A kernel's return value is at ``CTX_RETURN``, a failed
  assert's code and arguments at ``CTX_ERROR`` (the launcher stops after a task with
  ``checks_errors`` whose code is not 0, and raises as the CPU launcher does);
- one entry of ``launches`` per task, in order: ``kernel`` (the symbol), ``kind``
  (``serial``, ``range_for``, ``struct_for``), ``block_dim`` (``loop_config`` or 128,
  at most 1024; 1 for serial tasks), ``iterations`` (when known while compiling, else
  None), ``grid_dim`` (``min(SMs x 32 x 2, ceil(iterations / block_dim))``, the first
  term alone when the count is not known; 1 for serial), ``shared_bytes`` (dynamic
  shared memory), ``warp_reduction`` (its thread-local reductions use warp shuffles,
  so ``block_dim`` must not change) and ``checks_errors``.

``print`` goes through ``vprintf``, so lines appear when the host synchronises.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=1000)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = i
    >>> stages = fill.stages(arch="cuda")
    >>> "define ptx_kernel void" in stages["llvm"], ".entry" in stages["ptx"]
    (True, True)
    >>> launch = stages["report"].launches[0]
    >>> launch["kind"], launch["block_dim"], launch["grid_dim"], launch["iterations"]
    ('struct_for', 128, 8, 1000)
"""

from __future__ import annotations

import math
import operator

import llvmlite.ir as ll

from ti_notebook.codegen import common as c
from ti_notebook.codegen import nvptx_target
from ti_notebook.codegen.module_base import ModuleGeneratorBase
from ti_notebook.codegen.nvptx_emitter import NvptxFunctionEmitter, device_scoped
from ti_notebook.codegen.nvptx_reduce import is_reduction_atomic
from ti_notebook.codegen.nvptx_target import CudaDevice
from ti_notebook.errors import TiNotImplementedError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

DEFAULT_BLOCK_DIM = 128
MAX_BLOCK_DIM = 1024


class NvptxModuleGenerator(ModuleGeneratorBase):
    """Builds the NVPTX module of one specialised kernel, and its launch table."""

    def __init__(
        self,
        kernel: KernelIR,
        options: CompileOptions,
        capabilities: Capabilities,
        arg_offsets: dict[int, int],
        prefix: str | None = None,
        device: CudaDevice | None = None,
    ) -> None:
        super().__init__(kernel, options, capabilities, arg_offsets, prefix)
        self.device = device or CudaDevice()
        self.module.triple = nvptx_target.TRIPLE
        self.module.data_layout = nvptx_target.data_layout(self.device.compute_capability)
        self.launches: list[dict] = []

    @property
    def kernel_names(self) -> list[str]:
        return [launch["kernel"] for launch in self.launches]

    def generate(self) -> str:
        for k, task in enumerate(self.kernel.tasks()):
            self.refuse_unsupported(task)
            name = f"{self.prefix}_task{k}"
            fn = ll.Function(self.module, ll.FunctionType(c.VOID, [c.PTR]), name)
            fn.calling_convention = "ptx_kernel"
            fn.args[0].add_attribute("noalias")
            block_dim = self.block_dim(task)
            emitter = NvptxFunctionEmitter(self, fn, task, block_dim)
            emitter.emit_task()
            self.launches.append(self.launch_entry(name, task, block_dim, emitter))
        self.reflect_flags()
        return device_scoped(str(self.module))

    def reflect_flags(self) -> None:
        """libdevice asks ``__nvvm_reflect("__CUDA_FTZ")`` whether to flush denormals to
        zero: yes under fast math, as CUDA's ``-use_fast_math``."""
        flag = self.module.add_metadata(
            [
                ll.Constant(c.I32, 4),  # "override": the linked libdevice has none
                ll.MetaDataString(self.module, "nvvm-reflect-ftz"),
                ll.Constant(c.I32, int(self.options.fast_math)),
            ]
        )
        self.module.add_named_metadata("llvm.module.flags", flag)

    # -- the launch table --------------------------------------------------------------
    def block_dim(self, task: ir.OffloadedStmt) -> int:
        if task.kind == "serial":
            return 1
        asked = int(task.config.get("block_dim") or 0) or DEFAULT_BLOCK_DIM
        return min(asked, MAX_BLOCK_DIM)

    def launch_entry(self, name: str, task: ir.OffloadedStmt, block_dim: int, emitter) -> dict:
        iterations = None
        if task.kind != "serial":
            begin, end = _known(task.begin), _known(task.end)
            if begin is not None and end is not None:
                iterations = max(end - begin, 0)
        grid = 1
        if task.kind != "serial":
            grid = self.device.saturating_grid
            if iterations is not None:
                grid = max(1, min(grid, math.ceil(iterations / block_dim)))
        return {
            "kernel": name,
            "kind": task.kind,
            "block_dim": block_dim,
            "iterations": iterations,
            "grid_dim": grid,
            "shared_bytes": 0,
            "warp_reduction": emitter.warp_reduction and bool(self.reductions(task)),
            "checks_errors": any(isinstance(s, ir.AssertStmt) for s in task.walk_all()),
        }

    def reductions(self, task: ir.OffloadedStmt) -> list[ir.AtomicOpStmt]:
        return [s for s in task.epilogue.stmts if is_reduction_atomic(s, task)]

    # -- what is not there yet ---------------------------------------------------------
    def refuse_unsupported(self, task: ir.OffloadedStmt) -> None:
        if any(isinstance(s, ir.LocalArrayStmt) for s in task.walk_all()):
            self.not_yet(task, "block_local on CUDA: not yet", "remove ti.block_local(...)")
        if task.snapshot is not None:
            self.not_yet(
                task,
                "a struct-for over a sparse field that activates or deactivates the cells "
                "it visits, on CUDA: not yet",
                "change activity in a separate loop, or compile for the CPU",
            )

    def not_yet(self, task: ir.OffloadedStmt, what: str, hint: str) -> None:
        raise TiNotImplementedError(
            f"kernel '{self.kernel.name}': {what}", task.pos, hint=hint + " (ti.cpu has it)"
        )


_FOLDABLE = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "max": max, "min": min}


def _known(bound) -> int | None:
    """A loop bound's value when constants alone make it (an ndrange's 4 * 3), else None."""
    if isinstance(bound, int):
        return bound
    if isinstance(bound, ir.ConstStmt):
        return bound.value
    if isinstance(bound, ir.CastStmt) and not bound.dtype.is_float:
        return _known(bound.operand)
    if isinstance(bound, ir.BinaryOpStmt) and bound.op in _FOLDABLE:
        lhs, rhs = _known(bound.lhs), _known(bound.rhs)
        return None if lhs is None or rhs is None else _FOLDABLE[bound.op](lhs, rhs)
    return None
