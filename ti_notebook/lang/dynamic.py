"""Dynamic SNodes: lists along one axis, filled with ``ti.append``, seen from Python.

``ti.root.dense(ti.i, n).dynamic(ti.j, m, chunk_size=c).place(x)`` gives ``n`` lists of
at most ``m`` elements; ``x[i, j]`` is element ``j`` of list ``i``. A list's cells
``[0, length)`` are active: a struct-for visits them, ``ti.append(x.parent(), i, v)``
stores ``v`` at ``length`` and returns the old length, and writing ``x[i, j]`` makes the
length at least ``j + 1`` (Taichi's rules). ``ti.deactivate(x.parent(), i)`` empties a
list and zeroes what it held, so every cell at or beyond the length reads 0 (and
``to_numpy()`` gives zeros there; Taichi warns about that on every call, here it is
simply the rule).

Memory: every list is a fixed array of ``m`` cells in the tree's lazily committed
region, and its ``i32`` length sits after the tree's cells (the plan's ``mask_offset``
of the dynamic level). Taichi instead links chunks of ``chunk_size`` cells as a list
grows; here the OS commits a page when it is first written, which costs memory the same
way at page granularity, and every element keeps one fixed address in the memory plan
(the layout widget, ``ti.get_addr`` and codegen all read it). ``chunk_size`` is
accepted and kept (``snode.chunk_size``) but does not change the layout. On a CUDA
device the tree's copy is allocated whole (``m`` cells per list).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32)
    >>> lists = ti.root.dense(ti.i, 3).dynamic(ti.j, 8, chunk_size=4)
    >>> lists.place(x)
    <ti.SNode dynamic>
    >>> ti.append(lists, 1, 7), ti.append(lists, 1, 9), ti.length(lists, 1)
    (0, 1, 2)
    >>> x[2, 4] = 5  # writing element 4 makes the list 5 long
    >>> [ti.length(lists, i) for i in range(3)], x.to_numpy()[1, :3].tolist()
    ([0, 2, 5], [7, 9, 0])
"""

from __future__ import annotations

import numbers

import numpy as np

from ti_notebook.errors import TiIndexError, TiTypeError, TiValueError
from ti_notebook.runtime.memory import before_host_access


def check_dynamic(parent, axes: tuple[int, ...], dimension, chunk_size) -> None:
    """Taichi's rules for ``parent.dynamic(axis, dimension, chunk_size)``: one axis, used
    by no level above (a list's cells are the whole axis), a positive chunk size."""
    what = f"dynamic({'ti.' + ''.join('ijkl'[a] for a in axes)}, {dimension!r})"
    if len(axes) != 1:
        raise TiValueError(
            f"{what}: a dynamic node has exactly one axis",
            hint="nest a dense level for the other axes: ti.root.dense(ti.i, n).dynamic(ti.j, m)",
        )
    for upper in [parent, *parent.path()]:
        if axes[0] in upper.declared_axes:
            raise TiValueError(
                f"{what}: axis {'ijkl'[axes[0]]} is already split by {upper.name} above it",
                hint="a dynamic node needs an axis of its own (Taichi: 'Dynamic SNode must "
                "have a standalone dimensionality'), e.g. ti.root.dense(ti.i, n)"
                ".dynamic(ti.j, m)",
            )
    if chunk_size is not None and (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, numbers.Integral)
        or chunk_size <= 0
    ):
        raise TiValueError(
            f"{what}: chunk_size must be a positive integer, got {chunk_size!r}",
            hint="leave it out (the whole list is one chunk) or pass e.g. chunk_size=32",
        )


def list_axis(node) -> int:
    """The axis a dynamic node's lists run along."""
    return node.axes[0]


def list_shape(node) -> tuple[int, ...]:
    """The shape of the index space of a dynamic node's lists: its shape without the
    list axis (``()`` for ``ti.root.dynamic``)."""
    axis = list_axis(node)
    return tuple(e for a, e in enumerate(node.shape) if a != axis)


def _check_dynamic_node(node, name: str) -> None:
    if getattr(node, "kind", None) != "dynamic":
        kind = getattr(node, "kind", type(node).__name__)
        raise TiTypeError(
            f"{name}() works on dynamic nodes only, not on a {kind} node",
            hint="pass the dynamic node, e.g. x.parent() for "
            "ti.root.dense(ti.i, n).dynamic(ti.j, m).place(x)",
        )


def list_index(node, indices, name: str) -> tuple[int, ...]:
    """A list's index from Python (an int, a sequence, ``[]`` for a root-level list),
    checked against :func:`list_shape`."""
    shape = list_shape(node)
    if indices is None:
        items: list = []
    elif isinstance(indices, (tuple, list, np.ndarray)):
        items = list(np.asarray(indices).reshape(-1)) if len(indices) else []
    else:
        items = [indices]
    if len(items) != len(shape):
        raise TiIndexError(
            f"{name}() got {len(items)} index(es) for the lists of {node.name}, which are "
            f"indexed {len(shape)}-D (shape {shape})",
            hint="give the index of the list, without the position in it"
            + (" ([] for a list directly under ti.root)" if not shape else ""),
        )
    index = []
    for i, extent in zip(items, shape, strict=True):
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TiTypeError(f"{name}(): list index {i!r} is not an integer")
        if not 0 <= i < extent:
            raise TiIndexError(f"{name}(): list index {tuple(items)} is outside {shape}")
        index.append(int(i))
    return tuple(index)


def full_index(node, index: tuple[int, ...], position: int) -> tuple[int, ...]:
    """The element index of ``position`` in the list at ``index``."""
    axis = list_axis(node)
    return (*index[:axis], position, *index[axis:])


def lengths(level, memory) -> np.ndarray:
    """The lengths of a dynamic level's lists, a writable ``i32`` view shaped like the
    index space of the lists (row-major: the order ``FieldLayout.list_number`` counts)."""
    shape = tuple(c for a, c in enumerate(level.grid) if a != level.axes[0])
    count = int(np.prod(shape, dtype=np.int64))
    return memory.view(np.int32, level.mask_offset, (count,), (4,)).reshape(shape)


def _memory_of(node, write: bool):
    layout = node.layout()  # materialises ti.root's tree; checks it is alive
    memory = node.builder.tree.memory
    before_host_access(memory, write=write)
    return layout, layout.levels[-1], memory


def length(node, indices) -> int:
    """``ti.length(node, i)`` from Python: the length of list ``i``."""
    _check_dynamic_node(node, "ti.length")
    index = list_index(node, indices, "ti.length")
    layout, level, memory = _memory_of(node, write=False)
    return int(lengths(level, memory)[index])


def _component_values(node, value) -> list:
    fields = [leaf.field for leaf in node.children if leaf.kind == "place"]
    flat = [value] if np.ndim(value) == 0 else list(np.asarray(value).reshape(-1))
    if len(flat) != len(fields):
        raise TiValueError(
            f"ti.append(): {len(flat)} value(s) for the {len(fields)} field component(s) "
            f"placed in {node.name}",
            hint="append one value per component, e.g. a ti.Vector for a vector field",
        )
    return list(zip(fields, flat, strict=True))


def append(node, indices, value) -> int:
    """``ti.append(node, i, value)`` from Python: stores ``value`` at the end of list
    ``i`` and returns the list's old length; a full list is an error."""
    _check_dynamic_node(node, "ti.append")
    index = list_index(node, indices, "ti.append")
    pairs = _component_values(node, value)
    layout, level, memory = _memory_of(node, write=True)
    counts = lengths(level, memory)
    old = int(counts[index])
    capacity = level.extents[0]
    if old >= capacity:
        raise TiIndexError(
            f"ti.append(): list {index} of {node.name} is full ({capacity} elements)",
            hint=f"declare a larger dynamic node, or empty the list with "
            f"ti.deactivate(node, {list(index)})",
        )
    for field, component in pairs:
        field[full_index(node, index, old)] = component
    counts[index] = old + 1
    return old


def clear_list(node, indices) -> None:
    """``ti.deactivate(node, i)`` on a dynamic node, from Python: empties list ``i``."""
    index = list_index(node, indices, "ti.deactivate")
    layout, level, memory = _memory_of(node, write=True)
    counts = lengths(level, memory)
    used = int(counts[index])
    if used:
        memory.zero(layout.address(full_index(node, index, 0)), used * level.cell_size)
    counts[index] = 0


def grow_to(layout, level, memory, index: tuple[int, ...]) -> None:
    """A Python-scope write of element ``index``: its list becomes at least long enough
    to hold it (Taichi's rule for writes)."""
    counts = lengths(level, memory)
    slot = tuple(i for a, i in enumerate(index) if a != level.axes[0])
    counts[slot] = max(int(counts[slot]), index[level.axes[0]] + 1)
