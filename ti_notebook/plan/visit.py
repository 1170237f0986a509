"""The order in which a struct-for visits a field's cells, as data.

A struct-for over a field runs a flat counter over ``[0, cells)`` in memory order (a
*row loop*, ``passes/lower_struct_for.py``). The counter is split into field indices once
per *row* (:func:`struct_rows`) and the row's cells follow by adding to the innermost
axis, or, for a nested layout whose leaf splits two or more axes, by splitting the
position inside the leaf block. Under sparse levels a whole block is skipped when its
deepest non-leaf sparse cell is inactive (:func:`skip_level`), and a sparse leaf is
checked cell by cell.
The lowering pass reads :func:`struct_rows` and :func:`skip_level` and emits the split as
IR (every backend runs that IR); :func:`visit_order` replays the same rows with NumPy,
so what it returns is the order the compiled loop runs in.

This module reads ``FieldLayout``/``LevelPlan`` objects duck-typed and imports nothing of
the package, so ``plan/layout.py`` can hand out :func:`visit_order` as a method.

    >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
    >>> outer = LevelPlan("dense", (0, 1), (2, 2), (2, 2), 16, (32, 16), 0, 4, None, (2, 2))
    >>> inner = LevelPlan("dense", (0, 1), (2, 2), (1, 1), 4, (8, 4), 0, 4, None, (4, 4))
    >>> blocked = FieldLayout(0, "x", "f32", (4, 4), (outer, inner), 0, 4)
    >>> struct_rows(blocked)
    Rows(width=4, inner_axis=None, whole_blocks=True)
    >>> visit_order(blocked)[:6].tolist()  # the first 2x2 block, then the next one
    [[0, 0], [0, 1], [1, 0], [1, 1], [0, 2], [0, 3]]
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class Rows(NamedTuple):
    """How a struct-for's flat counter is cut into rows."""

    width: int  # cells per row (rows start at multiples of it)
    inner_axis: int | None  # the axis a row runs along; None: a whole leaf block
    whole_blocks: bool  # a row is a whole leaf block, split over the leaf's axes


def struct_rows(layout) -> Rows:
    """The rows of a struct-for over ``layout``: the row loop ``lower_struct_for`` makes.

    A nested layout's leaf block is short per axis (8 cells for 8x8 blocks), so when the
    leaf splits two or more axes a row spans the whole leaf block; otherwise a row is a
    run of the leaf's last axis.

        >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
        >>> lv = LevelPlan("dense", (0, 1), (3, 4), (1, 1), 4, (16, 4), 0, 12, None, (3, 4))
        >>> struct_rows(FieldLayout(0, "x", "f32", (3, 4), (lv,), 0, 4))
        Rows(width=4, inner_axis=1, whole_blocks=False)
    """
    leaf = layout.levels[-1]
    if len(layout.levels) >= 2 and len(leaf.axes) >= 2:
        return Rows(leaf.num_cells, None, True)
    return Rows(leaf.extents[-1], leaf.axes[-1], False)


def skip_level(layout) -> tuple[int, int] | None:
    """``(depth, span)`` of the level whose inactive cells a struct-for skips in one step.

    The deepest sparse level above the leaf decides (activation keeps ancestors active);
    ``span`` is the number of consecutive counter values one of its cells covers. None
    when no sparse level sits above the leaf.

        >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
        >>> ptr = LevelPlan("pointer", (0,), (4,), (8,), 32, (32,), 0, 4, 128, (4,))
        >>> leaf = LevelPlan("dense", (0,), (8,), (1,), 4, (4,), 0, 8, None, (32,))
        >>> skip_level(FieldLayout(0, "x", "f32", (32,), (ptr, leaf), 0, 4))
        (0, 8)
    """
    upper = [d for d, level in enumerate(layout.levels[:-1]) if level.is_sparse]
    if not upper:
        return None
    depth = upper[-1]
    return depth, math.prod(deeper.num_cells for deeper in layout.levels[depth + 1 :])


def cell_indices(layout, flat) -> np.ndarray:
    """Field indices of the cells numbered ``flat`` in memory order, shape ``(n, ndim)``.

    The NumPy twin of the IR ``passes/lower_struct_for.py`` emits: the number is split
    level by level from the leaf up, each level's part row-major over its own axes.

        >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
        >>> lv = LevelPlan("dense", (1, 0), (4, 3), (1, 1), 4, (12, 4), 0, 12, None, (3, 4))
        >>> cell_indices(FieldLayout(0, "x", "f32", (3, 4), (lv,), 0, 4), [0, 1, 3]).tolist()
        [[0, 0], [1, 0], [0, 1]]
    """
    rest = np.asarray(flat, dtype=np.int64).reshape(-1)
    indices = np.zeros((rest.size, len(layout.shape)), dtype=np.int64)
    levels = layout.levels
    for depth in range(len(levels) - 1, -1, -1):
        level = levels[depth]
        if depth == 0:
            local = rest
        else:
            local, rest = rest % level.num_cells, rest // level.num_cells
        for k in range(len(level.axes) - 1, -1, -1):
            if k == 0:
                part = local
            else:
                part, local = local % level.extents[k], local // level.extents[k]
            indices[:, level.axes[k]] += part * level.below[k]
    return indices


def visit_order(layout, active=None, limit: int | None = None) -> np.ndarray:
    """Field indices of the cells a struct-for over ``layout`` visits, in visit order.

    Returns an ``(n, ndim)`` int array. Without ``active``, every cell in the order of
    the loop's flat counter (memory order). With ``active``, a field-shaped bool array
    (``lang.sparse.active_elements``: every sparse cell on the path active), only the
    cells the loop does not skip. A serialised loop visits them in exactly this order; a
    parallel one splits the counter into chunks. ``limit`` keeps the first ``limit``
    visits only (without ``active``, only those are computed: a view of a huge field).

        >>> from ti_notebook.plan.layout import FieldLayout, LevelPlan
        >>> lv = LevelPlan("dense", (0, 1), (2, 3), (1, 1), 4, (12, 4), 0, 6, None, (2, 3))
        >>> layout = FieldLayout(0, "x", "f32", (2, 3), (lv,), 0, 4)
        >>> visit_order(layout).tolist()
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
        >>> visit_order(layout, active=[[False, True, False], [True, False, False]]).tolist()
        [[0, 1], [1, 0]]
        >>> visit_order(layout, limit=4).tolist()
        [[0, 0], [0, 1], [0, 2], [1, 0]]
    """
    ndim = len(layout.shape)
    total = math.prod(layout.shape)
    wanted = total if limit is None or active is not None else min(total, limit)
    if not layout.levels:
        order = np.zeros((wanted, ndim), dtype=np.int64)
    else:
        rows = struct_rows(layout)
        starts = np.arange(0, wanted, rows.width, dtype=np.int64)
        corners = cell_indices(layout, starts)  # each row's first cell
        order = np.repeat(corners, rows.width, axis=0)
        k = np.tile(np.arange(rows.width, dtype=np.int64), starts.size)
        if rows.whole_blocks:  # the position in the leaf block, split over its axes
            leaf = layout.levels[-1]
            local = k
            for n in range(len(leaf.axes) - 1, -1, -1):
                part = local if n == 0 else local % leaf.extents[n]
                local = local // leaf.extents[n] if n else local
                order[:, leaf.axes[n]] += part
        else:
            order[:, rows.inner_axis] += k
    if active is not None:
        order = order[np.asarray(active, dtype=bool)[tuple(order.T)]]
    return order if limit is None else order[:limit]
