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
from ti_notebook.lang import loop_registry
from ti_notebook.lang.field_options import index_offset
from ti_notebook.lang.matrix import Vector
from ti_notebook.lang.ndarray import NdarrayType, template
from ti_notebook.lang.ops import deactivate, grouped, ndrange, static
from ti_notebook.runtime import profiler
from ti_notebook.runtime.memory import before_host_access
from ti_notebook.session import config as _config
from ti_notebook.session.kernel import kernel

_ARRAY = NdarrayType()  # any type and rank: one specialisation per (type, rank)


# Each kernel takes the field itself (scalar, vector or matrix: a template argument the
# offline cache can find its tree from) and ``shape``, its element shape: () for a
# scalar, (n,) for a vector, (n, m) for a matrix. One struct-for visits the cells that
# all components share; a vector/matrix field whose components sit in different SNodes
# runs the scalar loops once per component instead (see _components_apart).
@kernel
def _fill(f: template(), shape: template(), values: _ARRAY):
    for idx in grouped(f):
        if static(len(shape) == 0):
            f[idx] = values[0]
        elif static(len(shape) == 1):
            for p in static(range(shape[0])):
                f[idx][p] = values[p]
        else:
            for p in static(range(shape[0])):
                for q in static(range(shape[1])):
                    f[idx][p, q] = values[p * shape[1] + q]


# ``origin``: the field's ``offset=`` (zeros without one); a struct-for yields the
# user's indices, and element [0, ...] of the array is the field's first one
@kernel
def _read(f: template(), shape: template(), out: _ARRAY, origin: template()):
    for idx in grouped(f):
        at = idx - Vector(origin)
        if static(len(shape) == 0):
            out[at] = f[idx]
        elif static(len(shape) == 1):
            for p in static(range(shape[0])):
                out[at, p] = f[idx][p]
        else:
            for p in static(range(shape[0])):
                for q in static(range(shape[1])):
                    out[at, p, q] = f[idx][p, q]


@kernel
def _write(f: template(), shape: template(), source: _ARRAY, origin: template()):
    for idx in grouped(f):
        at = idx - Vector(origin)
        if static(len(shape) == 0):
            f[idx] = source[at]
        elif static(len(shape) == 1):
            for p in static(range(shape[0])):
                f[idx][p] = source[at, p]
        else:
            for p in static(range(shape[0])):
                for q in static(range(shape[1])):
                    f[idx][p, q] = source[at, p, q]


@kernel
def _copy(dst: template(), src: template(), shape: template(), origins: template()):
    # every index, as Taichi's copy_from: reading an inactive cell gives 0, and writing
    # activates the destination's cell; element k of one is element k of the other
    for idx in grouped(ndrange(*shape)):
        dst[idx + Vector(origins[0])] = src[idx + Vector(origins[1])]


@kernel
def _mark(f: template(), out: _ARRAY, origin: template()):
    for idx in grouped(f):
        out[idx - Vector(origin)] = 1


@kernel
def _deactivate_cells(node: template()):
    for idx in grouped(node):
        deactivate(node, idx)


@kernel
def _empty_lists(node: template()):
    for idx in grouped(node.parent()):  # the lists' cells: inactive ones hold no list
        deactivate(node, idx)


def _element_shape(field) -> tuple[int, ...]:
    return tuple(field.element_shape) if hasattr(field, "components") else ()


def _components_apart(field) -> bool:
    """A vector/matrix field whose components are not all in one SNode's cells."""
    parts = getattr(field, "components", None)
    if not parts:
        return False
    parent = parts[0].snode.parent()
    return any(p.snode.parent() is not parent for p in parts)


def _first(field):
    return field.components[0] if hasattr(field, "components") else field


def _run(compiled_kernel, field, write: bool, *args) -> None:
    memory = _first(field)._memory
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
        entry, runtime_args = compiled_kernel.compiled_for(args)
        entry.launcher.launch(runtime_args)
    finally:
        profiler.set_enabled(recording)


def fill(field, values: list) -> None:
    """Writes ``values`` (one element's components, row-major) into every active
    element."""
    array = np.asarray(values, dtype=_first(field).dtype.np_dtype).reshape(-1)
    if _components_apart(field):
        for component, value in zip(field.components, array, strict=True):
            fill(component, [value])
        return
    _run(_fill, field, True, field, _element_shape(field), array)


def to_numpy(field) -> np.ndarray:
    """The field's values, shaped ``field.shape + element shape``; inactive elements
    give zeros."""
    shape = _element_shape(field)
    if _components_apart(field):
        parts = [to_numpy(component) for component in field.components]
        return np.stack(parts, axis=-1).reshape(field.shape + shape)
    out = np.zeros(field.shape + shape, dtype=_first(field).dtype.np_dtype)
    _run(_read, field, False, field, shape, out, index_offset(field))
    return out


def from_numpy(field, array: np.ndarray) -> None:
    """Writes ``array`` (shaped ``field.shape + element shape``, of the field's type)
    into the active elements."""
    shape = _element_shape(field)
    if _components_apart(field):
        flat = array.reshape(field.shape + (-1,))
        for k, component in enumerate(field.components):
            from_numpy(component, flat[..., k])
        return
    source = np.ascontiguousarray(array, dtype=_first(field).dtype.np_dtype)
    _run(_write, field, True, field, shape, source, index_offset(field))


def copy_from(dst, src) -> None:
    """``dst.copy_from(src)`` for scalar and vector/matrix fields: the kinds, element
    shapes and shapes must match, then every index is copied (``dst[I] = src[I]``)."""
    shape = _element_shape(dst)
    if type(src) is not type(dst) or _element_shape(src) != shape:
        what = "scalar field" if shape == () else f"field of element shape {shape}"
        raise TiTypeError(
            f"copy_from: {dst.label} copies from a {what}, got "
            + (src.label if hasattr(src, "label") else type(src).__name__),
            hint="pass a field of the same kind, element shape and shape",
        )
    _first(dst)._materialize()
    _first(src)._materialize()
    if src.shape != dst.shape:
        raise TiValueError(
            f"copy_from: {dst.label} of shape {dst.shape} does not match the source "
            f"{src.label} of shape {src.shape}",
            hint="copy between fields of one shape (to_numpy/from_numpy with slicing otherwise)",
        )
    memory = _first(src)._memory
    if memory.device is not None and _config.current().arch == "cpu":
        before_host_access(memory, write=False)
    if dst.shape == ():  # one element (an empty ndrange is no loop)
        dst[None] = src[None]
        return
    origins = (index_offset(dst), index_offset(src))
    _run(_copy, dst, True, dst, src, tuple(dst.shape), origins)


def deactivate_cells(node) -> None:
    """Deactivates every active cell of a ``pointer``/``bitmasked`` node (each is zeroed
    and the sparse cells inside it become inactive: ``ti.deactivate`` in a kernel), or
    empties every list of a ``dynamic`` node."""
    memory = node.builder.tree.memory
    if memory.device is not None and _config.current().arch == "cpu":
        before_host_access(memory, write=True)
    _launch(_empty_lists if node.kind == "dynamic" else _deactivate_cells, node)


def active_mask(field) -> np.ndarray:
    """Field-shaped bools: True where every sparse cell on the element's path is active
    (the cells a struct-for over the field visits)."""
    part = _first(field)
    part._materialize()
    out = np.zeros(part.shape, dtype=np.uint8)
    _run(_mark, part, False, part, out, index_offset(part))
    return out.view(bool)


loop_registry.register(sys.modules[__name__])
