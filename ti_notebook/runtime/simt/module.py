"""``SimtModule``: an NVPTX-form LLVM module compiled for the CPU, with launchable kernels.

>>> import numpy as np
>>> ir = '''
... declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
... declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
... declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
... define ptx_kernel void @iota(ptr %out, i32 %scale) {
...   %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
...   %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
...   %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
...   %bn = mul i32 %b, %n
...   %i = add i32 %bn, %t
...   %v = mul i32 %i, %scale
...   %p = getelementptr i32, ptr %out, i32 %i
...   store i32 %v, ptr %p
...   ret void
... }'''
>>> module = SimtModule(ir)
>>> out = np.zeros(8, np.int32)
>>> module.launch("iota", grid=2, block=4, params=[out, 10])
>>> out.tolist()
[0, 10, 20, 30, 40, 50, 60, 70]
"""

from __future__ import annotations

import ctypes
import itertools
import struct

import llvmlite.binding as llvm

from ti_notebook.errors import (
    TiNameError,
    TiOverflowError,
    TiRuntimeError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.ir.devices import DeviceLimits
from ti_notebook.runtime.cpu import compile_worker, kernel_code
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.simt.device import SIMT_DEVICE, check_launch, normalize_dims
from ti_notebook.runtime.simt.rewrite import KernelEntry, rewrite_for_host
from ti_notebook.runtime.simt.runtime import get_runtime

__all__ = ["SimtModule", "SimtKernel"]

_module_ids = itertools.count()
_INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
_FLOAT_FORMATS = {"half": "<e", "float": "<f", "double": "<d"}


def _pack_param(kernel: str, index: int, ty: str, value) -> int:
    """One kernel argument as the 64-bit slot the entry trampoline loads it from."""
    if ty.startswith("ptr"):
        data = getattr(value, "ctypes", None)  # a NumPy array: its data pointer
        if data is not None:
            return int(data.data)
        if value is None:
            return 0
        ty = "i64"
    if ty in _INT_BITS:
        if isinstance(value, float) or not hasattr(value, "__index__"):
            raise TiTypeError(
                f"kernel '{kernel}': argument {index} must be an integer ({ty}), "
                f"not {type(value).__name__}",
                hint="pass a Python int (an address for a pointer, or a NumPy array)",
            )
        bits = _INT_BITS[ty]
        number = int(value)
        if not -(1 << (bits - 1)) <= number < (1 << bits) and bits > 1:
            raise TiOverflowError(
                f"kernel '{kernel}': argument {index} = {number} does not fit in {ty}",
                hint=f"pass a value that fits in {bits} bits",
            )
        return number & ((1 << bits) - 1) if bits > 1 else int(bool(number))
    if not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TiTypeError(
            f"kernel '{kernel}': argument {index} must be a number ({ty}), "
            f"not {type(value).__name__}",
            hint="pass a Python float",
        )
    raw = struct.pack(_FLOAT_FORMATS[ty], float(value))
    return int.from_bytes(raw.ljust(8, b"\0"), "little")


class SimtKernel:
    """One kernel of a :class:`SimtModule`; ``launch`` runs it."""

    def __init__(self, module: SimtModule, entry: KernelEntry, address: int) -> None:
        self.module = module
        self.name = entry.name
        self.param_types = entry.param_types
        self.entry_address = address

    def launch(
        self, grid=1, block=1, params=(), shared_bytes: int = 0, name: str | None = None
    ) -> None:
        """Runs the kernel on ``grid`` blocks of ``block`` threads (ints or 1-3 tuples);
        ``params``: ints for integers and pointers (or NumPy arrays for pointers),
        floats for ``float``/``double``; ``shared_bytes``: dynamic shared memory;
        ``name``: the kernel's name in run-time errors (default: its LLVM name)."""
        grid = normalize_dims(self.name, "grid", grid)
        block = normalize_dims(self.name, "block", block)
        check_launch(
            self.name,
            grid,
            block,
            self.module.static_shared_bytes,
            int(shared_bytes),
            self.module.device,
        )
        params = list(params)
        if len(params) != len(self.param_types):
            raise TiTypeError(
                f"kernel '{self.name}' takes {len(self.param_types)} arguments "
                f"({', '.join(self.param_types)}), got {len(params)}",
                hint="pass one value per kernel parameter",
            )
        slots = [
            _pack_param(self.name, i, ty, v)
            for i, (ty, v) in enumerate(zip(self.param_types, params, strict=True))
        ]
        args = (ctypes.c_uint64 * max(len(slots), 1))(*slots)
        get_runtime().launch(
            name or self.name, self.entry_address, ctypes.addressof(args), block, grid
        )

    __call__ = launch

    def __repr__(self) -> str:
        return f"SimtKernel({self.name!r}, params=({', '.join(self.param_types)}))"


class SimtModule:
    """Compiles NVPTX-form LLVM IR (``define ptx_kernel``...) for the CPU and runs its
    kernels with GPU semantics: one OS thread per CUDA thread of a block, real barriers,
    warp shuffles and votes, shared memory, blocks one after another.

    ``optimize``: run the host's O3 pipeline on the rewritten module (slower to compile,
    faster to run). ``device``: the limits launches are checked against.
    """

    def __init__(
        self, llvm_ir_text: str, device: DeviceLimits = SIMT_DEVICE, optimize: bool = True
    ) -> None:
        self.device = device
        get_runtime()  # its symbols must exist before the module is loaded
        prefix = f"tin_simt_entry_{next(_module_ids)}"
        host = rewrite_for_host(llvm_ir_text, prefix)
        self.static_shared_bytes = host.static_shared_bytes
        if host.static_shared_bytes > device.shared_bytes_per_block:
            raise TiValueError(
                f"the module's kernels have {host.static_shared_bytes} bytes of static "
                f"shared memory, over the limit of {device.shared_bytes_per_block} per "
                "block (ptxas refuses such a module too)",
                hint="use dynamic shared memory (an extern addrspace(3) array) above 48 KB",
            )
        self.uses_dynamic_shared = host.uses_dynamic_shared
        engine = jit()
        try:
            module = engine.parse(host.text)
            module.link_in(engine.parse(host.shim_text))
            module.verify()
        except RuntimeError as exc:
            raise TiRuntimeError(
                f"the SIMT emulator could not compile the module for the CPU: {exc}",
                hint="a construct the rewrite does not handle (e.g. addrspace(5) allocas); "
                "please report it with the module's text",
            ) from None
        entries = {k.entry for k in host.kernels}
        # Internal linkage: nothing clashes with other modules in the one process JIT.
        for fn in module.functions:
            if not fn.is_declaration and fn.name not in entries:
                fn.linkage = llvm.Linkage.internal
        for var in module.global_variables:
            if not var.is_declaration:
                var.linkage = llvm.Linkage.internal
        if optimize:
            # O3 in the compile worker after the first few (LLVM's pipeline leaks)
            code, self.host_ir = compile_worker.optimised_object(str(module))
        else:
            self.host_ir = str(module)
            code = engine.object_code(module)
        # an engine of its own: the machine code is freed with this module
        self.code = kernel_code.load(code, sorted(entries))
        addresses = self.code.addresses
        self.kernels: dict[str, SimtKernel] = {
            k.name: SimtKernel(self, k, addresses[k.entry]) for k in host.kernels
        }

    def kernel(self, name: str) -> SimtKernel:
        """The kernel called ``name``."""
        try:
            return self.kernels[name]
        except KeyError:
            raise TiNameError(
                f"the module has no kernel '{name}'",
                hint=f"its kernels are: {', '.join(sorted(self.kernels))}",
            ) from None

    def launch(self, name: str, grid=1, block=1, params=(), shared_bytes: int = 0) -> None:
        """Runs kernel ``name``; see :meth:`SimtKernel.launch`."""
        self.kernel(name).launch(grid, block, params, shared_bytes)

    def __repr__(self) -> str:
        return f"SimtModule(kernels={sorted(self.kernels)})"
