"""IR statements that own blocks or change control: if, loops, tasks, print, assert.

Re-exported by :mod:`ti_notebook.ir.nodes`, which every pass imports as ``ir``.

    >>> from ti_notebook.ir import nodes as ir
    >>> loop = ir.StructForStmt(None)
    >>> loop.body.owner is loop
    True
"""

from __future__ import annotations

from ti_notebook.ir.refs import FieldRef, NodeRef
from ti_notebook.ir.stmt import Stmt, owned_block


# -- control flow -------------------------------------------------------------------------
class IfStmt(Stmt):
    operand_names = ("cond",)
    block_names = ("true_block", "false_block")
    has_side_effect = True

    def __init__(self, cond: Stmt) -> None:
        super().__init__(None)
        self.cond = cond
        self.true_block = owned_block(self)
        self.false_block = owned_block(self)


class WhileStmt(Stmt):
    """Loops until a :class:`BreakStmt`; ``while c: body`` is ``if not c: break`` first."""

    block_names = ("body",)
    has_side_effect = True

    def __init__(self) -> None:
        super().__init__(None)
        self.body = owned_block(self)


class RangeForStmt(Stmt):
    """``for i in range(begin, end)``; an outermost one becomes a parallel task.

    ``shape`` (when not None) splits the flat index into ndrange axes; ``config`` holds
    the ``ti.loop_config`` that applied to it.
    """

    operand_names = ("begin", "end", "extents", "starts")
    block_names = ("body",)
    has_side_effect = True

    def __init__(
        self,
        begin: Stmt,
        end: Stmt,
        config: dict | None = None,
        extents: list[Stmt] | None = None,
        starts: list[Stmt] | None = None,
    ) -> None:
        super().__init__(None)
        self.begin, self.end = begin, end
        # ndrange: the flat index splits into axes; axis k is
        # starts[k] + (flat // prod(extents[k+1:])) % extents[k]. Empty: one axis = flat.
        self.extents = list(extents or [])
        self.starts = list(starts or [])
        self.config = dict(config or {})
        self.body = owned_block(self)
        # make_block_local's loops over a block's buffer or cells: "fill", "cells" or
        # "write_back"; serial per block on the CPU, strided over a GPU block's threads
        self.block_role: str | None = None


class StructForStmt(Stmt):
    """``for I in field``: visits the active cells of ``field``'s SNode.

    ``field`` is the descriptor of the field or SNode looped over
    (:class:`~ti_notebook.ir.refs.FieldRef` or ``NodeRef``).

    ``passes/lower_struct_for.py`` turns it (and a ``struct_for`` task) into a *row
    loop*: a flat counter runs over ``[begin, end)`` (the cells in memory order, or a
    task's chunk of them) in rows, runs of at most ``row_width`` counter values, each
    ending at a multiple of ``row_width``. Per row, ``row_head`` runs once with
    :class:`~ti_notebook.ir.value_stmts.RowStartStmt` (the counter at the row's first
    cell); a :class:`SkipRowsStmt` there moves the counter on and goes to the next row.
    Then ``body`` runs per cell with :class:`~ti_notebook.ir.value_stmts.RowOffsetStmt`
    (0, 1, ... in the row). What ``row_head`` defines, ``body`` may use. A backend
    chooses how rows map to threads (a CPU thread runs a chunk's rows in order; a GPU
    thread may run one cell after its row's head).
    """

    block_names = ("row_head", "body")
    has_side_effect = True

    def __init__(self, field: FieldRef | NodeRef | None, config: dict | None = None) -> None:
        super().__init__(None)
        self.field = field
        self.config = dict(config or {})
        self.row_width: int | None = None  # set when lowered to a row loop
        self.cell_guard: IfStmt | None = None  # lower_sparse's "is this cell active" if
        self.row_head = owned_block(self)
        self.body = owned_block(self)


class SkipRowsStmt(Stmt):
    """In a row loop's ``row_head`` (see :class:`StructForStmt`): the counter becomes
    ``next`` (i32) and the loop goes on with the row starting there; the rest of this
    row is not visited."""

    operand_names = ("next",)
    has_side_effect = True

    def __init__(self, loop: Stmt, next: Stmt) -> None:
        super().__init__(None)
        self.loop, self.next = loop, next


class CountIterationStmt(Stmt):
    """The kernel profiler's count of the active cells a sparse struct-for task visits:
    one per execution (``codegen/cpu/profiling.py``); only with ``kernel_profiler``."""

    has_side_effect = True


class BreakStmt(Stmt):
    has_side_effect = True


class ContinueStmt(Stmt):
    has_side_effect = True


class ReturnStmt(Stmt):
    """The kernel's return value, or one scalar of it: ``slot`` k of a vector, struct or
    tuple return (the launcher reads the slots back in order)."""

    operand_names = ("value",)
    has_side_effect = True

    def __init__(self, value: Stmt, slot: int = 0) -> None:
        super().__init__(None)
        self.value = value
        self.slot = slot


class PrintStmt(Stmt):
    """``print(...)``: ``items`` are text, ``(value, format_spec)`` pairs, and None where
    the separator goes."""

    operand_names = ("values",)
    has_side_effect = True

    def __init__(self, items: list, end: str = "\n", sep: str = " ") -> None:
        super().__init__(None)
        self.end, self.sep = end, sep
        self.values = [item[0] for item in items if isinstance(item, tuple)]
        self.specs = [item[1] for item in items if isinstance(item, tuple)]
        # the layout, with each value replaced by its position in ``values``
        layout, k = [], 0
        for item in items:
            if isinstance(item, tuple):
                layout.append(k)
                k += 1
            else:
                layout.append(item)
        self.layout = layout


class AssertStmt(Stmt):
    """Debug check: when ``cond`` is 0, the launch stops with error ``message``.

    ``args`` are values the message shows (e.g. the bad index).
    """

    operand_names = ("cond", "args")
    has_side_effect = True

    def __init__(self, cond: Stmt, message: str, args: list[Stmt], kind: str = "assert") -> None:
        super().__init__(None)
        self.cond, self.message, self.args, self.kind = cond, message, args, kind


class OffloadedStmt(Stmt):
    """A task: ``serial``, ``range_for`` or ``struct_for``.

    A parallel task runs ``prologue`` once per chunk, ``body`` per index of
    [begin, end), then ``epilogue`` once per chunk. ``begin``/``end`` are statements of
    the kernel's serial code (evaluated before the launch) or ints.
    """

    operand_names = ("begin", "end", "extents", "starts")
    block_names = ("prologue", "row_head", "body", "epilogue")
    has_side_effect = True

    def __init__(self, kind: str, config: dict | None = None) -> None:
        super().__init__(None)
        self.kind = kind
        self.config = dict(config or {})
        self.begin: Stmt | int = 0
        self.end: Stmt | int = 0
        self.field: FieldRef | NodeRef | None = None  # a struct-for's, as its loop's
        self.loop: Stmt | None = None  # the for statement this task came from
        # struct-fors whose body may change the activity of the cells they visit: the
        # (start, bytes) of the tree's bitmasks, copied when the task starts, so the loop
        # visits the cells active at its start (Taichi's semantics)
        self.snapshot: tuple[int, int] | None = None
        # ndrange axes of the loop, as values available inside the task
        self.extents: list[Stmt] = []
        self.starts: list[Stmt] = []
        self.row_width: int | None = None  # a lowered struct-for's rows (StructForStmt)
        # a sparse struct-for's "is this cell active" if (passes/lower_sparse.py)
        self.cell_guard: IfStmt | None = None
        self.prologue = owned_block(self)
        self.row_head = owned_block(self)
        self.body = owned_block(self)
        self.epilogue = owned_block(self)
