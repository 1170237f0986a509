"""What every module generator keeps besides its code: symbol names and the tables the
launcher reads (prints, asserts, the SNode trees by local slot).

``CpuModuleGenerator`` (``codegen/cpu/module.py``) and ``NvptxModuleGenerator``
(``codegen/nvptx/module.py``) derive from :class:`ModuleGeneratorBase`; the statement emitter
(``codegen/function.py``) calls these methods on whichever generator drives it.

    >>> symbol_name("füllen")
    'f_llen'
    >>> symbol_prefix("add").startswith("tin_add_")
    True
"""

from __future__ import annotations

import itertools

import llvmlite.ir as ll

from ti_notebook.codegen.alias_scopes import FieldAliasScopes
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions

_counter = itertools.count()


def symbol_name(kernel_name: str) -> str:
    """The kernel's name as an LLVM symbol part: ASCII letters and digits only (JIT symbol
    lookups are ASCII; 'füllen' becomes 'f_llen', the suffix keeps names unique)."""
    return "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in kernel_name)


def symbol_prefix(kernel_name: str) -> str:
    """A prefix for the symbols of one compilation of ``kernel_name``, unique in the process."""
    return f"tin_{symbol_name(kernel_name)}_{next(_counter)}"


class ModuleGeneratorBase:
    """The LLVM module of one specialised kernel and the tables that go with it."""

    def __init__(
        self,
        kernel: KernelIR,
        options: CompileOptions,
        capabilities: Capabilities,
        arg_offsets: dict,  # argument slot k, or ("return", k), -> context offset
        prefix: str | None = None,
    ) -> None:
        self.kernel = kernel
        self.options = options
        self.capabilities = capabilities
        self.arg_offsets = arg_offsets
        # A cached kernel's symbols are named after its key: unique in any process.
        self.prefix = prefix or symbol_prefix(kernel.name)
        self.module = ll.Module(name=kernel.name)
        self.prints: list[dict] = []
        self.asserts: list[dict] = []
        # The SNode trees the kernel touches, by local slot: the code reads tree k's base
        # from slot k of a table the launcher fills, so it names no process-wide tree id
        # and the offline cache can load it for fields of any tree with the same plan.
        self.tree_slots: list[int] = []
        self.random_sites = itertools.count()  # ti.random call sites, numbered per kernel
        self._alias_scopes: FieldAliasScopes | None = None

    def alias_scopes(self) -> FieldAliasScopes:
        """Which fields' accesses are independent (built on first use; codegen/alias_scopes.py)."""
        if self._alias_scopes is None:
            kernel = self.kernel if self.options.advanced_optimization else None
            self._alias_scopes = FieldAliasScopes(self.module, kernel)
        return self._alias_scopes

    def tree_slot(self, tree_id: int) -> int:
        if tree_id not in self.tree_slots:
            self.tree_slots.append(tree_id)
        return self.tree_slots.index(tree_id)

    # -- registries the launcher reads -------------------------------------------------
    def register_print(self, stmt: ir.PrintStmt) -> int:
        parts = []
        for item in stmt.layout:
            if item is None:
                parts.append(("sep",))
            elif isinstance(item, str):
                parts.append(("text", item))
            else:
                parts.append(("value", stmt.values[item].dtype.name, stmt.specs[item]))
        self.prints.append({"parts": parts, "sep": stmt.sep, "end": stmt.end})
        return len(self.prints) - 1

    def register_assert(self, stmt: ir.AssertStmt) -> int:
        self.asserts.append(
            {
                "message": stmt.message,
                "kind": stmt.kind,
                "pos": stmt.pos,
                "nargs": len(stmt.args),
            }
        )
        return len(self.asserts)
