"""A kernel's IR and what the passes learn about it.

>>> from ti_notebook.ir.nodes import Block
>>> k = KernelIR("f", Block())
>>> k.report["tasks"]
[]
"""

from __future__ import annotations

import dataclasses

from ti_notebook.ir import nodes as ir
from ti_notebook.ir.types import DataType


@dataclasses.dataclass
class KernelIR:
    """The IR of one specialised kernel, from tracing to codegen."""

    name: str
    block: ir.Block
    return_type: DataType | None = None
    temps_size: int = 0  # bytes of kernel temporaries shared between tasks
    # descriptors of the fields that ti.no_activate named: writes activate nothing
    no_activate: frozenset = frozenset()
    # ("grad" | "dual", ndarray argument slot) -> the slot of its gradient or dual array
    adjoint_args: dict = dataclasses.field(default_factory=dict)
    report: dict = dataclasses.field(
        default_factory=lambda: {
            "tasks": [],
            "thread_local": [],
            "block_local": [],
            "demoted_atomics": [],
            "promoted": [],
            "privatized": [],
        }
    )

    def tasks(self) -> list[ir.OffloadedStmt]:
        return [s for s in self.block.stmts if isinstance(s, ir.OffloadedStmt)]

    def new_temp(self, size: int = 8) -> int:
        offset = self.temps_size
        self.temps_size += (size + 7) // 8 * 8
        return offset
