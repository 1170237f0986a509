"""LLVM alias scopes that say two fields never share a byte.

Every field lives in its tree's one buffer, addressed as ``root + offset``, so LLVM
must assume a store to ``y[i]`` may change ``A[i, j]`` and reloads, or vectorises only
behind run-time overlap checks. Each field element's load and store gets its field's
``!alias.scope`` and a ``!noalias`` list of every other field the kernel touches:
accesses of different fields are then independent. Addresses that are not one field's
element (activity bits, block-local buffers, privatised copies, ndarrays) get no
metadata, which claims nothing.

    >>> import llvmlite.ir as ll
    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> scopes = FieldAliasScopes(ll.Module(), KernelIR("k", ir.Block()))
    >>> scopes.tags(None) is None
    True
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR


class FieldAliasScopes:
    """The scope and noalias lists of each field a kernel addresses (built once)."""

    def __init__(self, module: ll.Module, kernel: KernelIR | None) -> None:
        fields: list = []
        for stmt in kernel.block.walk() if kernel is not None else ():
            field = getattr(stmt, "field", None) if isinstance(stmt, ir.PtrOffsetStmt) else None
            if field is not None and field not in fields:
                fields.append(field)
        self._tags: dict = {}
        if len(fields) < 2:  # one field: nothing to tell apart
            return
        domain = module.add_metadata([ll.MetaDataString(module, "ti_notebook.fields")])
        scopes = [
            module.add_metadata([ll.MetaDataString(module, f"field.{k}.{f.name}"), domain])
            for k, f in enumerate(fields)
        ]
        for k, field in enumerate(fields):
            own = module.add_metadata([scopes[k]])
            others = module.add_metadata([s for j, s in enumerate(scopes) if j != k])
            self._tags[field] = (own, others)

    def tags(self, field) -> tuple | None:
        """(alias.scope, noalias) metadata for an element of ``field``; None: say nothing."""
        return self._tags.get(field) if field is not None else None

    def annotate(self, instruction, ptr: ir.Stmt) -> None:
        """Attaches the tags of the field ``ptr`` addresses, if it addresses one."""
        tags = self.tags(getattr(ptr, "field", None) if isinstance(ptr, ir.PtrOffsetStmt) else None)
        if tags is not None:
            instruction.set_metadata("alias.scope", tags[0])
            instruction.set_metadata("noalias", tags[1])
