"""IR statements that touch memory: fields, ndarrays, atomics, sparse cells, buffers.

Re-exported by :mod:`ti_notebook.ir.nodes`, which every pass imports as ``ir``.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import u8
    >>> ir.MemsetZeroStmt(ir.ConstStmt(0, u8), 64).nbytes
    64
"""

from __future__ import annotations

from ti_notebook.ir.refs import FieldRef, NodeRef
from ti_notebook.ir.stmt import Stmt
from ti_notebook.ir.types import DataType


# -- memory ----------------------------------------------------------------------------
class GlobalPtrStmt(Stmt):
    """Pointer to ``field[indices]`` (before lowering to address arithmetic).

    ``field`` is the field's descriptor (:class:`~ti_notebook.ir.refs.FieldRef`).
    """

    operand_names = ("indices",)

    def __init__(self, field: FieldRef, indices: list[Stmt]) -> None:
        super().__init__(field.dtype)
        self.field, self.indices = field, indices
        # (scratch buffer, tree offset it starts at): the element's private copy instead
        # (passes/privatize_scatter.py)
        self.private: tuple[Stmt, int] | None = None


class ExternalPtrStmt(Stmt):
    """Pointer to ``arr[indices]`` of ndarray argument ``arg_index``."""

    operand_names = ("indices",)

    def __init__(self, arg_index: int, ndim: int, indices: list[Stmt], dtype: DataType) -> None:
        super().__init__(dtype)
        self.arg_index, self.ndim, self.indices = arg_index, ndim, indices


class RootPtrStmt(Stmt):
    """Base address of SNode tree ``tree_id`` (after lowering).

    ``snapshot``: inside a struct-for task that copied its activity bitmasks at its start
    (``OffloadedStmt.snapshot``), the base that reads them from that copy.
    """

    def __init__(self, tree_id: int, snapshot: bool = False) -> None:
        super().__init__(None)
        self.tree_id = tree_id
        self.snapshot = snapshot


class TempPtrStmt(Stmt):
    """Address of a kernel temporary (a local shared between tasks) at ``offset``."""

    def __init__(self, offset: int, dtype: DataType) -> None:
        super().__init__(dtype)
        self.offset = offset


class PtrOffsetStmt(Stmt):
    """``base + byte_offset`` seen as a pointer to ``dtype``.

    ``field``: the field whose element this addresses, when it is one
    (``passes/lower_access.py`` sets it), for analyses such as which loads read memory no
    one writes; None for other addresses (activity bits, whole cells, buffers).
    """

    operand_names = ("base", "byte_offset")

    def __init__(self, base: Stmt, byte_offset: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.base, self.byte_offset = base, byte_offset
        self.field: FieldRef | None = None


class GlobalLoadStmt(Stmt):
    operand_names = ("ptr",)

    def __init__(self, ptr: Stmt) -> None:
        super().__init__(ptr.dtype)
        self.ptr = ptr


class GlobalStoreStmt(Stmt):
    operand_names = ("ptr", "value")
    has_side_effect = True

    def __init__(self, ptr: Stmt, value: Stmt) -> None:
        super().__init__(None)
        self.ptr, self.value = ptr, value
        self.nontemporal = False  # bypass the cache (passes/lower_access.py decides)


class AtomicOpStmt(Stmt):
    """Atomic read-modify-write on a global or local; the value is the old one.

    ops: add sub min max bit_and bit_or bit_xor
    """

    operand_names = ("dest", "value")
    has_side_effect = True

    def __init__(self, op: str, dest: Stmt, value: Stmt) -> None:
        super().__init__(value.dtype)
        self.op, self.dest, self.value = op, dest, value


class SNodeOpStmt(Stmt):
    """An SNode builtin; ``passes/lower_sparse.py`` expands it.

    ops: ``is_active``, ``activate``, ``deactivate`` (pointer/bitmasked: a cell; dynamic:
    a list), ``length`` and ``append`` (dynamic: the old length), ``get_addr`` (u64).
    ``snode`` is the node's descriptor (:class:`~ti_notebook.ir.refs.NodeRef`; a
    ``FieldRef`` for ``get_addr`` on a field); ``indices`` are in the index space of
    ``index_shape``: the node's own (``snode.shape``), or for the list ops of a dynamic
    node its shape without the list axis. ``append`` stores ``values``, one per field
    of ``fields`` (the components placed in the node), already of their types.
    """

    operand_names = ("indices", "values")
    has_side_effect = True

    def __init__(
        self,
        op: str,
        snode: NodeRef,
        indices: list[Stmt],
        dtype=None,
        index_shape: tuple[int, ...] | None = None,
        fields: tuple[FieldRef, ...] = (),
        values: list[Stmt] | None = None,
    ) -> None:
        super().__init__(dtype)
        self.op, self.snode, self.indices = op, snode, list(indices)
        self.index_shape = tuple(snode.shape) if index_shape is None else tuple(index_shape)
        self.fields, self.values = tuple(fields), list(values or [])


class AddressStmt(Stmt):
    """The address held by pointer ``ptr``, as a u64 (``ti.get_addr``)."""

    operand_names = ("ptr",)

    def __init__(self, ptr: Stmt, dtype: DataType) -> None:
        super().__init__(dtype)
        self.ptr = ptr


class BlockLocalStmt(Stmt):
    """``ti.block_local(*fields)`` at the top of a struct-for; ``make_block_local`` acts.

    ``fields``: the cached fields' descriptors (:class:`~ti_notebook.ir.refs.FieldRef`).
    """

    has_side_effect = True

    def __init__(self, fields: list[FieldRef]) -> None:
        super().__init__(None)
        self.fields = list(fields)


class LocalArrayStmt(Stmt):
    """A per-task stack array of ``count`` elements of ``dtype``; its value is the address.

    The block-local storage buffer on the CPU (shared memory on a GPU); with
    ``per_thread``, each thread's own array on every target (autodiff's stacks).
    """

    def __init__(
        self, dtype: DataType, count: int, name: str = "bls", per_thread: bool = False
    ) -> None:
        super().__init__(dtype)
        self.count, self.name = count, name
        self.per_thread = per_thread


class ScratchAllocStmt(Stmt):
    """``nbytes`` of zeroed heap memory (a task chunk's private copy of fields)."""

    has_side_effect = True

    def __init__(self, nbytes: int) -> None:
        super().__init__(None)
        self.nbytes = nbytes


class ScratchFreeStmt(Stmt):
    operand_names = ("buffer",)
    has_side_effect = True

    def __init__(self, buffer: Stmt) -> None:
        super().__init__(None)
        self.buffer = buffer


class MemsetZeroStmt(Stmt):
    """Zeroes ``nbytes`` bytes at ``ptr`` (a deactivated sparse cell's storage)."""

    operand_names = ("ptr",)
    has_side_effect = True

    def __init__(self, ptr: Stmt, nbytes: int) -> None:
        super().__init__(None)
        self.ptr, self.nbytes = ptr, nbytes
