"""IR → one NVPTX-form LLVM module per kernel: one CUDA kernel per task.

The launch contract (what a launcher of this module must do, and what
:attr:`NvptxModuleGenerator.launches` tells it):

- every task ``k`` is ``define ptx_kernel void @<prefix>_task<k>(ptr %ctx)``; a task may
  have helper kernels before it (``<prefix>_task<k>_snapshot``, ``_list_clear``,
  ``_list``: ``codegen/nvptx/sparse_lists.py``); every kernel of ``launches`` runs once, in
  order, on one stream;
- ``ctx`` is the CPU's launch context (``ir/launch_abi.py``: ``CTX_ROOTS``,
  ``CTX_TEMPS``, ``CTX_ERROR``..., arguments from ``CTX_ARGS`` as
  ``runtime/launch.py``'s ``ArgLayout`` packs them), in **device** memory: ``CTX_ROOTS``
  holds a device pointer to a table of the trees' device base addresses (by the
  artifact's ``tree_slots``), ``CTX_TEMPS`` a device buffer of ``temps_bytes`` bytes
  (values the tasks pass each other), ndarray slots device pointers; ``CTX_INTERRUPT``
  and ``CTX_PROFILE`` are unused. A kernel's return value is at ``CTX_RETURN``, a failed
  assert's code and arguments at ``CTX_ERROR`` (the launcher stops after a kernel with
  ``checks_errors`` whose code is not 0, and raises as the CPU launcher does);
- one :class:`~ti_notebook.ir.launch_abi.Launch` of ``launches`` per kernel, in order:
  ``kernel`` (the symbol), ``kind`` (``serial``, ``range_for``, ``struct_for``; helpers:
  ``snapshot``, ``list_clear``, ``list``), ``block_dim`` (``loop_config`` or 128, at
  most 1024; 1 for serial tasks; a thread per cell of a block, in whole warps up to 128,
  for block-local storage and sparse lists), ``iterations`` (when known while compiling,
  else None), ``grid_dim`` (:func:`~ti_notebook.ir.launch_abi.grid_dim`, the formula
  every launcher uses too: ``min(SMs x 32 x 2, ceil(iterations / block_dim))``, a
  quarter of the first term for a task reducing across warps; a CUDA block per block for
  block-local storage and sparse lists; 1 for serial), ``shared_bytes`` (dynamic shared memory: past
  48 KB the launcher opts the kernel in with ``cuFuncSetAttribute``), ``block_local``,
  ``block_list``, ``warp_reduction`` (its thread-local reductions use warp shuffles, so
  ``block_dim`` must stay a multiple of 32) and ``checks_errors``.

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

import dataclasses
import operator

import llvmlite.ir as ll

from ti_notebook.codegen.llvm_types import I8, I32, I64, PTR, VOID
from ti_notebook.codegen.module_base import ModuleGeneratorBase
from ti_notebook.codegen.nvptx import loop_unroll, sparse_lists
from ti_notebook.codegen.nvptx import target as nvptx_target
from ti_notebook.codegen.nvptx.emitter import NvptxFunctionEmitter, device_scoped
from ti_notebook.codegen.nvptx.shared_memory import SHARED, cells_per_block, untyped
from ti_notebook.codegen.nvptx.warp_reduce import is_reduction_atomic
from ti_notebook.errors import TiValueError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.devices import MAX_THREADS_PER_BLOCK, WARP_SIZE, CudaDevice
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.launch_abi import Launch, grid_dim
from ti_notebook.ir.options import CompileOptions

DEFAULT_BLOCK_DIM = 128
MAX_BLOCK_DIM = MAX_THREADS_PER_BLOCK
WARP = WARP_SIZE


class NvptxModuleGenerator(ModuleGeneratorBase):
    """Builds the NVPTX module of one specialised kernel, and its launch table."""

    def __init__(
        self,
        kernel: KernelIR,
        options: CompileOptions,
        capabilities: Capabilities,
        arg_offsets: dict,  # argument slot k, or ("return", k), -> context offset
        prefix: str | None = None,
        device: CudaDevice | None = None,
    ) -> None:
        super().__init__(kernel, options, capabilities, arg_offsets, prefix)
        self.device = device or CudaDevice()
        self.module.triple = nvptx_target.TRIPLE
        self.module.data_layout = nvptx_target.data_layout(self.device.compute_capability)
        self.launches: list[Launch] = []

    @property
    def kernel_names(self) -> list[str]:
        return [launch.kernel for launch in self.launches]

    def generate(self) -> str:
        for k, task in enumerate(self.kernel.tasks()):
            name = f"{self.prefix}_task{k}"
            snapshot = None
            if task.snapshot is not None:
                snapshot = sparse_lists.snapshot_kernel(self, task, name)
            listing = sparse_lists.block_list(self, task, name, snapshot)
            block_dim = self.block_dim(task, listing)
            emitter = self.task_emitter(name, task, block_dim, snapshot)
            emitter.block_list = listing
            emitter.emit_task()
            self.launches.append(self.launch_entry(name, task, block_dim, emitter))
        self.reflect_flags()
        return device_scoped(loop_unroll.self_referential(str(self.module)))

    def task_emitter(
        self, name: str, task: ir.OffloadedStmt, block_dim: int, snapshot: ll.Value | None
    ) -> NvptxFunctionEmitter:
        """An emitter for kernel ``name`` of ``task``, reading activity bits from the
        ``snapshot`` copy when there is one."""
        fn = ll.Function(self.module, ll.FunctionType(VOID, [PTR]), name)
        fn.calling_convention = "ptx_kernel"
        fn.args[0].add_attribute("noalias")
        emitter = NvptxFunctionEmitter(self, fn, task, block_dim)
        if snapshot is not None:  # the copy stands for the tree's bytes from start on
            back = ll.Constant(I64, -task.snapshot[0])
            base = emitter.entry_builder.gep(snapshot, [back], source_etype=I8)
            emitter.snapshot = (task.field.layout().tree_id, base)
        return emitter

    def reflect_flags(self) -> None:
        """libdevice asks ``__nvvm_reflect("__CUDA_FTZ")`` whether to flush denormals to
        zero: yes under fast math, as CUDA's ``-use_fast_math``."""
        flag = self.module.add_metadata(
            [
                ll.Constant(I32, 4),  # "override": the linked libdevice has none
                ll.MetaDataString(self.module, "nvvm-reflect-ftz"),
                ll.Constant(I32, int(self.options.fast_math)),
            ]
        )
        self.module.add_named_metadata("llvm.module.flags", flag)

    # -- the launch table --------------------------------------------------------------
    def block_dim(self, task: ir.OffloadedStmt, listing) -> int:
        if task.kind == "serial":
            return 1
        asked = int(task.config.get("block_dim") or 0)
        if not asked:
            # a CUDA block per block (block-local storage, a sparse list's entries): a
            # thread per cell, whole warps, at most 128
            cells = listing.span if listing is not None else cells_per_block(task)
            if cells is None:
                asked = DEFAULT_BLOCK_DIM
            else:
                asked = min(-(-cells // WARP) * WARP, DEFAULT_BLOCK_DIM)
        return min(asked, MAX_BLOCK_DIM)

    def launch_entry(self, name: str, task: ir.OffloadedStmt, block_dim: int, emitter) -> Launch:
        iterations = None
        if task.kind != "serial":
            begin, end = _known(task.begin), _known(task.end)
            if begin is not None and end is not None:
                iterations = max(end - begin, 0)
        shared = emitter.shared
        if shared is not None and shared.total > self.device.shared_memory_opt_in:
            named = "" if task.pos is not None else f"kernel '{self.kernel.name}': "
            raise TiValueError(
                f"{named}its block-local buffers need {shared.total} bytes of shared "
                f"memory, and a block has at most {self.device.shared_memory_opt_in} on "
                f"{self.device.compute_capability}",
                task.pos,
                hint="use smaller blocks (the leaf dense level) or cache fewer fields",
            )
        launch = Launch(
            kernel=name,
            kind=task.kind,
            block_dim=block_dim,
            iterations=iterations,
            shared_bytes=shared.total if shared is not None and shared.dynamic else 0,
            block_local=shared is not None,
            block_list=emitter.block_list is not None,
            warp_reduction=emitter.warp_reduction and bool(self.reductions(task)),
            checks_errors=any(isinstance(s, ir.AssertStmt) for s in task.walk_all()),
        )
        listed = emitter.block_list.blocks if emitter.block_list is not None else None
        return dataclasses.replace(launch, grid_dim=grid_dim(launch, self.device, listed))

    def reductions(self, task: ir.OffloadedStmt) -> list[ir.AtomicOpStmt]:
        return [s for s in task.epilogue.stmts if is_reduction_atomic(s, task)]

    def dynamic_shared(self) -> ll.GlobalVariable:
        """The kernel's dynamic shared memory (``extern __shared__``), sized at launch."""
        name = f"{self.prefix}_dynamic_shared"
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        buffer_type = ll.ArrayType(I8, 0)
        buffer = ll.GlobalVariable(self.module, buffer_type, name, addrspace=SHARED)
        buffer.linkage = "external"
        buffer.align = 16
        return untyped(buffer)


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
