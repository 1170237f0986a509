"""Branches of inner loops become straight-line code, so the loop can vectorise.

n-body's inner loop reads the other body under a condition::

    for j in range(n):
        if i != j:
            d = pos[j] - pos[i]
            r2 = d.dot(d) + eps
            force_i += d / (r2 * ti.sqrt(r2))     # force[i], kept in a local

LLVM's loop vectoriser if-converts such a branch itself (both sides computed, a select
keeps one), but only when every instruction in it may run unconditionally. Arithmetic
may; a load may only if LLVM proves its address readable. For a unit-stride load it can
(``codegen/function.py`` says how many bytes of a tree are readable), for a Vector
field's components (stride 8 or 12 bytes) it cannot, and masked interleaved loads cost
more than scalar code on AVX2: the loop stayed scalar, 5-7× slower than without the
``if``. Reading the loads before the branch does not help: LLVM sinks them back into it.

So on a CPU, a branch in an innermost loop whose statements all may run
unconditionally is flattened here, where we know more than LLVM: each field or ndarray
load's indices are inside the shape wherever the branch runs (proven by
:class:`~ti_notebook.passes.analysis.index_ranges.IndexRanges` without the branch's own
condition), and the rest is arithmetic that cannot trap (no integer division) and
kernel-local variables. A local declared outside the branch gets
``x = select(cond, new, x)`` instead of its store; locals declared inside it keep
plain stores (nothing outside reads them). A branch that stores to a field, calls,
prints, leaves the loop or keeps a bounds check stays a branch; so does one over
``MAX_STATEMENTS`` (both sides now run on every iteration).

``ti.init(advanced_optimization=False)`` turns it off.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> pos, out = ti.field(ti.f32, 8), ti.field(ti.f32, 8)
    >>> @ti.kernel
    ... def near(i: ti.i32):
    ...     total = 0.0
    ...     for j in range(8):
    ...         if j != i:
    ...             total += pos[j]
    ...     out[i] = total
    >>> near(0)
    >>> "if_convert" in near.report.passes
    True
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes.analysis.index_ranges import IndexRanges
from ti_notebook.passes.prove_bounds import access_extents

MAX_STATEMENTS = 64  # both sides of a flattened branch run every iteration
ROUNDS = 4  # nested branches flatten from the inside out, one level per round

# statements that read no memory, write nothing and cannot trap
_PURE = (
    ir.ConstStmt,
    ir.ArgLoadStmt,
    ir.ExternalShapeStmt,
    ir.UnaryOpStmt,
    ir.CastStmt,
    ir.SelectStmt,
    ir.LoopIndexStmt,
    ir.ExternalPtrStmt,
    ir.AllocaStmt,
    ir.LocalLoadStmt,
)
_TRAPPING_INT_OPS = frozenset({"floordiv", "mod", "truediv"})  # x / 0 traps on integers
_LOOPS = (ir.RangeForStmt, ir.StructForStmt, ir.WhileStmt)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if not options.advanced_optimization or capabilities.tasks_are_kernels:
        return False
    changed = False
    for _ in range(ROUNDS):
        innermost: dict[int, bool] = {}  # loop id -> holds no other loop
        candidates = [
            s
            for s in kernel.block.walk()
            if isinstance(s, ir.IfStmt) and _in_innermost_loop(s, innermost)
        ]
        if not candidates:  # most kernels: no range analysis needed
            break
        ranges = IndexRanges(kernel)  # positions as they are now: decide all, then flatten
        branches = [s for s in candidates if _flattenable(s, ranges)]
        if not branches:
            break
        for branch in branches:
            _flatten(branch)
        changed = True
    return changed


def _in_innermost_loop(branch: ir.IfStmt, innermost: dict[int, bool]) -> bool:
    """Inside a loop (or a parallel task's body), through other branches only, and that
    loop holds no other loop: the loops LLVM vectorises. ``innermost`` remembers the
    answer per loop (a loop body may hold many branches)."""
    owner = branch.parent.owner
    while isinstance(owner, ir.IfStmt):
        owner = owner.parent.owner
    if isinstance(owner, ir.OffloadedStmt):
        if owner.kind not in ("range_for", "struct_for"):
            return False
        body = owner.body.walk
    elif isinstance(owner, _LOOPS):
        body = owner.walk_all
    else:
        return False
    if owner.id not in innermost:
        innermost[owner.id] = not any(isinstance(s, _LOOPS) for s in body())
    return innermost[owner.id]


def _flattenable(branch: ir.IfStmt, ranges: IndexRanges) -> bool:
    stmts = [s for block in branch.blocks() for s in block.stmts]
    if len(stmts) > MAX_STATEMENTS:
        return False
    for stmt in stmts:
        if isinstance(stmt, ir.BinaryOpStmt):
            if stmt.op in _TRAPPING_INT_OPS and not stmt.lhs.dtype.is_float:
                return False
        elif isinstance(stmt, ir.GlobalPtrStmt):
            if stmt.private is not None:
                return False
        elif isinstance(stmt, ir.GlobalLoadStmt):
            if not _readable_before(stmt.ptr, branch, ranges):
                return False
        elif isinstance(stmt, (ir.LocalStoreStmt, ir.AtomicOpStmt)):
            local = stmt.alloca if isinstance(stmt, ir.LocalStoreStmt) else stmt.dest
            if not isinstance(local, ir.AllocaStmt):
                return False  # an atomic on a field, or a store into a local array
        elif not isinstance(stmt, _PURE):
            return False  # a store, an atomic, a call, a print, a check, a nested branch
    return True


def _readable_before(ptr: ir.Stmt, branch: ir.IfStmt, ranges: IndexRanges) -> bool:
    """Every index of ``ptr`` is inside its dense field's or ndarray's shape wherever
    ``branch`` runs, whichever way its condition goes."""
    if isinstance(ptr, ir.GlobalPtrStmt):
        if ptr.field.layout().is_sparse:
            return False
        if not ptr.indices:
            return True  # a 0-D field's one element is always there
    elif not isinstance(ptr, ir.ExternalPtrStmt):
        return False
    target = access_extents(ptr)
    if target is None:  # a 0-D ndarray: nothing proven about it here
        return False
    indices, extents, _ = target
    facts = ranges.facts(branch)
    for index, extent in zip(indices, extents, strict=True):
        form = ranges.linear(index, index=index.dtype.bits == 32)
        if not (ranges.at_least_zero(form, facts) and ranges.below(form, extent, facts)):
            return False
    return True


def _flatten(branch: ir.IfStmt) -> None:
    """Moves both sides in front of ``branch`` (true side first) and drops it; a store
    to a local declared outside keeps the local's value when its side is not taken."""
    block, cond = branch.parent, branch.cond
    # a flattenable branch holds no block of its own: its sides' statements are all
    inside = {s.id for side in branch.blocks() for s in side.stmts if isinstance(s, ir.AllocaStmt)}

    def put(stmt: ir.Stmt) -> None:
        block.insert(block.index(branch), stmt)  # searched from the last insertion

    for side, taken in ((branch.true_block, True), (branch.false_block, False)):
        _spell_out_local_updates(side)
        fresh: dict[int, ir.Stmt] = {}  # local -> a read of it in this side, not stored since
        for stmt in list(side.stmts):
            if isinstance(stmt, ir.LocalLoadStmt):
                fresh[stmt.alloca.id] = stmt
            elif isinstance(stmt, ir.LocalStoreStmt) and stmt.alloca.id not in inside:
                if not _pad_update(stmt, fresh.get(stmt.alloca.id), cond, taken):
                    _select_store(stmt, cond, taken, put)
                fresh.pop(stmt.alloca.id, None)
            put(stmt)
        side.stmts.clear()
    transform.remove(branch)


def _spell_out_local_updates(side: ir.Block) -> None:
    """``x += v`` on a local (an atomic on an alloca) as the read, the op and the store
    it is (``codegen`` emits it so): the forms :func:`_pad_update` knows."""
    new_for: dict[int, ir.Stmt] = {}
    for stmt in list(side.stmts):
        if isinstance(stmt, ir.AtomicOpStmt):
            old = ir.LocalLoadStmt(stmt.dest)
            new = ir.BinaryOpStmt(stmt.op, old, stmt.value, stmt.dest.dtype)
            store = ir.LocalStoreStmt(stmt.dest, new)
            new_for[stmt.id] = old  # the atomic's value is the old one
            at = side.stmts.index(stmt)
            side.stmts[at : at + 1] = []
            for offset, part in enumerate((old, new, store)):
                part.pos = stmt.pos
                side.insert(at + offset, part)
    for stmt in side.stmts if new_for else ():  # no nested block: no walk needed
        for operand in stmt.operands():
            if operand.id in new_for:
                stmt.replace_operand(operand, new_for[operand.id])


def _select_store(store: ir.LocalStoreStmt, cond: ir.Stmt, taken: bool, put) -> None:
    """``x = select(cond, new, x)`` (the false side: ``select(cond, x, new)``)."""
    old = ir.LocalLoadStmt(store.alloca)
    new, kept = (store.value, old) if taken else (old, store.value)
    choice = ir.SelectStmt(cond, new, kept, store.alloca.dtype)
    old.pos = choice.pos = store.pos
    put(old)
    put(choice)
    store.value = choice


# x + (-0.0) is x for every float x, +0.0 and -0.0 included; x - 0.0 and x * 1.0 too
_IDENTITY = {"add": (-0.0, 0), "sub": (0.0, 0), "mul": (1.0, 1)}


def _pad_update(store: ir.LocalStoreStmt, read: ir.Stmt | None, cond: ir.Stmt, taken: bool) -> bool:
    """``acc = acc + x`` becomes ``acc = acc + select(cond, x, -0.0)``: the same value
    either way, and the form LLVM's vectoriser knows as a reduction (it recognises a
    select of a sum only under full fast-math). ``read``: the side's last read of the
    local, with no store to it since. False when the store is not such an update."""
    value = store.value
    if read is None or not isinstance(value, ir.BinaryOpStmt) or value.op not in _IDENTITY:
        return False
    if value.dtype != store.alloca.dtype or value.lhs is value.rhs:
        return False
    if value.lhs is read:
        step = value.rhs
    elif value.rhs is read and value.op != "sub":
        step = value.lhs
    else:
        return False
    float_pad, int_pad = _IDENTITY[value.op]
    pad = ir.ConstStmt(float_pad if value.dtype.is_float else int_pad, value.dtype)
    kept, unused = (step, pad) if taken else (pad, step)
    choice = ir.SelectStmt(cond, kept, unused, value.dtype)
    pad.pos = choice.pos = store.pos
    home = value.parent  # the side's statements were moved in front of the branch
    home.insert(home.index(value), pad)
    home.insert(home.index(value), choice)
    value.replace_operand(step, choice)
    return True
