"""What values an index can take: the facts ``prove_bounds`` reasons with.

Two views of an integer statement, both conservative (unknown means "any value of the
statement's type"):

- an *interval* ``(lo, hi)`` of the values it can hold, from constants, loop ranges
  (range, ndrange with starts, struct-fors over a field's or node's cells) and
  arithmetic: ``+ - *``, ``//`` and ``%`` by positive constants, ``&`` with a
  non-negative mask, shifts, ``min``/``max``, selects and casts that keep the value.
  An operation that could wrap around its type gives the whole type.
- a *linear form* ``(sym, k)``: the value is ``sym + k`` for one opaque statement
  ``sym`` (``None``: the constant ``k``). Checks on ``base + 0``, ``base + 1``... share
  ``sym`` and can merge; a loop index as ``sym`` can be replaced by the loop's first or
  last value (symbolically too: ``range(arr.shape[0])`` against ``arr``'s shape).

A local written once, before every read of it, stands for the value written (``ti.func``
arguments, ``base = ...``), so ``x[p]`` inside a ``ti.func`` is as provable as ``x[i]``
in the loop that calls it. The conditions of enclosing ``if`` statements narrow what a
statement holds there (``if i > 0: a[i - 1]``).

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.types import i32
    >>> k = KernelIR("f", ir.Block())
    >>> loop = k.block.append(ir.RangeForStmt(ir.ConstStmt(0, i32), ir.ConstStmt(8, i32)))
    >>> i = loop.body.append(ir.LoopIndexStmt(loop, 0, i32))
    >>> four = loop.body.append(ir.ConstStmt(4, i32))
    >>> j = loop.body.append(ir.BinaryOpStmt("mod", i, four, i32))
    >>> r = IndexRanges(k)
    >>> r.interval(i), r.interval(j), r.linear(j) == (j, 0)
    ((0, 7), (0, 3), True)
"""

from __future__ import annotations

import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir.kernel_ir import KernelIR

_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or"}
_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}
_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
# Pure integer operations a check may recompute elsewhere (before a loop, in a prologue).
_CLONABLE_OPS = {"add", "sub", "mul", "min", "max"}
# The largest offset an index's linear form carries modulo 2**32 (see ``linear``).
_SMALL = 1 << 16


def _is_int(stmt: ir.Stmt) -> bool:
    return stmt.dtype is not None and not stmt.dtype.is_float


def _wide(stmt: ir.Stmt) -> bool:
    return _is_int(stmt) and stmt.dtype.bits >= 32 and not getattr(stmt, "bitcast", False)


def positions(root: ir.Block) -> dict[int, tuple[ir.Block, int]]:
    """Statement id → (its block, its index there), for every statement under ``root``."""
    where: dict[int, tuple[ir.Block, int]] = {}
    stack = [root]
    while stack:
        block = stack.pop()
        for k, stmt in enumerate(block.stmts):
            where[stmt.id] = (block, k)
            stack.extend(stmt.blocks())
    return where


class IndexRanges:
    """Intervals and linear forms of a kernel's integer statements (computed lazily).

    Built once per pass run, before the pass changes the IR: positions are those of the
    IR as it was then.
    """

    def __init__(self, kernel: KernelIR) -> None:
        self.where = positions(kernel.block)
        self._stores: dict[int, list[ir.LocalStoreStmt]] = {}
        self._mutated: set[int] = set()  # locals changed by an atomic (``a += 1``)
        for stmt in kernel.block.walk():
            if isinstance(stmt, ir.LocalStoreStmt):
                self._stores.setdefault(stmt.alloca.id, []).append(stmt)
            elif isinstance(stmt, ir.AtomicOpStmt):
                self._mutated.add(stmt.dest.id)
        self._intervals: dict[int, tuple[int, int]] = {}
        self._busy: set[int] = set()

    # -- where things are -----------------------------------------------------------------
    def dominates(self, first: ir.Stmt, use: ir.Stmt) -> bool:
        """True when ``first`` runs before ``use`` on every path to it, in the same
        iteration of every loop around ``use`` (so its value is there to read)."""
        if first.id not in self.where:
            return False
        home, index = self.where[first.id]
        node = use
        while node.id in self.where:
            block, k = self.where[node.id]
            if block is home:
                return index < k
            owner = block.owner
            if owner is None:
                return False
            if isinstance(owner, ir.OffloadedStmt) and home is owner.prologue:
                return block is not owner.prologue  # the prologue runs before body/epilogue
            node = owner
        return False

    def resolve(self, stmt: ir.Stmt) -> ir.Stmt:
        """The statement whose value ``stmt`` is: a read of a local written exactly once,
        before it, is the value written."""
        while isinstance(stmt, ir.LocalLoadStmt) and isinstance(stmt.alloca, ir.AllocaStmt):
            stores = self._stores.get(stmt.alloca.id, [])
            if stmt.alloca.id in self._mutated or len(stores) != 1:
                break
            if not self.dominates(stores[0], stmt):
                break
            stmt = stores[0].value
        return stmt

    def clonable(self, stmt: ir.Stmt, depth: int = 0) -> bool:
        """True when ``stmt`` is pure arithmetic on constants, arguments and ndarray shapes:
        it can be recomputed anywhere in the kernel (before a loop, in a task's prologue)."""
        stmt = self.resolve(stmt)
        if isinstance(stmt, (ir.ConstStmt, ir.ArgLoadStmt, ir.ExternalShapeStmt)):
            return _is_int(stmt)
        if depth > 8 or not _is_int(stmt):
            return False
        if isinstance(stmt, ir.CastStmt) and not stmt.bitcast and _is_int(stmt.operand):
            return self.clonable(stmt.operand, depth + 1)
        if isinstance(stmt, ir.BinaryOpStmt) and stmt.op in _CLONABLE_OPS:
            return self.clonable(stmt.lhs, depth + 1) and self.clonable(stmt.rhs, depth + 1)
        return False

    # -- linear forms --------------------------------------------------------------------
    def linear(self, stmt: ir.Stmt, index: bool = False) -> tuple[ir.Stmt | None, int]:
        """``(sym, k)`` with ``stmt == sym + k`` exactly (no wrap-around).

        ``index=True`` (an i32 index, checked in i64): ``stmt == sym + k`` modulo 2**32,
        for a small ``k``. Both sides agree wherever ``sym + k`` is a valid index
        (``[0, extent)`` with ``extent <= 2**31``), which is all a check asks; it lets
        ``base + 1`` with ``base`` any i32 (a float cast) share ``base`` with ``base + 2``.
        """
        stmt = self.resolve(stmt)
        if isinstance(stmt, ir.ConstStmt) and _is_int(stmt):
            return None, stmt.value
        if isinstance(stmt, ir.BinaryOpStmt) and stmt.op in ("add", "sub"):
            form = self._linear_sum(stmt, index)
            if form is not None:
                return form
        if isinstance(stmt, ir.CastStmt):
            # modulo 2**32 survives any cast between integer types of 32 bits or more
            passes = _wide(stmt) and _wide(stmt.operand) if index else self._keeps_value(stmt)
            if passes:
                return self.linear(stmt.operand, index)
        return stmt, 0

    def _linear_sum(self, stmt: ir.BinaryOpStmt, index: bool):
        if not (_wide(stmt) if index else self._exact(stmt)):
            return None
        sym_a, k_a = self.linear(stmt.lhs, index)
        sym_b, k_b = self.linear(stmt.rhs, index)
        if stmt.op == "add" and (sym_a is None or sym_b is None):
            sym, k = sym_a or sym_b, k_a + k_b
        elif stmt.op == "sub" and sym_b is None:
            sym, k = sym_a, k_a - k_b
        else:
            return None
        return (sym, k) if not index or abs(k) <= _SMALL else None

    def _exact(self, stmt: ir.BinaryOpStmt) -> bool:
        """The operation cannot wrap around: its true result fits its type."""
        if not _is_int(stmt):
            return False
        low, high = stmt.dtype.int_range()
        lo, hi = self._arith(stmt.op, self.interval(stmt.lhs), self.interval(stmt.rhs))
        return low <= lo and hi <= high

    def _keeps_value(self, cast: ir.CastStmt) -> bool:
        if cast.bitcast or not _is_int(cast) or not _is_int(cast.operand):
            return False
        low, high = cast.dtype.int_range()
        lo, hi = self.interval(cast.operand)
        return low <= lo and hi <= high

    # -- intervals -----------------------------------------------------------------------
    def interval(self, stmt: ir.Stmt) -> tuple[int, int]:
        """``(lo, hi)``: every value an integer ``stmt`` can hold."""
        stmt = self.resolve(stmt)
        if stmt.id in self._intervals:
            return self._intervals[stmt.id]
        whole = stmt.dtype.int_range()
        if stmt.id in self._busy:  # a local that feeds itself (a counter): anything
            return whole
        self._busy.add(stmt.id)
        try:
            lo, hi = self._compute(stmt, whole)
        finally:
            self._busy.discard(stmt.id)
        found = (lo, hi) if whole[0] <= lo and hi <= whole[1] else whole
        self._intervals[stmt.id] = found
        return found

    def _compute(self, stmt: ir.Stmt, whole: tuple[int, int]) -> tuple[int, int]:
        if isinstance(stmt, ir.ConstStmt):
            return stmt.value, stmt.value
        if isinstance(stmt, ir.LoopIndexStmt):
            return self.axis_interval(stmt.loop, stmt.axis) or whole
        if isinstance(stmt, ir.ExternalShapeStmt):
            return 0, whole[1]
        if isinstance(stmt, ir.BinaryOpStmt):
            if stmt.op in _COMPARE:
                return 0, 1
            if not (_is_int(stmt.lhs) and _is_int(stmt.rhs)):
                return whole
            return self._arith(stmt.op, self.interval(stmt.lhs), self.interval(stmt.rhs), whole)
        if isinstance(stmt, ir.UnaryOpStmt) and _is_int(stmt.operand):
            lo, hi = self.interval(stmt.operand)
            if stmt.op == "neg":
                return -hi, -lo
            if stmt.op == "abs":
                return (lo, hi) if lo >= 0 else (0, max(-lo, hi))
            return whole
        if isinstance(stmt, ir.CastStmt):
            return self.interval(stmt.operand) if self._keeps_value(stmt) else whole
        if isinstance(stmt, ir.SelectStmt):
            a, b = self.interval(stmt.true_value), self.interval(stmt.false_value)
            return min(a[0], b[0]), max(a[1], b[1])
        if isinstance(stmt, ir.LocalLoadStmt) and isinstance(stmt.alloca, ir.AllocaStmt):
            stores = self._stores.get(stmt.alloca.id, [])
            if stmt.alloca.id in self._mutated or not stores:
                return whole
            found = [self.interval(s.value) for s in stores]
            return min(f[0] for f in found), max(f[1] for f in found)
        return whole

    @staticmethod
    def _arith(op: str, a, b, whole=(-math.inf, math.inf)) -> tuple:
        (a0, a1), (b0, b1) = a, b
        if op == "add":
            return a0 + b0, a1 + b1
        if op == "sub":
            return a0 - b1, a1 - b0
        if op == "mul":
            products = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
            return min(products), max(products)
        if op == "min":
            return min(a0, b0), min(a1, b1)
        if op == "max":
            return max(a0, b0), max(a1, b1)
        if op == "floordiv" and b0 > 0:  # Python's floor division, as the codegen does
            return min(a0 // b0, a0 // b1), max(a1 // b0, a1 // b1)
        if op == "mod" and b0 > 0:  # Python's modulo: the divisor's sign
            return (a0, a1) if a0 >= 0 and a1 < b0 else (0, b1 - 1)
        if op == "bit_and":
            masks = [hi for lo, hi in (a, b) if lo >= 0]
            return (0, min(masks)) if masks else whole
        if op in ("bit_or", "bit_xor") and a0 >= 0 and b0 >= 0:
            return 0, (1 << max(a1, b1).bit_length()) - 1
        if op == "shr" and b0 == b1 and 0 <= b0 < 64:
            return a0 >> b0, a1 >> b0
        if op == "shl" and b0 == b1 and 0 <= b0 < 64:
            return a0 << b0, a1 << b0
        return whole

    # -- loops ---------------------------------------------------------------------------
    def axis_interval(self, loop: ir.Stmt, axis: int) -> tuple[int, int] | None:
        """The values index ``axis`` of ``loop`` takes inside its body."""
        if isinstance(loop, ir.StructForStmt):
            # the loop's own cells: the field's (or node's) index space, whatever the
            # blocks and sparse levels under it
            return 0, loop.field.shape[axis] - 1
        if not isinstance(loop, ir.RangeForStmt):
            return None
        begin, end = self.interval(loop.begin), self.interval(loop.end)
        if not loop.extents:
            return begin[0], end[1] - 1
        if begin[0] < 0:
            return None
        start = self.interval(loop.starts[axis])
        extents = [self.interval(e) for e in loop.extents]
        if axis > 0:  # (flat // inner) % extent: below the extent
            return start[0], start[1] + extents[axis][1] - 1
        inner_lo = math.prod(max(lo, 1) for lo, _ in extents[1:])
        inner_hi = math.prod(hi for _, hi in extents[1:])
        return start[0] + begin[0] // max(inner_hi, 1), start[1] + (end[1] - 1) // inner_lo

    def first_last(self, loop: ir.Stmt, axis: int):
        """(first, last) values of index ``axis`` of ``loop`` as linear forms over
        statements that exist before the loop; None when they are not linear."""
        if isinstance(loop, ir.StructForStmt):
            return (None, 0), (None, loop.field.shape[axis] - 1)
        if not isinstance(loop, ir.RangeForStmt):
            return None
        if not loop.extents:
            sym, k = self.linear(loop.end)
            return self.linear(loop.begin), (sym, k - 1)
        if axis == 0 and not self._is_product(loop.end, loop.extents):
            return None
        start = self.linear(loop.starts[axis])
        extent = self.linear(_drop_clamp(loop.extents[axis]))
        if start[0] is not None and extent[0] is not None:
            return None
        return start, (start[0] or extent[0], start[1] + extent[1] - 1)

    def _is_product(self, total: ir.Stmt, extents: list) -> bool:
        """``total`` is ``extents[0] * extents[1] * ...`` (the frontend's ndrange count),
        so the outermost axis stays below its extent."""
        for extent in reversed(extents[1:]):
            total = self.resolve(total)
            if not (isinstance(total, ir.BinaryOpStmt) and total.op == "mul"):
                return False
            if total.rhs is not extent:
                return False
            total = total.lhs
        return total is extents[0]

    def non_empty(self, loop: ir.Stmt) -> bool:
        """True when ``loop`` provably runs its body at least once."""
        if isinstance(loop, ir.StructForStmt):
            return not loop.field.layout().is_sparse
        if isinstance(loop, ir.RangeForStmt):
            return self.interval(loop.begin)[1] < self.interval(loop.end)[0]
        return False

    # -- what an if says ---------------------------------------------------------------
    def facts(self, use: ir.Stmt) -> dict[int, tuple[int, int]]:
        """sym id → the interval enclosing ``if`` conditions leave it at ``use``."""
        found: dict[int, tuple[int, int]] = {}
        node = use
        while node.id in self.where:
            block = self.where[node.id][0]
            owner = block.owner
            if owner is None:
                break
            if isinstance(owner, ir.IfStmt):
                self._assume(owner.cond, block is owner.true_block, found)
            node = owner
        return found

    def _assume(self, cond: ir.Stmt, holds: bool, found: dict) -> None:
        cond = self.resolve(cond)
        if not isinstance(cond, ir.BinaryOpStmt):
            return
        if cond.op == ("logical_and" if holds else "logical_or"):
            self._assume(cond.lhs, holds, found)
            self._assume(cond.rhs, holds, found)
            return
        if cond.op not in _NEGATED or not cond.lhs.dtype.is_signed or cond.lhs.dtype.is_float:
            return
        op = cond.op if holds else _NEGATED[cond.op]
        (sym, k), (other, c) = self.linear(cond.lhs), self.linear(cond.rhs)
        if sym is None and other is not None:
            (sym, k), (other, c), op = (other, c), (sym, k), _MIRRORED[op]
        if sym is None or other is not None:
            return
        limit = c - k  # sym <op> limit
        lo, hi = found.get(sym.id, self.interval(sym))
        if op in ("lt", "le"):
            hi = min(hi, limit - 1 if op == "lt" else limit)
        else:
            lo = max(lo, limit + 1 if op == "gt" else limit)
        found[sym.id] = lo, hi

    # -- proofs --------------------------------------------------------------------------
    def at_least_zero(self, form, facts: dict) -> bool:
        sym, k = form
        if sym is None:
            return k >= 0
        return facts.get(sym.id, self.interval(sym))[0] + k >= 0

    def below(self, form, extent, facts: dict) -> bool:
        """``form < extent``; ``extent`` an int, or an ndarray's (argument, axis)."""
        sym, k = form
        if isinstance(extent, int):
            if sym is None:
                return k < extent
            return facts.get(sym.id, self.interval(sym))[1] + k < extent
        for _ in range(4):  # i < arr.shape[0] in range(arr.shape[0]), via the loop's end
            if sym is None:
                return False
            shape = (sym.arg_index, sym.axis) if isinstance(sym, ir.ExternalShapeStmt) else None
            if shape == extent and k <= -1:
                return True
            if not isinstance(sym, ir.LoopIndexStmt):
                return False
            ends = self.first_last(sym.loop, sym.axis)
            if ends is None:
                return False
            sym, k = ends[1][0], ends[1][1] + k
        return False


def _drop_clamp(extent: ir.Stmt) -> ir.Stmt:
    """An ndrange extent is ``max(stop - start, 0)``; inside the body the loop runs, so
    the extent is at least 1 and the clamp is the plain difference."""
    clamp = isinstance(extent, ir.BinaryOpStmt) and extent.op == "max"
    if clamp and isinstance(extent.rhs, ir.ConstStmt) and extent.rhs.value == 0:
        return extent.lhs
    return extent
