"""Python-scope methods of fields without a NumPy view, run as compiled loops.

A dense field whose axes are each split once is a strided NumPy view of its tree, and
its ``fill``/``to_numpy``/``from_numpy`` copy through that view. A sparse field
(``pointer``, ``bitmasked``, ``dynamic``) or one split over several levels has no such
view; its methods are small kernels instead, as Taichi's are: a struct-for over the
field's active cells (``fill``, ``to_numpy``, ``from_numpy``, the active mask) or a
loop over the whole index space (``copy_from``). They run where the field lives (the
CPU's thread pool, the GPU, the SIMT emulator), compile once per field, element shape
and array type (then come from the offline cache), and stay out of the user's kernel
profile and of an open ``ti.ad.Tape``.

Taichi's rules, which these loops keep: ``fill`` and ``from_numpy`` write the active
cells only and activate none; ``to_numpy`` gives zeros for inactive cells;
``copy_from`` writes every cell, so every cell of the destination becomes active.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> ti.root.pointer(ti.i, 4).dense(ti.i, 2).place(x)
    <ti.SNode dense>
    >>> x[3] = 1.0
    >>> x.fill(5.0)  # block 1 (cells 2 and 3) is the only active one
    >>> x.to_numpy().tolist()
    [0.0, 0.0, 5.0, 5.0, 0.0, 0.0, 0.0, 0.0]
    >>> active_mask(x).nonzero()[0].tolist()
    [2, 3]
"""

from __future__ import annotations

import sys

import numpy as np

from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import config as _config
from ti_notebook.lang import loop_registry
from ti_notebook.lang.kernel import kernel
from ti_notebook.lang.ndarray import NdarrayType, template
from ti_notebook.lang.ops import deactivate, grouped, ndrange, static
from ti_notebook.runtime import profiler
from ti_notebook.runtime.memory import before_host_access

_ARRAY = NdarrayType()  # any type and rank: one specialisation per (type, rank)


# Each kernel takes the field's scalar components (a tuple: one for a scalar field,
# n*m for a matrix field, row-major) and ``shared``: whether they all sit in one cell
# of one SNode. Then one struct-for visits their common active cells; otherwise each
# component's own cells are visited, so each keeps its own activity.
@kernel
def _fill(parts: template(), shared: template(), values: _ARRAY):
    if static(shared):
        for idx in grouped(parts[0]):
            for k in static(range(len(parts))):
                parts[k][idx] = values[k]
    else:
        for k in static(range(len(parts))):
            for idx in grouped(parts[k]):
                parts[k][idx] = values[k]


@kernel
def _read(parts: template(), shared: template(), out: _ARRAY):
    if static(shared):
        for idx in grouped(parts[0]):
            for k in static(range(len(parts))):
                out[idx, k] = parts[k][idx]
    else:
        for k in static(range(len(parts))):
            for idx in grouped(parts[k]):
                out[idx, k] = parts[k][idx]


@kernel
def _write(parts: template(), shared: template(), source: _ARRAY):
    if static(shared):
        for idx in grouped(parts[0]):
            for k in static(range(len(parts))):
                parts[k][idx] = source[idx, k]
    else:
        for k in static(range(len(parts))):
            for idx in grouped(parts[k]):
                parts[k][idx] = source[idx, k]


@kernel
def _copy(dst: template(), src: template(), shape: template()):
    # every index, as Taichi's copy_from: reading an inactive cell gives 0, and writing
    # activates the destination's cell
    for idx in grouped(ndrange(*shape)):
        for k in static(range(len(dst))):
            dst[k][idx] = src[k][idx]


@kernel
def _mark(part: template(), out: _ARRAY):
    for idx in grouped(part):
        out[idx] = 1


@kernel
def _deactivate_cells(node: template()):
    for idx in grouped(node):
        deactivate(node, idx)


def _shared(parts: tuple) -> bool:
    parent = parts[0].snode.parent()
    return all(p.snode.parent() is parent for p in parts)


def _run(compiled_kernel, parts: tuple, write: bool, *args) -> None:
    memory = parts[0]._memory
    if memory.device is not None and _config.current().arch == "cpu":
        # a host loop over a tree that also has a device copy reads the host bytes
        before_host_access(memory, write=write)
    _launch(compiled_kernel, *args)


def _launch(compiled_kernel, *args) -> None:
    """Launches ``compiled_kernel`` directly: not recorded by a Tape (it is not the
    user's kernel, and its grad would be meaningless), not in the user's profile."""
    if not _config.is_initialized():
        _config.set_current(_config.make_config())
    recording = profiler.enabled
    profiler.set_enabled(False)
    try:
        (compiled, _stages, _inputs), runtime_args = compiled_kernel.compiled_for(args)
        compiled.launch(runtime_args)
    finally:
        profiler.set_enabled(recording)


def fill(parts: tuple, values: list) -> None:
    """Writes ``values[k]`` into component ``k`` of every active element."""
    dtype = parts[0].dtype.np_dtype
    array = np.asarray(values, dtype=dtype).reshape(len(parts))
    _run(_fill, parts, True, parts, _shared(parts), array)


def to_numpy(parts: tuple) -> np.ndarray:
    """The components' values, shaped ``field.shape + (len(parts),)``; inactive elements
    give zeros."""
    first = parts[0]
    out = np.zeros((*first.shape, len(parts)), dtype=first.dtype.np_dtype)
    _run(_read, parts, False, parts, _shared(parts), out)
    return out


def from_numpy(parts: tuple, array: np.ndarray) -> None:
    """Writes ``array`` (shaped ``field.shape + (len(parts),)``, of the field's type) into
    the active elements."""
    source = np.ascontiguousarray(array, dtype=parts[0].dtype.np_dtype)
    _run(_write, parts, True, parts, _shared(parts), source)


def copy_from(dst, src) -> None:
    """``dst.copy_from(src)`` for scalar and vector/matrix fields: the kinds, element
    shapes and shapes must match, then every index is copied (:func:`copy`)."""
    dst_parts, dst_shape = _parts(dst)
    if type(src) is not type(dst) or _parts(src)[1] != dst_shape:
        what = "scalar field" if dst_shape == () else f"field of element shape {dst_shape}"
        raise TiTypeError(
            f"copy_from: {dst.label} copies from a {what}, got "
            + (src.label if hasattr(src, "label") else type(src).__name__),
            hint="pass a field of the same kind, element shape and shape",
        )
    src_parts = _parts(src)[0]
    dst_parts[0]._materialize()
    src_parts[0]._materialize()
    if src.shape != dst.shape:
        raise TiValueError(
            f"copy_from: {dst.label} of shape {dst.shape} does not match the source "
            f"{src.label} of shape {src.shape}",
            hint="copy between fields of one shape (to_numpy/from_numpy with slicing otherwise)",
        )
    copy(dst_parts, src_parts)


def _parts(field) -> tuple[tuple, tuple[int, ...]]:
    """A field's scalar components and its element shape (``()`` for a scalar field)."""
    if hasattr(field, "components"):
        return tuple(field.components), tuple(field.element_shape)
    return (field,), ()


def copy(dst: tuple, src: tuple) -> None:
    """``dst[idx] = src[idx]`` for every index of the (equal) shapes."""
    for part in src:
        if part._memory.device is not None and _config.current().arch == "cpu":
            before_host_access(part._memory, write=False)
    _run(_copy, dst, True, dst, src, tuple(dst[0].shape))


def deactivate_cells(node) -> None:
    """Deactivates every active cell of a ``pointer``/``bitmasked`` node: each is zeroed
    and the sparse cells inside it become inactive (``ti.deactivate`` in a kernel)."""
    memory = node.builder.tree.memory
    if memory.device is not None and _config.current().arch == "cpu":
        before_host_access(memory, write=True)
    _launch(_deactivate_cells, node)


def active_mask(field) -> np.ndarray:
    """Field-shaped bools: True where every sparse cell on the element's path is active
    (the cells a struct-for over the field visits)."""
    part = field.components[0] if hasattr(field, "components") else field
    part._materialize()
    out = np.zeros(part.shape, dtype=np.uint8)
    _run(_mark, (part,), False, part, out)
    return out.view(bool)


loop_registry.register(sys.modules[__name__])
