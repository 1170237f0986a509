"""Memory traffic: the bytes each parallel task moves per iteration, from the IR.

An analysis for the kernel profiler: with the bytes a launch moves, a time
becomes an achieved bandwidth, comparable with the machine's copy bandwidth
(``ti.profiler.memory_bandwidth()``). It changes nothing; it fills, per task of
``kernel.report["tasks"]``, ``"bytes_per_iteration"`` and ``"traffic"`` (one entry per
field or ndarray argument: name, read, written, bytes per iteration).

The count is the *compulsory* traffic, as STREAM counts it: what one iteration must
bring from memory and send back if every element crossed the memory bus once.

- Only the task's ``body`` counts (it runs once per index of the task's range); the
  ``prologue`` and ``epilogue`` run once per chunk, so the thread-local accumulator's one
  atomic per chunk (``make_thread_local``) and a privatised scatter's add-back
  (``privatize_scatter``) are not per-iteration traffic. Serial tasks count nothing
  (``None``): they have no iterations to divide a launch by.
- A field read in the body counts its element size once, however many loads and at
  however many neighbouring indices (a 5-point stencil reads ``a`` once per cell: the
  neighbours are other iterations' cells); a field written counts it once more; an
  atomic is a read and a write. Accesses under an ``if`` count as if it were taken.
  Loads whose value nobody uses do not count (dead-code elimination removes them).
- An access inside a serial loop in the body counts once per iteration of that loop
  when its index depends on the loop's index and the trip count is a compile-time
  constant (``for k in range(4): s += a[i, k]`` reads 4 elements); with an unknown trip
  count (a ``while``, a variable bound) it counts once, so the figure is a lower bound.
- Thread-local accumulators, block-local buffers (``LocalArrayStmt``) and a scatter's
  chunk-private copies (``GlobalPtrStmt.private``) are not global memory: not counted.
- Block-local storage (``make_block_local``) makes the task iterate over *blocks*: the
  cached field is read by the buffer's fill loop (or accumulated by its write-back loop)
  over the block and its halo; that loop counts the block's own cells only, since the
  halo cells are the neighbouring blocks' (the non-BLS stencil's rule, per cell). The
  cell loop's other accesses count once per cell. So a BLS stencil reports the same
  bytes per cell as the plain one, times the cells of a block per iteration.
- Activity bits, pointer tables and the struct-for's visiting of sparse cells are
  metadata, not counted.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x, y = ti.field(ti.f32, shape=64, name="x"), ti.field(ti.f32, shape=64, name="y")
    >>> @ti.kernel
    ... def saxpy(a: ti.f32):
    ...     for i in x:
    ...         y[i] = a * x[i] + y[i]
    >>> task = saxpy.stages(2.0)["report"]["tasks"][-1]
    >>> task["bytes_per_iteration"], [(t["name"], t["bytes"]) for t in task["traffic"]]
    (12, [('x', 4), ('y', 8)])
"""

from __future__ import annotations

import dataclasses
import math

from ti_notebook.ir import nodes as ir
from ti_notebook.ir import transform
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    """Notes each task's traffic in ``kernel.report["tasks"]``; returns False (an analysis).

    It runs after the passes that decide where an access goes (thread-local
    accumulators, demoted atomics, private scatter copies, block-local buffers) and
    before ``lower_access``, which turns ``field[I]`` into a tree base plus an offset and
    so forgets which field (and element type) an access was.
    """
    # offload made one entry per task; no pass since adds or drops tasks (eliminate_dead_code
    # renumbers later, and these keys live inside the entries, so they follow)
    for task, entry in zip(kernel.tasks(), kernel.report["tasks"], strict=True):
        if task.kind == "serial":
            entry["bytes_per_iteration"] = None
            entry["traffic"] = []
            continue
        traffic = _task_traffic(task, kernel.report.get("block_local", []))
        entry["traffic"] = [t.to_dict() for t in traffic]
        entry["bytes_per_iteration"] = sum(t.bytes for t in traffic)
        entry["flops_per_iteration"], entry["flop_dtype"] = task_flops(task)
    return False


# Floating-point operations a roofline counts, one each (the usual convention: a math
# function is one operation although it costs several instructions; comparisons,
# negation, abs, selects and casts are not arithmetic and count nothing).
FLOP_BINARY = frozenset({"add", "sub", "mul", "truediv", "pow", "min", "max", "atan2"})
FLOP_UNARY = frozenset(
    {"sqrt", "rsqrt", "sin", "cos", "tan", "exp", "log", "asin", "acos", "atan", "tanh"}
)
FLOP_ATOMIC = frozenset({"add", "sub", "min", "max"})


def task_flops(task: ir.OffloadedStmt) -> tuple[int, str | None]:
    """(floating-point operations one iteration of ``task``'s body performs, the widest
    float type among them: ``"f32"``, ``"f64"`` or None when there are none).

    An operation inside a serial loop of known trip count counts once per trip (an
    unknown count, once: a lower bound, as for bytes); one under an ``if`` counts as if
    the branch were taken.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.f32, shape=16)
        >>> @ti.kernel
        ... def poly(a: ti.f32):
        ...     for i in x:
        ...         for k in range(3):
        ...             x[i] = x[i] * a + 1.0
        >>> t = poly.stages(2.0)["report"].tasks[-1]
        >>> t.flops_per_iteration, t.flop_dtype
        (6, 'f32')
    """
    flops, widest = 0, 0
    for stmt in task.body.walk():
        if isinstance(stmt, ir.BinaryOpStmt):
            counts = stmt.op in FLOP_BINARY
        elif isinstance(stmt, ir.UnaryOpStmt):
            counts = stmt.op in FLOP_UNARY
        elif isinstance(stmt, ir.AtomicOpStmt):
            counts = stmt.op in FLOP_ATOMIC
        else:
            continue
        if not counts or stmt.dtype is None or not stmt.dtype.is_float:
            continue
        flops += _trips_around(stmt, task)
        widest = max(widest, stmt.dtype.bits)
    return flops, (f"f{widest}" if widest else None)


def _trips_around(stmt: ir.Stmt, task: ir.OffloadedStmt) -> int:
    """How many times ``stmt`` runs per iteration of ``task``: the product of the known
    trip counts of the serial loops around it."""
    count = 1
    owner = stmt.parent.owner if stmt.parent is not None else None
    while owner is not None and owner is not task:
        if isinstance(owner, (ir.RangeForStmt, ir.StructForStmt, ir.WhileStmt)):
            count *= _trip_count(owner) or 1
        owner = owner.parent.owner if owner.parent is not None else None
    return count


@dataclasses.dataclass
class _Counted:
    """One field's or argument's elements per iteration, read and written."""

    name: str
    size: int  # bytes of one element
    read: int = 0
    written: int = 0

    @property
    def bytes(self) -> int:
        return self.size * (self.read + self.written)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "read": self.read > 0,
            "written": self.written > 0,
            "bytes": self.bytes,
        }


def _task_traffic(task: ir.OffloadedStmt, block_local: list[dict] = ()) -> list[_Counted]:
    """Per field or ndarray argument the task's body touches, in program order: the
    elements it reads and writes per iteration (see the module's rule).

    ``block_local``: ``kernel.report["block_local"]``, to tell a block-local buffer's
    fill and write-back loops by their cached field and buffer size.
    """
    uses = transform.use_counts(task.body)
    loops = _LoopDependence(task.body)
    bls = _bls_loops(task, block_local)
    counted: dict[tuple, _Counted] = {}
    for stmt in task.body.walk():
        access = _access(stmt, uses)
        if access is None:
            continue
        ptr, reads, writes = access
        key, name, size = _target(ptr)
        elements = _elements(stmt, ptr, task, loops, bls)
        entry = counted.setdefault(key, _Counted(name, size))
        # max, not sum: more loads of the same field (neighbours, repeats) reuse the
        # lines the iteration or its neighbours brought in
        if reads:
            entry.read = max(entry.read, elements)
        if writes:
            entry.written = max(entry.written, elements)
    return [c for c in counted.values() if c.read or c.written]


def _access(stmt: ir.Stmt, uses) -> tuple[ir.Stmt, bool, bool] | None:
    """(pointer, reads, writes) when ``stmt`` moves a global element, else None."""
    if isinstance(stmt, ir.GlobalLoadStmt):
        ptr, reads, writes = stmt.ptr, uses[stmt.id] > 0, False
    elif isinstance(stmt, ir.GlobalStoreStmt):
        ptr, reads, writes = stmt.ptr, False, True
    elif isinstance(stmt, ir.AtomicOpStmt):
        ptr, reads, writes = stmt.dest, True, True
    else:
        return None
    if isinstance(ptr, ir.GlobalPtrStmt) and ptr.private is None:
        return ptr, reads, writes
    if isinstance(ptr, ir.ExternalPtrStmt):
        return ptr, reads, writes
    # locals, kernel temporaries, block-local buffers, a chunk's private copy
    return None


def _target(ptr: ir.Stmt) -> tuple[tuple, str, int]:
    """(key, name, element bytes) of what ``ptr`` points into."""
    if isinstance(ptr, ir.ExternalPtrStmt):
        return ("arg", ptr.arg_index), f"arg {ptr.arg_index}", ptr.dtype.size
    # equal descriptors are one memory (ir/refs.py), so the key is the descriptor
    return ("field", ptr.field), ptr.field.name, ptr.field.dtype.size


def _elements(stmt, ptr, task, loops: _LoopDependence, bls: dict) -> int:
    """Elements of ``ptr``'s target that ``stmt`` touches per iteration of the task."""
    count = 1
    owner = stmt.parent.owner if stmt.parent is not None else None
    while owner is not None and owner is not task:
        if isinstance(owner, (ir.RangeForStmt, ir.StructForStmt, ir.WhileStmt)):
            trips = _trip_count(owner)
            if trips is not None and loops.depends(ptr, owner):
                count *= trips
        if owner in bls and isinstance(ptr, ir.GlobalPtrStmt) and ptr.field.name in bls[owner]:
            return bls[owner][ptr.field.name]
        owner = owner.parent.owner if owner.parent is not None else None
    return count


def _trip_count(loop: ir.Stmt) -> int | None:
    """Iterations of a serial loop when known while compiling."""
    if isinstance(loop, ir.RangeForStmt):
        begin, end = loop.begin, loop.end
        if isinstance(begin, ir.ConstStmt) and isinstance(end, ir.ConstStmt):
            return max(int(end.value) - int(begin.value), 0)
        return None
    if isinstance(loop, ir.StructForStmt) and loop.field is not None:
        # every cell; a sparse field's inactive ones are skipped, so an upper bound
        return math.prod(loop.field.shape)
    return None  # a while loop


def _bls_loops(task: ir.OffloadedStmt, block_local: list[dict]) -> dict:
    """Block-local buffers' fill and write-back loops in ``task``: loop → {cached
    field's name → the block's cells}.

    ``make_block_local`` fills (or adds back) each buffer with a serial ndrange loop
    over exactly the buffer's cells, directly in the task's body, which holds the
    buffer (a ``LocalArrayStmt``); that loop is the one whose field accesses count per
    block cell rather than per buffer cell.
    """
    if not block_local or not any(isinstance(s, ir.LocalArrayStmt) for s in task.body.stmts):
        return {}
    found: dict = {}
    for loop in task.body.stmts:
        if not isinstance(loop, ir.RangeForStmt):
            continue
        trips = _trip_count(loop)
        for entry in block_local:
            if math.prod(entry["buffer_shape"]) == trips:
                cells = math.prod(entry["block_shape"])
                found.setdefault(loop, {})[entry["field"]] = cells
    return found


class _LoopDependence:
    """Which serial loops' indices a pointer's indices depend on (through arithmetic,
    loads and locals: a local's value depends on whatever any store into it does)."""

    def __init__(self, body: ir.Block) -> None:
        self._stores: dict[int, list[ir.Stmt]] = {}
        for stmt in body.walk():
            if isinstance(stmt, ir.LocalStoreStmt):
                self._stores.setdefault(stmt.alloca.id, []).append(stmt.value)
            elif isinstance(stmt, ir.AtomicOpStmt) and isinstance(stmt.dest, ir.AllocaStmt):
                self._stores.setdefault(stmt.dest.id, []).append(stmt.value)
        self._memo: dict[int, frozenset] = {}

    def depends(self, ptr: ir.Stmt, loop: ir.Stmt) -> bool:
        return any(loop.id in self._loops_of(index) for index in ptr.indices)

    def _loops_of(self, stmt: ir.Stmt) -> frozenset:
        if stmt.id in self._memo:
            return self._memo[stmt.id]
        # a local updated from itself (k = k + j) comes back here: what is known so far
        self._memo[stmt.id] = frozenset()
        if isinstance(stmt, ir.LoopIndexStmt):
            found = frozenset({stmt.loop.id})
        elif isinstance(stmt, ir.LocalLoadStmt):
            values = self._stores.get(stmt.alloca.id, [])
            found = frozenset().union(*(self._loops_of(v) for v in values))
        else:
            found = frozenset().union(*(self._loops_of(op) for op in stmt.operands()))
        self._memo[stmt.id] = found
        return found
