"""Keep a global element that a serial loop reads and writes in a local across the loop.

``for i in range(n): for j in range(n): y[i] += A[i, j] * x[j]`` loads and stores
``y[i]`` on every ``j``: LLVM cannot keep it in a register, because every field lives in
one root buffer and it cannot prove the store to ``y`` leaves ``A`` and ``x`` alone.
This pass can: two fields never share a byte. When a serial loop inside a task accesses
one element of a field at indices the loop does not change, and touches that field
nowhere else, the element goes into a local before the loop and back after it (Taichi's
``cache_loop_invariant_global_vars``):

    for j in range(m):              acc = y[i]
        y[i] += A[i, j] * x[j]  →   for j in range(m): acc = acc + A[i, j] * x[j]
                                    y[i] = acc

When it applies:

- every access to the field (an ndarray: every ndarray of its dtype and rank, which may
  be the same NumPy array) inside the loop is a plain load or store of that one element:
  no atomic (another iteration may be adding to it), no other index (``y[j]`` may be
  ``y[i]``), no SNode operation, no ``ti.get_addr``; the field is dense (storing a sparse
  field's element activates its cell);
- if the loop stores it, each parallel iteration owns the element (see
  :mod:`~ti_notebook.passes.demote_atomics`) or the task is serial: writing the element
  back when the loop did not change it must not undo another thread's write;
- reading the element before the loop must be safe: its indices are proven inside the
  field's shape, or the loop's first iteration reads or writes it unconditionally (then
  the load and store run only when the loop runs at least once).

``ti.init(advanced_optimization=False)`` turns it off.
"""

from __future__ import annotations

import copy

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform, types
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.analysis.index_ranges import IndexRanges
from ti_notebook.passes.demote_atomics import memory_key, owned_memory

_POINTERS = (ir.GlobalPtrStmt, ir.ExternalPtrStmt)
_LOOPS = (ir.RangeForStmt, ir.WhileStmt, ir.StructForStmt)
# values an index may be computed from inside the loop and still be recomputed before it
_PURE = (ir.ConstStmt, ir.BinaryOpStmt, ir.UnaryOpStmt, ir.CastStmt, ir.SelectStmt)
_MAY_TRAP = {"floordiv", "mod", "truediv"}  # by zero; fine by a non-zero constant
_ACCESSES = (ir.GlobalLoadStmt, ir.GlobalStoreStmt)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.advanced_optimization:
        return False
    promoted = []
    ranges: list[IndexRanges] = []  # built once, when the first proof needs it
    for task in kernel.tasks():
        serial = task.kind == "serial" or bool(task.config.get("serialize"))
        owned = None if serial else owned_memory(task)
        loops = [s for s in task.body.walk() if isinstance(s, _LOOPS)]
        for loop in reversed(loops):  # inner loops first: a value moves out step by step
            if isinstance(loop, ir.StructForStmt) or getattr(loop, "block_role", None):
                continue
            # every group decided on the IR as it is, then all promoted: promoting one
            # element changes nothing another's decision reads (its own pointers and
            # indices), and the ranges are then built once per loop, not per element
            groups, users = _invariant_locations(loop)
            facts = _LoopFacts(loop, users)
            chosen = []
            for group in groups:
                how = _how_to_hoist(kernel, facts, group, owned, ranges)
                if how is not None:
                    chosen.append((group, how))
            if chosen:
                _promote(loop, chosen)
                promoted.extend(_name(group[0]) for group, _ in chosen)
                ranges.clear()  # the IR changed: a later proof starts afresh
    kernel.report["promoted"].extend(promoted)
    return bool(promoted)


def _name(ptr: ir.Stmt) -> str:
    return ptr.field.name if isinstance(ptr, ir.GlobalPtrStmt) else f"arg{ptr.arg_index}"


def _same_value(a: ir.Stmt, b: ir.Stmt) -> bool:
    """``a`` and ``b`` surely hold the same value: one statement, or the same pure
    computation of the same values (``y[i + 8]`` read and written: two ``i + 8``)."""
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, _PURE) or a.dtype != b.dtype:
        return False
    if isinstance(a, ir.ConstStmt):
        return a.value == b.value
    same_kind = all(getattr(a, k, None) == getattr(b, k, None) for k in ("op", "bitcast"))
    x, y = a.operands(), b.operands()
    return same_kind and len(x) == len(y) and all(map(_same_value, x, y))


def _invariant(value: ir.Stmt, loop: ir.Stmt) -> bool:
    """``value`` is the same on every iteration of ``loop`` and can be computed before it."""
    if not _inside(value, loop):
        return True
    if not isinstance(value, _PURE):
        return False
    if getattr(value, "op", None) in _MAY_TRAP:
        divisor = value.rhs
        if not (isinstance(divisor, ir.ConstStmt) and divisor.value != 0):
            return False
    return all(_invariant(operand, loop) for operand in value.operands())


def _computed_before(value: ir.Stmt, loop: ir.Stmt, anchor: ir.Stmt, copies: dict) -> ir.Stmt:
    """``value`` itself, or a copy of its computation inserted before ``anchor``."""
    if not _inside(value, loop):
        return value
    if value.id not in copies:
        clone = copy.copy(value)
        clone.id, clone.parent = ir.Stmt().id, None
        for operand in value.operands():
            clone.replace_operand(operand, _computed_before(operand, loop, anchor, copies))
        copies[value.id] = transform.insert_before(anchor, clone)
    return copies[value.id]


def _same_element(a: ir.Stmt, b: ir.Stmt) -> bool:
    if isinstance(a, ir.ExternalPtrStmt) != isinstance(b, ir.ExternalPtrStmt):
        return False
    if isinstance(a, ir.ExternalPtrStmt) and a.arg_index != b.arg_index:
        return False
    return len(a.indices) == len(b.indices) and all(
        _same_value(x, y) for x, y in zip(a.indices, b.indices, strict=True)
    )


def _inside(stmt: ir.Stmt, loop: ir.Stmt) -> bool:
    block = stmt.parent
    while block is not None:
        owner = block.owner
        if owner is loop:
            return True
        block = owner.parent if owner is not None else None
    return False


def _invariant_locations(loop: ir.Stmt) -> tuple[list[list[ir.Stmt]], dict]:
    """Groups of pointers in ``loop`` to one loop-invariant element, which are all the
    loop's accesses to that element's field and are only loaded from or stored to; and
    pointer id -> the statements in the loop reading it."""
    by_key: dict[object, list[ir.Stmt]] = {}
    users: dict[int, list[ir.Stmt]] = {}
    opaque = False
    for stmt in loop.walk_all():
        if isinstance(stmt, _POINTERS):
            by_key.setdefault(memory_key(stmt), []).append(stmt)
        elif isinstance(stmt, (ir.SNodeOpStmt, ir.MemsetZeroStmt)):
            opaque = True  # may deactivate and zero any cell
        for operand in stmt.operands():
            if isinstance(operand, _POINTERS):
                users.setdefault(operand.id, []).append(stmt)
    if opaque:
        return [], users
    groups = []
    for key, pointers in by_key.items():
        first = pointers[0]
        if isinstance(key, ir.FieldRef) and not _dense(key):
            continue
        if getattr(first, "private", None) is not None:
            continue
        if not all(_invariant(index, loop) for index in first.indices):
            continue
        if not all(_same_element(first, p) for p in pointers):
            continue
        if all(_plain_use(u, p) for p in pointers for u in users.get(p.id, [])):
            groups.append(pointers)
    return groups, users


def _plain_use(user: ir.Stmt, ptr: ir.Stmt) -> bool:
    if isinstance(user, ir.GlobalLoadStmt):
        return True
    return isinstance(user, ir.GlobalStoreStmt) and user.ptr is ptr and user.value is not ptr


def _dense(field: ir.FieldRef) -> bool:
    return all(node.kind in ("dense", "root") for node in field.path)


class _LoopFacts:
    """What the decisions read about one loop, found once for all its groups (a walk of
    the loop per group would make a long loop body quadratic)."""

    def __init__(self, loop: ir.Stmt, users: dict) -> None:
        self.loop, self.users = loop, users
        self._exits: bool | None = None
        self._direct: set[int] | None = None

    def exits_early(self) -> bool:
        """A break, continue or return leaves an iteration of the loop early."""
        if self._exits is None:
            self._exits = any(
                isinstance(stmt, ir.ReturnStmt)
                or (
                    isinstance(stmt, (ir.BreakStmt, ir.ContinueStmt))
                    and transform.enclosing(stmt, _LOOPS) is self.loop
                )
                for stmt in self.loop.walk_all()
            )
        return self._exits

    def direct(self) -> set[int]:
        """Pointers loaded from or stored to in the loop's own block."""
        if self._direct is None:
            self._direct = {
                s.ptr.id
                for s in self.loop.body.stmts
                if isinstance(s, (ir.GlobalLoadStmt, ir.GlobalStoreStmt))
            }
        return self._direct


def _how_to_hoist(kernel, facts: _LoopFacts, group, owned, ranges) -> str | None:
    """ "free" (load before the loop unconditionally), "guarded" (only when the loop runs
    at least once) or None (leave it)."""
    loop = facts.loop
    uses = [u for p in group for u in facts.users.get(p.id, ())]
    if not uses:  # a pointer left over by another pass: nothing to keep
        return None
    stores = any(isinstance(u, ir.GlobalStoreStmt) for u in uses)
    key = memory_key(group[0])
    if stores and owned is not None and key not in owned:
        return None
    if isinstance(group[0], ir.GlobalPtrStmt) and _in_bounds(kernel, group[0], ranges):
        return "free"
    if isinstance(loop, ir.RangeForStmt) and _reached_first(facts, group):
        return "guarded"
    return None


def _in_bounds(kernel: KernelIR, ptr: ir.GlobalPtrStmt, ranges: list) -> bool:
    if not ranges:
        ranges.append(IndexRanges(kernel))
    shape = ptr.field.layout().shape
    for index, extent in zip(ptr.indices, shape, strict=True):
        lo, hi = ranges[0].interval(index)
        if lo < 0 or hi >= extent:
            return False
    return True


def _reached_first(facts: _LoopFacts, group: list[ir.Stmt]) -> bool:
    """The loop's first iteration surely accesses the element: a use of it sits in the
    loop's own block (not under an if or an inner loop) and nothing leaves the loop's
    iteration early."""
    if facts.exits_early():
        return False
    direct = facts.direct()
    return any(p.id in direct for p in group)


def _promote(loop: ir.Stmt, chosen: list[tuple[list[ir.Stmt], str]]) -> None:
    """Each chosen group's element in a local across ``loop``: loaded before it (under one
    ``if begin < end`` when a group must be "guarded"), stored back after it when the
    loop stores it; the loop's accesses rewritten in one walk for all of them."""
    anchor = _guard(loop) if any(how == "guarded" for _, how in chosen) else loop
    copies: dict = {}
    local_of: dict[int, ir.Stmt] = {}  # pointer id -> its element's local
    homes = []
    for group, _ in chosen:
        first = group[0]
        indices = [_computed_before(index, loop, anchor, copies) for index in first.indices]
        if isinstance(first, ir.GlobalPtrStmt):
            hoisted = ir.GlobalPtrStmt(first.field, indices)
        else:
            hoisted = ir.ExternalPtrStmt(first.arg_index, first.ndim, indices, first.dtype)
        local = ir.AllocaStmt(first.dtype, f"promoted_{_name(first)}")
        before = [hoisted, local, ir.GlobalLoadStmt(hoisted)]
        before.append(ir.LocalStoreStmt(local, before[-1]))
        for stmt in before:
            stmt.pos = first.pos
            transform.insert_before(anchor, stmt)
        local_of.update((p.id, local) for p in group)
        homes.append((first, hoisted, local))
    stored: set[int] = set()
    new_for: dict[int, ir.Stmt] = {}  # every load's uses rewritten in one walk
    for stmt in list(loop.walk_all()):
        local = local_of.get(stmt.ptr.id) if isinstance(stmt, _ACCESSES) else None
        if local is None:
            continue
        if isinstance(stmt, ir.GlobalLoadStmt):
            new_for[stmt.id] = _replace(stmt, ir.LocalLoadStmt(local))
        else:
            _replace(stmt, ir.LocalStoreStmt(local, stmt.value))
            stored.add(local.id)
    transform.replace_all_uses(loop.body, new_for)
    transform.remove_all([p for group, _ in chosen for p in group])
    for first, hoisted, local in homes:
        if local.id in stored:
            value = transform.insert_after(anchor, ir.LocalLoadStmt(local))
            store = transform.insert_after(value, ir.GlobalStoreStmt(hoisted, value))
            value.pos = store.pos = first.pos


def _guard(loop: ir.RangeForStmt) -> ir.Stmt:
    """Moves ``loop`` into ``if begin < end:``; returns the loop (its new anchor)."""
    runs = ir.BinaryOpStmt("lt", loop.begin, loop.end, types.i32)
    branch = ir.IfStmt(runs)
    transform.insert_before(loop, runs)
    block = loop.parent
    block.stmts[block.stmts.index(loop)] = branch
    branch.parent = block
    branch.true_block.append(loop)
    runs.pos = branch.pos = loop.pos
    return loop


def _replace(old: ir.Stmt, new: ir.Stmt) -> ir.Stmt:
    new.pos = old.pos
    return transform.replace_stmt(old, new)
