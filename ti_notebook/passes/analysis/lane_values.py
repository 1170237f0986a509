"""The value an IR expression takes in each lane of one warp: for address analyses.

A lane's value is known exactly where it follows from constants and the lane's
iteration; a value read from memory or passed in at run time is not. Such a value is
usually the *same* in every lane (an argument, an inner serial loop's index, an extent
spilled by another task), so it only shifts a warp's addresses together: :class:`Lanes`
keeps a representative per lane plus ``shifted`` (the true values are the
representatives plus one unknown lane-uniform amount). A lane stride survives a shift;
only the alignment is unknown. A value that differs between lanes in a way known only
at run time (``x[idx[i]]``'s ``idx[i]``, ``ti.random()``) is *irregular*.

Integer division and remainder by a run-time value, or of a shifted value, are not
affine; there :class:`LaneEvaluator` assumes the unknown amounts are multiples of the
divisor (a run-time ndrange extent that a warp's 32 iterations do not cross) and marks
the result ``assumed``.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import i32
    >>> loop = ir.RangeForStmt(ir.ConstStmt(0, i32), ir.ConstStmt(64, i32))
    >>> i = ir.LoopIndexStmt(loop, 0, i32)
    >>> twice = ir.BinaryOpStmt("mul", ir.ConstStmt(2, i32), i, i32)
    >>> lanes = LaneEvaluator(lanes=4, bound={(loop.id, 0): Lanes.lane_index(4)})
    >>> lanes.value(twice).values, lanes.value(ir.ArgLoadStmt(0, i32)).shifted
    ((0, 2, 4, 6), True)
"""

from __future__ import annotations

import dataclasses
import operator

from ti_notebook.ir import nodes as ir

__all__ = ["LaneEvaluator", "Lanes", "local_stores"]


@dataclasses.dataclass(frozen=True)
class Lanes:
    """One value per lane: ``values`` (None: irregular), plus an unknown lane-uniform
    amount when ``shifted``; ``assumed``: it rests on the divisibility assumption."""

    values: tuple | None
    shifted: bool = False
    assumed: bool = False

    @classmethod
    def uniform(cls, value, count: int, shifted: bool = False) -> Lanes:
        """``value`` in all ``count`` lanes (``shifted``: known up to that amount)."""
        return cls((value,) * count, shifted)

    @classmethod
    def lane_index(cls, count: int, first: int = 0) -> Lanes:
        """``first + lane``: consecutive lanes, consecutive iterations."""
        return cls(tuple(range(first, first + count)))

    @classmethod
    def irregular(cls) -> Lanes:
        return cls(None)

    @property
    def is_irregular(self) -> bool:
        return self.values is None

    @property
    def is_uniform(self) -> bool:
        """The same in every lane (known or not)."""
        return self.values is not None and len(set(self.values)) <= 1

    @property
    def exact(self) -> bool:
        return self.values is not None and not self.shifted


_LINEAR = {"add": operator.add, "sub": operator.sub}
_EXACT_ONLY = {
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "shl": operator.lshift,
    "shr": operator.rshift,
    "bit_and": operator.and_,
    "bit_or": operator.or_,
    "bit_xor": operator.xor,
    "min": min,
    "max": max,
    "truediv": operator.truediv,
    "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b),
    "gt": lambda a, b: int(a > b),
    "ge": lambda a, b: int(a >= b),
    "eq": lambda a, b: int(a == b),
    "ne": lambda a, b: int(a != b),
    "logical_and": lambda a, b: int(bool(a) and bool(b)),
    "logical_or": lambda a, b: int(bool(a) or bool(b)),
}
# (x + S) op d, with S a multiple of d: the representative's result, shifted or not
_DIVIDING = {"floordiv": True, "shr": True, "mod": False, "bit_and": False}
_UNIFORM_READS = (ir.ArgLoadStmt, ir.ExternalShapeStmt, ir.RowStartStmt, ir.RowOffsetStmt)


class LaneEvaluator:
    """Per-lane values of IR statements for a warp of ``lanes`` lanes.

    ``bound`` gives the values of the loop indices the lanes differ in:
    ``(loop id, axis)`` for a ``LoopIndexStmt``, ``(loop id, "row_start")`` and
    ``(loop id, "row_offset")`` for a lowered struct-for's row. Other loops' indices
    are lane-uniform (the warp runs their iterations together). ``stores``: per
    ``AllocaStmt`` id, the values stored into it (see :func:`local_stores`).
    """

    def __init__(self, lanes: int, bound: dict, stores: dict | None = None) -> None:
        self.lanes = lanes
        self.bound = dict(bound)
        self.stores = stores or {}
        self._memo: dict[int, Lanes] = {}

    def value(self, stmt) -> Lanes:
        """The lanes' values of ``stmt`` (an int is a constant)."""
        if isinstance(stmt, int):
            return Lanes.uniform(stmt, self.lanes)
        if stmt.id not in self._memo:
            # a local updated from itself comes back here: take it as lane-uniform so far
            self._memo[stmt.id] = Lanes.uniform(0, self.lanes, shifted=True)
            self._memo[stmt.id] = self._evaluate(stmt)
        return self._memo[stmt.id]

    def _evaluate(self, s) -> Lanes:
        n = self.lanes
        if isinstance(s, ir.ConstStmt):
            return Lanes.uniform(s.value, n)
        if isinstance(s, ir.LoopIndexStmt):
            return self._loop_index(s)
        if isinstance(s, (ir.RowStartStmt, ir.RowOffsetStmt)):
            key = "row_start" if isinstance(s, ir.RowStartStmt) else "row_offset"
            if (s.loop.id, key) in self.bound:
                return self.bound[(s.loop.id, key)]
        if isinstance(s, _UNIFORM_READS):
            return Lanes.uniform(0, n, shifted=True)
        if isinstance(s, (ir.RootPtrStmt, ir.TempPtrStmt, ir.LocalArrayStmt)):
            return Lanes.uniform(0, n)  # addresses are relative to their base
        if isinstance(s, ir.PtrOffsetStmt):
            return self.combine("add", self.value(s.base), self.value(s.byte_offset))
        if isinstance(s, ir.ExternalPtrStmt):
            return self._ndarray_element(s)
        if isinstance(s, ir.BinaryOpStmt):
            return self.combine(s.op, self.value(s.lhs), self.value(s.rhs))
        if isinstance(s, ir.UnaryOpStmt):
            return self._unary(s.op, self.value(s.operand))
        if isinstance(s, ir.CastStmt):
            return self._cast(s)
        if isinstance(s, ir.SelectStmt):
            return self._select(s)
        if isinstance(s, ir.GlobalLoadStmt):
            # a lane-uniform address holds one value for the warp; another does not
            address = self.value(s.ptr)
            return Lanes.uniform(0, n, True) if address.is_uniform else Lanes.irregular()
        if isinstance(s, ir.LocalLoadStmt):
            return self._local(s.alloca)
        return Lanes.irregular()  # random numbers, clocks, anything new

    def _loop_index(self, s: ir.LoopIndexStmt) -> Lanes:
        if (s.loop.id, s.axis) in self.bound:
            return self.bound[(s.loop.id, s.axis)]
        # an inner loop: the warp is at one of its iterations; its first stands for them
        loop = s.loop
        first = loop.starts[s.axis] if getattr(loop, "extents", None) else getattr(loop, "begin", 0)
        start = self.value(first) if first is not None else None
        value = start.values[0] if start is not None and start.is_uniform else 0
        return Lanes.uniform(value, self.lanes, shifted=True)

    def _ndarray_element(self, s: ir.ExternalPtrStmt) -> Lanes:
        """Byte offset of ``arr[indices]``: row-major over the argument's run-time shape
        (``codegen/function.py``), so lane-uniform unknown extents."""
        linear = None
        for index in s.indices:
            value = self.value(index)
            if linear is not None:
                extent = Lanes.uniform(0, self.lanes, shifted=True)
                value = self.combine("add", self.combine("mul", linear, extent), value)
            linear = value
        if linear is None:
            return Lanes.uniform(0, self.lanes)
        return self.combine("mul", linear, Lanes.uniform(s.dtype.size, self.lanes))

    def _local(self, alloca) -> Lanes:
        values = [self.value(v) for v in self.stores.get(alloca.id, [])]
        if not values:
            return Lanes.uniform(0, self.lanes)  # never stored: its zero initial value
        if all(v == values[0] for v in values):
            return values[0]
        if all(v.is_uniform for v in values):
            return Lanes.uniform(0, self.lanes, shifted=True)
        return Lanes.irregular()

    def combine(self, op: str, a: Lanes, b: Lanes) -> Lanes:
        """``a op b`` (a ``BinaryOpStmt``'s op) lane by lane."""
        if a.is_irregular or b.is_irregular:
            return Lanes.irregular()
        assumed = a.assumed or b.assumed
        if op in _LINEAR:
            values = tuple(map(_LINEAR[op], a.values, b.values))
            return Lanes(values, a.shifted or b.shifted, assumed)
        if op not in _EXACT_ONLY:
            return Lanes.irregular()
        fn = _EXACT_ONLY[op]
        if a.exact and b.exact:
            try:
                return Lanes(tuple(map(fn, a.values, b.values)), False, assumed)
            except (ZeroDivisionError, ArithmeticError, TypeError, ValueError):
                return Lanes.irregular()
        if a.is_uniform and b.is_uniform:
            return Lanes.uniform(0, self.lanes, shifted=True)
        if op == "mul":  # (v + S) * c = v * c + S * c: a uniform known factor keeps it affine
            for shifted, factor in ((a, b), (b, a)):
                if shifted.shifted and factor.exact and factor.is_uniform:
                    values = tuple(v * factor.values[0] for v in shifted.values)
                    return Lanes(values, True, assumed)
            return Lanes.irregular()
        if op in _DIVIDING and b.is_uniform:
            if b.exact:  # the shift of a is taken as a multiple of b
                values = tuple(fn(v, b.values[0]) for v in a.values)
                return Lanes(values, _DIVIDING[op], True)
            # a run-time divisor: the warp is taken to stay within one of its rows
            if op == "floordiv":
                return Lanes(Lanes.uniform(0, self.lanes).values, True, True)
            if op == "mod":
                return Lanes(a.values, True, True)
        return Lanes.irregular()

    def _unary(self, op: str, a: Lanes) -> Lanes:
        if a.is_irregular:
            return a
        if op == "neg":
            return Lanes(tuple(-v for v in a.values), a.shifted, a.assumed)
        if a.is_uniform and a.shifted:
            return a
        if a.exact and op in ("abs", "bit_not", "logical_not"):
            fn = {"abs": abs, "bit_not": operator.invert, "logical_not": lambda v: int(not v)}
            return Lanes(tuple(fn[op](v) for v in a.values), False, a.assumed)
        return Lanes.irregular()

    def _cast(self, s: ir.CastStmt) -> Lanes:
        a = self.value(s.operand)
        if a.is_irregular or s.bitcast:
            return a if a.is_uniform else Lanes.irregular()
        if s.dtype.is_float:
            return a
        if a.shifted:
            return a if a.is_uniform or not s.operand.dtype.is_float else Lanes.irregular()
        try:
            return Lanes(tuple(int(v) for v in a.values), False, a.assumed)
        except (OverflowError, ValueError):  # inf or nan made an integer
            return Lanes.irregular()

    def _select(self, s: ir.SelectStmt) -> Lanes:
        cond, yes, no = (self.value(v) for v in (s.cond, s.true_value, s.false_value))
        if yes == no:
            return yes
        if not cond.exact or yes.is_irregular or no.is_irregular:
            return Lanes.irregular()
        if cond.is_uniform:
            return yes if cond.values[0] else no
        if yes.shifted != no.shifted:
            return Lanes.irregular()
        pairs = zip(cond.values, yes.values, no.values, strict=True)
        values = tuple(y if c else x for c, y, x in pairs)
        return Lanes(values, yes.shifted, yes.assumed or no.assumed)


def local_stores(block: ir.Block) -> dict[int, list]:
    """Per ``AllocaStmt`` id, every value stored into it in ``block`` (an atomic on a
    local counts as an unknown store).

        >>> from ti_notebook.ir.types import i32
        >>> b = ir.Block()
        >>> k = b.append(ir.AllocaStmt(i32, "k"))
        >>> one = b.append(ir.ConstStmt(1, i32))
        >>> _ = b.append(ir.LocalStoreStmt(k, one))
        >>> local_stores(b) == {k.id: [one]}
        True
    """
    stores: dict[int, list] = {}
    for stmt in block.walk():
        if isinstance(stmt, ir.LocalStoreStmt):
            stores.setdefault(stmt.alloca.id, []).append(stmt.value)
        elif isinstance(stmt, ir.AtomicOpStmt) and isinstance(stmt.dest, ir.AllocaStmt):
            stores.setdefault(stmt.dest.id, []).append(stmt)
    return stores
