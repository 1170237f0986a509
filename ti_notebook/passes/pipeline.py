"""The passes, in the order they run (DESIGN.md section 3).

>>> [name for name, _ in PASSES][:3]
['typecheck', 'make_block_local', 'offload']
"""

from __future__ import annotations

from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.lang.config import Config
from ti_notebook.passes import (
    demote_atomics,
    eliminate_dead_code,
    lower_access,
    lower_sparse,
    make_block_local,
    make_thread_local,
    offload,
    privatize_scatter,
    prove_bounds,
    typecheck,
)

PASSES = [
    ("typecheck", typecheck.run),
    ("make_block_local", make_block_local.run),
    ("offload", offload.run),
    ("make_thread_local", make_thread_local.run),
    ("demote_atomics", demote_atomics.run),
    ("privatize_scatter", privatize_scatter.run),
    # after offload (checks move into task prologues), before lower_sparse (an index
    # must be checked before it sets or reads a sparse cell's bit)
    ("prove_bounds", prove_bounds.run),
    ("lower_sparse", lower_sparse.run),
    ("lower_access", lower_access.run),
    ("eliminate_dead_code", eliminate_dead_code.run),
    ("typecheck_final", typecheck.run),
]


def run(kernel: KernelIR, config: Config) -> list[str]:
    """Runs every pass; returns the names of those that changed the IR."""
    fired = []
    for name, run_pass in PASSES:
        if run_pass(kernel, config):
            fired.append(name)
    kernel.report["passes"] = fired
    return fired
