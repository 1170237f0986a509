"""What the user asked of the compiler: the ``ti.init`` options that change code.

The passes and codegen read these (and the backend's :mod:`capabilities
<ti_notebook.ir.capabilities>`), never the session's ``Config`` object: a compiled kernel
depends on exactly what this record holds, which is also what its cache key holds.

    >>> from ti_notebook.ir.types import f64
    >>> options = CompileOptions(default_fp=f64, default_loop_config={"block_dim": 64})
    >>> options.default_fp, dict(options.default_loop_config)
    (f64, {'block_dim': 64})
    >>> options.codegen_key()[-1]
    (('block_dim', 64),)
"""

from __future__ import annotations

import dataclasses
import types as pytypes
from collections.abc import Mapping

from ti_notebook.ir.types import DataType, f32, i32


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """The code-changing options of one compilation (read-only)."""

    default_fp: DataType = f32
    default_ip: DataType = i32
    debug: bool = False  # asserts, bounds checks, the IR verifier after every pass
    check_bounds: bool = True  # out-of-range indices raise (passes/prove_bounds.py)
    fast_math: bool = True
    make_thread_local: bool = True
    make_block_local: bool = True
    # demote_atomics and promote_accumulators; False: atomics and global accesses as written
    advanced_optimization: bool = True
    # ti.init(kernel_profiler=True): tasks and chunks record timestamps (codegen/cpu/profiling.py)
    kernel_profiler: bool = False
    # ti.loop_config defaults for every outermost loop (Kernel.configure, %%kernel flags)
    default_loop_config: Mapping = dataclasses.field(default_factory=dict, hash=False)
    # autodiff: "" (the kernel itself), "reverse" (its grad kernel, passes/make_adjoint.py)
    # or "forward" (primal and dual values together, passes/make_dual.py)
    autodiff: str = ""
    # the entries of each per-thread stack a grad kernel keeps for loop-carried locals
    ad_stack_size: int = 32
    # prints the IR after every pass; changes no code, so it is not in the key
    print_ir: bool = dataclasses.field(default=False, compare=False)

    def __post_init__(self) -> None:
        # read-only like the rest: a pass cannot change what the next kernel gets
        frozen = pytypes.MappingProxyType(dict(self.default_loop_config))
        object.__setattr__(self, "default_loop_config", frozen)

    def codegen_key(self) -> tuple:
        """Everything here that changes generated code, as plain values for a cache key."""
        return (
            self.default_fp.name,
            self.default_ip.name,
            self.debug,
            self.check_bounds,
            self.fast_math,
            self.make_thread_local,
            self.make_block_local,
            self.advanced_optimization,
            self.kernel_profiler,
            self.autodiff,
            self.ad_stack_size,
            tuple(sorted(self.default_loop_config.items())),
        )
