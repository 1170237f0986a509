"""Bounds checks that cost almost nothing: prove what can be proven, check the rest.

Every field, ndarray and sparse-node access with indices (``x[i, j]``, ``arr[i]``,
``ti.is_active(blk, [i])``) ends in one of three states:

- **proven**: :mod:`~ti_notebook.passes.analysis.index_ranges` shows each index in
  ``[0, extent)`` (loop ranges against shapes, a struct-for's own cells, constant
  offsets, ``%``, ``&``, ``min``/``max``, ``if`` conditions): no check at all, and
  ``lower_access`` keeps its fast paths (linear addresses, streaming stores);
- **checked in place**: an ``AssertStmt(kind="bounds")`` just before the access, a
  compare and a branch that codegen marks unlikely, to a cold error path;
- **checked out of the loop**: when the access runs on every iteration of its loop and
  its indices are the loop's index plus values fixed in the loop, one check of the
  index's first and last values goes before the loop (guarded by "the loop runs"), or
  into a task's prologue (once per chunk). The loop itself stays check-free, so it still
  vectorises.

Checks of one line on ``base + constant`` indices (an unrolled 3x3x3 stencil) merge into
one check on the smallest and largest offsets. A failing check raises the error
``debug=True`` always gave: :class:`~ti_notebook.errors.TiIndexError` naming the kernel,
the line (with a caret), the index and the shape. ``ti.init(check_bounds=False)`` turns
all of this off (``debug=True`` turns it on). ``kernel.report["bounds"]`` counts what
happened:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, 8)
    >>> @ti.kernel
    ... def shift(n: ti.i32):
    ...     for i in x:
    ...         x[i] = x[(i + n) % 8]
    ...     x[n] = 0.0
    >>> shift(1)
    >>> {k: shift.report["bounds"][k] for k in ("proven", "checked")}
    {'proven': 2, 'checked': 1}
"""

from __future__ import annotations

import dataclasses

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import plan_arith as arith
from ti_notebook.passes.analysis.index_ranges import IndexRanges

_ESCAPES = (ir.BreakStmt, ir.ContinueStmt, ir.ReturnStmt)


@dataclasses.dataclass
class _Axis:
    lo: tuple | None  # linear form still to show >= 0 (None: proven)
    hi: tuple | None  # linear form still to show < the extent (None: proven)
    show: tuple  # linear form of the index, for the message


@dataclasses.dataclass
class _Check:
    access: ir.Stmt  # the first access covered: the error's line and caret
    what: str
    extents: list  # per axis an int, or an ndarray's (argument, axis)
    axes: list[_Axis]
    indices: list[ir.Stmt]  # the access's own indices (used while the check sits there)
    before: ir.Stmt | None  # the check goes in front of this statement...
    task: ir.OffloadedStmt | None = None  # ...or into this task's prologue
    guard: ir.Stmt | None = None  # the loop that must run for the check to apply
    hoisted: bool = False
    count: int = 1
    same_indices: bool = True  # every access covered uses ``indices`` (vector components)

    @property
    def block(self) -> ir.Block:
        return self.task.prologue if self.task is not None else self.before.parent


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not (options.check_bounds or options.debug):
        kernel.report["bounds"] = {"enabled": False}
        return False
    planner = _Planner(kernel)
    checks, proven = [], 0
    for stmt in list(kernel.block.walk()):
        target = access_extents(stmt)
        if target is None:
            continue
        check = planner.plan(stmt, *target)
        if check is None:
            proven += 1
        else:
            planner.hoist(check)
            checks.append(check)
    merged = planner.merge(checks)
    for check in merged:
        planner.emit(check)
    kernel.report["bounds"] = {
        "enabled": True,
        "proven": proven,
        "checked": len(checks),
        "hoisted": sum(c.hoisted for c in checks),
        "asserts": len(merged),
        "checks": [
            {
                "line": c.access.pos.lineno if c.access.pos else None,
                "what": c.what,
                "accesses": c.count,
                "hoisted": c.hoisted,
            }
            for c in merged
        ],
    }
    return bool(merged)


def access_extents(stmt: ir.Stmt):
    """(indices, extents, what) of an access with indices, else None; an extent is an int,
    or an ndarray's (argument, axis) (:meth:`IndexRanges.below` takes both)."""
    if isinstance(stmt, ir.GlobalPtrStmt) and stmt.indices:
        shape = list(stmt.field.layout().shape)
        return stmt.indices, shape, f"field '{stmt.field.name}'"
    if isinstance(stmt, ir.ExternalPtrStmt) and stmt.indices:
        extents = [(stmt.arg_index, axis) for axis in range(stmt.ndim)]
        return stmt.indices, extents, f"ndarray argument {stmt.arg_index}"
    if isinstance(stmt, ir.SNodeOpStmt) and stmt.indices:
        # another index would set or read a bit of a neighbouring cell, or past the tree
        return stmt.indices, list(stmt.index_shape), f"ti.{stmt.op} on {stmt.snode.name}"
    return None


class _Planner:
    """Decides every check before any IR changes (positions stay those analysed)."""

    def __init__(self, kernel: KernelIR) -> None:
        self.ranges = IndexRanges(kernel)
        self._escape_points: dict[int, list[int]] = {}

    # -- one access ----------------------------------------------------------------------
    def plan(self, access: ir.Stmt, indices, extents, what: str) -> _Check | None:
        ranges = self.ranges
        facts = ranges.facts(access)
        axes, needed = [], False
        for index, extent in zip(indices, extents, strict=True):
            form = ranges.linear(index, index=index.dtype.bits == 32)
            lo = None if ranges.at_least_zero(form, facts) else form
            hi = None if ranges.below(form, extent, facts) else form
            needed = needed or lo is not None or hi is not None
            axes.append(_Axis(lo, hi, form))
        if not needed:
            return None
        return _Check(access, what, list(extents), axes, list(indices), before=access)

    # -- out of loops ----------------------------------------------------------------------
    def hoist(self, check: _Check) -> None:
        """Moves ``check`` out of the loops it can leave exactly (see the module doc)."""
        while check.task is None and check.guard is None:
            block = check.before.parent
            owner = block.owner
            if isinstance(owner, ir.OffloadedStmt):
                if owner.kind == "serial" or block is not owner.body:
                    return
                loop, task = owner.loop, owner
            elif isinstance(owner, (ir.RangeForStmt, ir.StructForStmt)) and block is owner.body:
                loop, task = owner, None
            else:
                return
            if self._escapes(block, 0, self._index(check.before)):
                return
            if isinstance(loop, ir.StructForStmt) and loop.field.layout().is_sparse:
                return  # it may visit no cell at all
            guard = None if self.ranges.non_empty(loop) else loop
            if guard is not None and task is not None and not self._recomputable(guard):
                return  # the guard is recomputed in the task's prologue from the bounds
            axes = [self._moved(axis, loop, task) for axis in check.axes]
            if any(axis is None for axis in axes):
                return
            check.axes, check.hoisted, check.guard = axes, True, guard
            if task is not None:
                check.task, check.before = task, None
            else:
                check.before = loop

    def _recomputable(self, loop: ir.RangeForStmt) -> bool:
        return self.ranges.clonable(loop.begin) and self.ranges.clonable(loop.end)

    def _moved(self, axis: _Axis, loop: ir.Stmt, task) -> _Axis | None:
        """``axis`` with ``loop``'s index replaced by its first (lo) / last (hi) value;
        None when a value the check needs is not there before the loop."""
        show = self._move(axis.show, loop, task, 1)
        lo = self._move(axis.lo, loop, task, 0) if axis.lo else None
        hi = self._move(axis.hi, loop, task, 1) if axis.hi else None
        if show is None or (axis.lo and lo is None) or (axis.hi and hi is None):
            return None
        if lo is not None and self.ranges.at_least_zero(lo, {}):
            lo = None  # e.g. range(0, n): its first value is 0
        return _Axis(lo, hi, show)

    def _move(self, form, loop: ir.Stmt, task, which: int):
        sym, k = form
        if isinstance(sym, ir.LoopIndexStmt) and sym.loop is loop:
            ends = self.ranges.first_last(loop, sym.axis)
            if ends is None:
                return None
            sym, k = ends[which][0], ends[which][1] + k
        if sym is None or self._available(sym, loop, task) or self.ranges.clonable(sym):
            return sym, k
        return None

    def _available(self, sym: ir.Stmt, loop: ir.Stmt, task) -> bool:
        if task is not None:
            return self.ranges.where.get(sym.id, (None,))[0] is task.prologue
        return self.ranges.dominates(sym, loop)

    def _index(self, stmt: ir.Stmt) -> int:
        return self.ranges.where[stmt.id][1]

    def _escapes(self, block: ir.Block, start: int, stop: int) -> bool:
        """A break, continue or return in ``block.stmts[start:stop]`` (at any depth)."""
        if id(block) not in self._escape_points:
            self._escape_points[id(block)] = [
                k
                for k, s in enumerate(block.stmts)
                if isinstance(s, _ESCAPES) or any(isinstance(t, _ESCAPES) for t in s.walk_all())
            ]
        return any(start <= k < stop for k in self._escape_points[id(block)])

    # -- merging ---------------------------------------------------------------------------
    def merge(self, checks: list[_Check]) -> list[_Check]:
        """One check per run of same-line checks on the same bases at one place."""
        groups: dict[tuple, list[_Check]] = {}
        for check in checks:
            groups.setdefault(self._key(check), []).append(check)
        merged = []
        for group in groups.values():
            group.sort(key=self._where)
            run = group[0]
            for check in group[1:]:
                between = (self._where(run), self._where(check))
                if check.task is None and self._escapes(check.block, *between):
                    merged.append(run)
                    run = check
                else:
                    run = _combined(run, check)
            merged.append(run)
        merged.sort(key=lambda c: c.access.id)
        return merged

    def _where(self, check: _Check) -> int:
        return -1 if check.task is not None else self._index(check.before)

    @staticmethod
    def _key(check: _Check) -> tuple:
        def side(form):
            return "-" if form is None else (form[0].id if form[0] is not None else "c")

        line = check.access.pos.lineno if check.access.pos else None
        shape = tuple(check.extents)
        forms = tuple((side(a.lo), side(a.hi)) for a in check.axes)
        guard = check.guard.id if check.guard is not None else None
        # fields of one shape on one line share a check (a vector field's components,
        # ``a[i + 1] = b[i + 1]``): it names the one the line reaches first
        return id(check.block), guard, shape, line, forms

    # -- IR ----------------------------------------------------------------------------------
    def emit(self, check: _Check) -> None:
        if check.task is not None:
            block = check.task.prologue
            at = _At(block, _prologue_slot(block), check.access.pos)
        else:
            block = check.before.parent
            at = _At(block, block.stmts.index(check.before), check.access.pos)
        emit: arith.Emitter = at
        if check.guard is not None:
            begin = self._value(at, check.guard.begin, check)
            end = self._value(at, check.guard.end, check)
            runs = at(ir.BinaryOpStmt("lt", begin, end, types.i32))
            emit = at.within(at(ir.IfStmt(runs)).true_block)
        exact = check.same_indices and not check.hoisted
        conds, shown, extents = [], [], []
        for k, axis in enumerate(check.axes):
            extent = self._extent(emit, check.extents[k])
            extents.append(extent)
            if exact:  # the access's own index: the message shows exactly what it used
                index = emit(ir.CastStmt(check.indices[k], types.i64))
                lo = index if axis.lo else None
                hi = index if axis.hi else None
                show = index
            else:
                lo = self._form(emit, axis.lo, check) if axis.lo else None
                hi = self._form(emit, axis.hi, check) if axis.hi else None
                show = self._form(emit, axis.show, check)
            if lo is not None:
                conds.append(emit(ir.BinaryOpStmt("ge", lo, emit.const(0), types.i32)))
            if hi is not None:
                conds.append(emit(ir.BinaryOpStmt("lt", hi, extent, types.i32)))
            if lo is not None and hi is not None and lo is not hi:
                low = emit(ir.BinaryOpStmt("lt", lo, emit.const(0), types.i32))
                show = emit(ir.SelectStmt(low, lo, hi, types.i64))
            elif lo is not None or hi is not None:
                show = lo if lo is not None else hi
            shown.append(show)
        ok = conds[0]
        for cond in conds[1:]:
            ok = emit(ir.BinaryOpStmt("logical_and", ok, cond, types.i32))
        message = f"index out of range for {check.what}"
        origin = _origin(check.access)
        if origin:  # offset=: the message shows the user's indices and their range
            pairs = zip(shown, origin, strict=True)
            shown = [emit.op("add", s, emit.const(o)) if o else s for s, o in pairs]
            spans = zip(origin, check.extents, strict=True)
            message += ", whose indices are " + " x ".join(f"[{o}, {o + n})" for o, n in spans)
            emit(ir.AssertStmt(ok, message, [*shown, *extents], kind="bounds_offset"))
            return
        emit(ir.AssertStmt(ok, message, [*shown, *extents], kind="bounds"))

    def _extent(self, emit: arith.Emitter, extent) -> ir.Stmt:
        if isinstance(extent, int):
            return emit.const(extent)
        shape = emit(ir.ExternalShapeStmt(extent[0], extent[1], types.i32))
        return emit(ir.CastStmt(shape, types.i64))

    def _form(self, emit: arith.Emitter, form, check: _Check) -> ir.Stmt:
        """``sym + k`` as an i64 statement at the check's place (no wrap-around)."""
        sym, k = form
        if sym is None:
            return emit.const(k)
        value = self._value(emit, sym, check)
        if value.dtype is not types.i64:
            value = emit(ir.CastStmt(value, types.i64))
        return value if k == 0 else emit.op("add", value, emit.const(k))

    def _value(self, emit: arith.Emitter, stmt: ir.Stmt, check: _Check) -> ir.Stmt:
        """``stmt`` itself where it reaches the check, else a recomputed copy."""
        stmt = self.ranges.resolve(stmt)
        if check.task is not None:
            if self.ranges.where.get(stmt.id, (None,))[0] is check.task.prologue:
                return stmt
        elif self.ranges.dominates(stmt, check.before):
            return stmt
        return _clone(emit, stmt, self.ranges)


def _origin(access: ir.Stmt) -> tuple[int, ...]:
    """The offset a field was declared with (``offset=``), empty for none: its accesses
    hold positions (``frontend/offset_indices.py``), the user wrote position + offset."""
    if isinstance(access, ir.GlobalPtrStmt):
        origin = tuple(access.field.layout().index_offset)
        return origin if any(origin) else ()
    return ()


def _combined(a: _Check, b: _Check) -> _Check:
    axes = []
    for x, y in zip(a.axes, b.axes, strict=True):
        lo = (x.lo[0], min(x.lo[1], y.lo[1])) if x.lo else None
        hi = (x.hi[0], max(x.hi[1], y.hi[1])) if x.hi else None
        axes.append(_Axis(lo, hi, x.show))
    same = all(p is q for p, q in zip(a.indices, b.indices, strict=True))
    return dataclasses.replace(
        a,
        axes=axes,
        hoisted=a.hoisted or b.hoisted,
        count=a.count + b.count,
        same_indices=a.same_indices and b.same_indices and same,
    )


def _clone(emit: arith.Emitter, stmt: ir.Stmt, ranges: IndexRanges) -> ir.Stmt:
    stmt = ranges.resolve(stmt)
    if isinstance(stmt, ir.ConstStmt):
        return emit(ir.ConstStmt(stmt.value, stmt.dtype))
    if isinstance(stmt, ir.ArgLoadStmt):
        return emit(ir.ArgLoadStmt(stmt.arg_index, stmt.dtype))
    if isinstance(stmt, ir.ExternalShapeStmt):
        return emit(ir.ExternalShapeStmt(stmt.arg_index, stmt.axis, stmt.dtype))
    if isinstance(stmt, ir.CastStmt):
        return emit(ir.CastStmt(_clone(emit, stmt.operand, ranges), stmt.dtype))
    lhs, rhs = _clone(emit, stmt.lhs, ranges), _clone(emit, stmt.rhs, ranges)
    return emit(ir.BinaryOpStmt(stmt.op, lhs, rhs, stmt.dtype))


def _prologue_slot(prologue: ir.Block) -> int:
    """Before the prologue's allocations (a failed check then leaks nothing), after the
    values it imports."""
    for k, stmt in enumerate(prologue.stmts):
        if isinstance(stmt, ir.ScratchAllocStmt):
            return k
    return len(prologue.stmts)


class _At(arith.Emitter):
    """Inserts statements into ``block`` at ``index``, one after another."""

    def __init__(self, block: ir.Block, index: int, pos) -> None:
        self.block, self.index, self.pos = block, index, pos

    def place(self, stmt: ir.Stmt) -> ir.Stmt:
        self.block.insert(self.index, stmt)
        self.index += 1
        return stmt
