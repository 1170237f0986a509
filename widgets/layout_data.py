"""What the layout view draws, as data: one field's window of cells and its memory plan.

Everything here is read from the field's read-only plan (``field.layout()``): byte
addresses come from ``FieldLayout.addresses()``, blocks from ``block_shapes()``, a
struct-for's order from ``visit_order()``; nothing is recomputed, so the picture shows
what the compiled code does (DESIGN.md sections 4 and 6).

A field larger than the drawing shows a *window* (by default 64 cells of a 1-D field,
32x32 of a 2-D one, 4x16x16 of a 3-D one) starting at a chosen corner; the full shape is
kept next to it so the picture can say what it leaves out.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> _ = ti.root.dense(ti.j, 3).dense(ti.i, 2).place(x)  # column-major
    >>> data = layout_data(x)
    >>> data.addresses.tolist(), data.order.tolist()
    ([[0, 8, 16], [4, 12, 20]], [[0, 2, 4], [1, 3, 5]])
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

import ti_notebook as ti
from ti_notebook.errors import TiError, TiTypeError, TiValueError

CACHE_LINE = 64  # bytes; the unit in which CPUs and GPUs move memory
DEFAULT_WINDOW = {1: (64,), 2: (32, 32), 3: (4, 16, 16)}
# the loop's first iterations the view follows: a slider over 16M steps says no more,
# and the whole visit order of a large field would take seconds to compute
VISIT_LIMIT = 1 << 16
LOOP_KINDS = ("struct-for", "ndrange")
# orders a kernel's loop runs in once interchange_loops rewrote it (its report says so)
FIRST_AXIS_FASTEST = "ndrange as compiled: first axis fastest"
STRIPS = "as compiled: strips of {n} first indices, second index outside"
SOURCE_ORDER = "ndrange in source order (the compiler interchanged this loop)"
_STRUCT_FOR = re.compile(r"= struct_for (\w+)")  # a loop in the printed IR


@dataclasses.dataclass(frozen=True)
class ByteSlot:
    """One element in the byte strip: ``field[index]`` occupies ``[start, start+size)``."""

    start: int  # bytes from the lowest address shown
    size: int
    field: str
    index: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class LayoutData:
    """One field's window: per drawn cell its index, address, order and cache line.

    The window-shaped arrays (``addresses``, ``order``, ``cache_lines``, ``visit_rank``)
    are indexed by position in the window; ``corner`` is the field index of position 0.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]  # the field's full shape
    corner: tuple[int, ...]  # field index of the window's first cell
    addresses: np.ndarray  # byte address of each cell, relative to its tree's base
    order: np.ndarray  # rank of the address among the cells drawn (0 = lowest)
    cache_lines: np.ndarray  # address // 64
    blocks: tuple[tuple[int, ...], ...]  # cells of upper levels to outline, outer first
    byte_strip: tuple[ByteSlot, ...]  # the first cache line of the tree, by field
    loop: str | None = None  # "struct-for" | "ndrange" | an interchanged order | None
    # field indices in the loop's visit order (all of the field, not only the window)
    visit: np.ndarray | None = None
    # visit position of each window cell (-1: none), and distinct lines after n visits
    visit_rank: np.ndarray | None = None
    lines_after: np.ndarray | None = None  # lines_after[n]: lines touched by n visits
    # the field's first index per axis (``offset=``; zeros without one): every index
    # here (corner, visit, cell) is the user's, as the program writes it
    origin: tuple[int, ...] = ()
    # the plan's own address function, for cells outside the window
    _plan_address: object = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def window(self) -> tuple[int, ...]:
        return self.addresses.shape

    @property
    def is_windowed(self) -> bool:
        return self.window != self.shape

    def describe(self) -> str:
        """One line: the field, its full shape and the part drawn.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> big = ti.field(ti.f32, shape=(1000, 1000))
        >>> layout_data(big, corner=(10, 0)).describe()
        'big: f32[1000, 1000], showing [10:42, 0:32]'
        """
        head = f"{self.name}: {self.dtype}[{', '.join(map(str, self.shape))}]"
        if not self.is_windowed:
            return head
        parts = ", ".join(f"{c}:{c + w}" for c, w in zip(self.corner, self.window, strict=True))
        return f"{head}, showing [{parts}]"

    def cell(self, index) -> dict:
        """What the view says about the cell at field ``index``.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.f32, shape=(4, 32))
        >>> layout_data(x, loop="ndrange").cell((1, 2))
        {'index': (1, 2), 'address': 136, 'cache_line': 2, 'visited_at': 34}
        """
        index = tuple(int(i) for i in index)
        origin = self.origin or (0,) * len(self.shape)
        if len(index) != len(self.shape) or not all(
            o <= i < o + n for i, n, o in zip(index, self.shape, origin, strict=True)
        ):
            raise TiValueError(f"{self.name}{list(index)} is outside the field {self.shape}")
        address = self._address(index)
        out = {"index": index, "address": address, "cache_line": address // CACHE_LINE}
        if self.visit is not None:
            hits = np.flatnonzero((self.visit == index).all(axis=1))
            out["visited_at"] = int(hits[0]) if hits.size else None
        return out

    def _address(self, index: tuple[int, ...]) -> int:
        local = tuple(i - c for i, c in zip(index, self.corner, strict=True))
        if all(0 <= p < w for p, w in zip(local, self.window, strict=True)):
            return int(self.addresses[local])
        return int(self._plan_address(index))

    def lines_touched(self, n: int) -> int:
        """Distinct 64-byte cache lines the loop's first ``n`` iterations touch."""
        if self.lines_after is None:
            raise TiValueError(f"the view of {self.name} has no loop", hint="pass loop=...")
        return int(self.lines_after[max(0, min(n, len(self.lines_after) - 1))])


def loop_kind(field: ti.Field, loop) -> str | None:
    """Which order a ``loop`` argument means for ``field``.

    ``"struct-for"`` and ``"ndrange"`` name the order; a kernel means ``"struct-for"``
    when one of its struct-fors loops over this field (:func:`struct_for_fields`) and
    ``"ndrange"`` (row-major, as ``for I in ti.ndrange(*shape)``) otherwise, including
    when the kernel cannot be compiled without example arguments.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> loop_kind(ti.field(ti.f32, shape=4), "struct-for")
        'struct-for'
    """
    if loop is None:
        return None
    if isinstance(loop, str):
        if loop not in LOOP_KINDS:
            raise TiValueError(
                f"loop={loop!r} is not a loop order", hint=f"use one of {LOOP_KINDS} or a kernel"
            )
        return loop
    if isinstance(loop, ti.Kernel):
        try:
            report = kernel_report(loop, field)
            looped = struct_for_fields(loop, report)
        except TiError:  # template/ndarray parameters and no call yet
            return "ndrange"
        if field.name in looped:
            return "struct-for"
        return _interchanged(report, field) or "ndrange"
    raise TiTypeError(
        f"loop={loop!r} is neither a loop order nor a kernel",
        hint="pass loop='struct-for', loop='ndrange' or a @ti.kernel",
    )


def kernel_report(kernel: ti.Kernel, field: ti.Field):
    """The report of ``kernel``'s specialisation that touches ``field``: a compiled one
    whose traffic names it, else the one ``kernel(field)`` selects (a kernel taking the
    field as its one template argument), else ``kernel.report``.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.f32, shape=(4, 4), name="x")
        >>> @ti.kernel
        ... def inc(a: ti.template()):
        ...     for i, j in ti.ndrange(4, 4):
        ...         a[i, j] += 1
        >>> kernel_report(inc, x).tasks[-1].traffic[0].name
        'x'
    """
    for stages in reversed(list(kernel.specialisations.values())):
        report = stages["report"]
        if any(t.name == field.name for task in report.tasks for t in task.traffic):
            return report
    try:
        return kernel.stages(field)["report"]
    except (TiError, TypeError):  # other parameters: the last or only specialisation
        return kernel.report


def _interchanged(report, field: ti.Field) -> str | None:
    """The order interchange_loops gave the task over ``field`` (None: as written)."""
    tasks = [
        task
        for task in report.tasks
        if task.kind == "range_for" and any(t.name == field.name for t in task.traffic)
    ]
    orders = {getattr(task, "interchange", None) for task in tasks}
    if len(orders) != 1 or len(field.shape) != 2:
        return SOURCE_ORDER if "interchange_loops" in report["passes"] and tasks else None
    (order,) = orders
    if order is None:
        return SOURCE_ORDER if "interchange_loops" in report["passes"] else None
    if order[0] == "axes":
        return FIRST_AXIS_FASTEST
    return STRIPS.format(n=order[1]) if order[0] == "strips" else SOURCE_ORDER


def struct_for_fields(kernel: ti.Kernel, report=None) -> set[str]:
    """Names of the fields ``kernel``'s struct-fors loop over.

    The report names the field of each parallel struct-for task; a serialised one
    (``ti.loop_config(serialize=True)``) runs inside a ``serial`` task that names no
    field, so those are read from the traced IR's text (``kernel.stages()["ir"]``, the
    ``%%kernel --show ir`` listing), whose loops print as ``$n = struct_for x``.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.f32, shape=4)
        >>> @ti.kernel
        ... def fill():
        ...     for i in x:
        ...         x[i] = i
        >>> struct_for_fields(fill)
        {'x'}
    """
    report = kernel.report if report is None else report
    names = {t.field for t in report.tasks if t.kind == "struct_for" and t.field}
    return names | set(_STRUCT_FOR.findall(kernel.stages()["ir"]))


def visit_order(field: ti.Field, kind: str, limit: int | None = None) -> np.ndarray:
    """Field indices in the order ``kind`` visits them, shape ``(cells, ndim)``.

    A struct-for visits in the plan's order (``FieldLayout.visit_order()``; a sparse
    field is drawn as if every cell were active); an ndrange is row-major.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> visit_order(ti.field(ti.f32, shape=(2, 2)), "ndrange").tolist()
        [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    plan = field.layout()
    if kind == "struct-for":
        return plan.visit_order(limit=limit)
    count = math.prod(plan.shape) if limit is None else min(limit, math.prod(plan.shape))
    steps = np.arange(count)
    if kind == FIRST_AXIS_FASTEST:
        return np.stack(np.unravel_index(steps, plan.shape, order="F"), axis=1)
    strips = re.fullmatch(STRIPS.format(n=r"(\d+)"), kind)
    if strips:  # for each strip of n rows: for j: for i in the strip
        n, (rows, cols) = int(strips.group(1)), plan.shape
        strip = steps // (n * cols)
        height = np.minimum(n, rows - strip * n)  # the last strip may be shorter
        step = steps - strip * n * cols
        return np.stack([strip * n + step % height, step // height], axis=1)
    return np.stack(np.unravel_index(steps, plan.shape), axis=1)


def lines_after(visited_addresses: np.ndarray) -> np.ndarray:
    """``out[n]``: distinct cache lines among the first ``n`` visited cells (``out[0]=0``),
    given the byte address of each visit in order.

    >>> lines_after(np.array([0, 64, 4, 68])).tolist()
    [0, 1, 2, 2, 2]
    """
    lines = visited_addresses // CACHE_LINE
    first = np.zeros(lines.size, dtype=np.int64)
    _, where = np.unique(lines, return_index=True)
    first[where] = 1  # a line counts at its first touch
    return np.concatenate([[0], np.cumsum(first)])


def byte_strip(field: ti.Field, together=(), span: int = CACHE_LINE) -> tuple[ByteSlot, ...]:
    """The elements in the first ``span`` bytes of ``field``'s tree, by byte offset.

    Only ``field`` and the fields in ``together`` that share its tree are named (the plan
    does not list a tree's other fields); their bytes show as gaps. Fields placed
    together (AoS) interleave; fields placed apart (SoA) fill the strip alone.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
        >>> _ = ti.root.dense(ti.i, 4).place(a, b)
        >>> [(s.start, s.field, s.index) for s in byte_strip(a, [b], span=16)]
        [(0, 'a', (0,)), (4, 'b', (0,)), (8, 'a', (1,)), (12, 'b', (1,))]
    """
    tree = field.layout().tree_id
    mine = [field] + [f for f in together if f is not field and f.layout().tree_id == tree]
    plans = [f.layout() for f in mine]
    # the tree's first bytes hold elements near the origin: a corner of each field is
    # enough, and keeps a large field's view quick
    everything = [_box_addresses(p, (0,) * len(p.shape), p.shape, span) for p in plans]
    base = min(int(a.min()) for a in everything)
    slots = []
    for f, plan, addresses in zip(mine, plans, everything, strict=True):
        for index in np.argwhere(addresses < base + span):
            address = int(addresses[tuple(index)])
            slots.append(ByteSlot(address - base, plan.itemsize, f.name, plan.user_index(index)))
    return tuple(sorted(slots, key=lambda s: s.start))


def _box_addresses(plan, corner, extent, most: int | None = None) -> np.ndarray:
    """Addresses of the cells ``corner + [0, extent)`` (per axis at most ``most``),
    shaped like the box: the plan's own arithmetic, for this box only."""
    extent = tuple(min(e, most or e) for e in extent)
    cells = np.indices(extent, dtype=np.int64).reshape(len(extent), -1).T + np.array(corner)
    return plan.addresses_at(cells).reshape(extent)


def block_outlines(shape, block_shapes) -> tuple[tuple[int, ...], ...]:
    """The cell of each non-leaf level, in field cells, where it is worth an outline.

    ``block_shapes()[M]`` is what level ``M`` spans inside one cell of its parent, so a
    cell of level ``L`` spans, per axis, the largest block of the levels under it. A
    cell that is a whole row, column or slab of the field (``dense(ti.j, n).dense(ti.i,
    m)``: a column) is left out: the grid shows it already, and outlining every column
    would hide the cache lines.

        >>> block_outlines((16, 24), [(16, 24), (8, 8)])  # 8x8 blocks
        ((8, 8),)
        >>> block_outlines((5, 7), [(1, 7), (5, 1)])  # column-major: no blocks
        ()
    """
    out = []
    for depth in range(len(block_shapes) - 1):
        deeper = block_shapes[depth + 1 :]
        span = tuple(max(b[a] for b in deeper) for a in range(len(shape)))
        whole_line = all(s in (1, n) for s, n in zip(span, shape, strict=True))
        if math.prod(span) > 1 and not whole_line and span not in out:
            out.append(span)
    return tuple(out)


def _window(shape, window, corner) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The window clipped to the field, and its corner moved so that it fits."""
    ndim = len(shape)
    window = DEFAULT_WINDOW[ndim] if window is None else window
    window = (window,) * ndim if isinstance(window, int) else tuple(window)
    corner = (0,) * ndim if corner is None else tuple(int(c) for c in corner)
    if len(window) != ndim or len(corner) != ndim:
        raise TiValueError(f"window and corner need {ndim} values for a {ndim}-D field")
    window = tuple(max(1, min(w, n)) for w, n in zip(window, shape, strict=True))
    corner = tuple(max(0, min(c, n - w)) for c, n, w in zip(corner, shape, window, strict=True))
    return window, corner


def layout_data(field: ti.Field, loop=None, *, together=(), window=None, corner=None) -> LayoutData:
    """The data of one field's layout view; see the module docstring.

    ``loop`` is ``"struct-for"``, ``"ndrange"`` or a kernel (:func:`loop_kind`);
    ``together`` are other fields whose bytes the strip names; ``window`` (cells per
    axis, or one int) and ``corner`` choose the part of a large field that is drawn.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.f32)
        >>> _ = ti.root.dense(ti.ij, (2, 2)).dense(ti.ij, (8, 8)).place(x)
        >>> data = layout_data(x, loop="struct-for")
        >>> data.blocks, data.lines_touched(16), data.lines_touched(64)
        (((8, 8),), 1, 4)
    """
    plan = field.layout()
    if not 1 <= len(plan.shape) <= 3:
        raise TiValueError(
            f"the layout view draws 1-D, 2-D and 3-D fields; {field.name} has shape {plan.shape}"
        )
    if corner is not None and len(corner) == len(plan.shape):
        corner = plan.position(corner)  # offset=: the user's index of the corner
    window, corner = _window(plan.shape, window, corner)
    addresses = _box_addresses(plan, corner, window)
    order = np.empty(addresses.size, dtype=np.int64)
    order[np.argsort(addresses, axis=None, kind="stable")] = np.arange(addresses.size)
    blocks = block_outlines(plan.shape, plan.block_shapes())
    kind = loop_kind(field, loop)
    visit = rank = after = None
    if kind is not None:
        visit = visit_order(field, kind, VISIT_LIMIT)
        local = visit - np.array(corner)
        inside = ((local >= 0) & (local < np.array(window))).all(axis=1)
        rank = np.full(window, -1, dtype=np.int64)  # the window's cells' iteration
        rank[tuple(local[inside].T)] = np.flatnonzero(inside)
        after = lines_after(plan.addresses_at(visit))
        visit = visit + np.array(plan.origin, dtype=visit.dtype)
    return LayoutData(
        field.name,
        plan.dtype_name,
        plan.shape,
        plan.user_index(corner),
        addresses,
        order.reshape(addresses.shape),
        addresses // CACHE_LINE,
        blocks,
        byte_strip(field, together),
        kind,
        visit,
        rank,
        after,
        plan.origin,
        _plan_address=lambda index: plan.address(plan.position(index)),
    )
