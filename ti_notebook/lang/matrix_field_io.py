"""A vector/matrix field's host-side I/O: ``to_numpy``, ``from_numpy``, ``fill``, and
the components of one element ``v[i]``.

A dense field whose components lie in one cell is read and written as one strided NumPy
view of all of them (``element_views.py``), copied by the host's threads; a sparse field,
or one whose components are placed apart, goes through one compiled loop over all its
components (``loop_registry``), which reads an inactive cell as zero and writes the active
cells only, as Taichi's do. The :class:`~ti_notebook.lang.matrix.MatrixField` methods of
the same names call these, and a live element (``v[i]``) reads and writes its components
through :func:`element_entries` and :func:`store_components`:

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector.field(2, ti.i32, shape=3)
    >>> fill(v, [1, 2])
    >>> from_numpy(v, np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32))
    >>> to_numpy(v).tolist(), element_values(v, 7)
    ([[1, 2], [3, 4], [5, 6]], [7, 7])
    >>> store_components(v, (1,), 0, 9)
    >>> element_entries(v, (1,)).tolist()
    [9, 4]
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiIndexError, TiValueError
from ti_notebook.lang import element_views, exact_numbers, loop_registry
from ti_notebook.lang import settings as _settings
from ti_notebook.runtime import host_copy
from ti_notebook.runtime.memory import before_view_access, writing_every_element

__all__ = [
    "element_entries",
    "element_values",
    "fill",
    "from_numpy",
    "store_components",
    "to_numpy",
]


def to_numpy(field, dtype=None) -> np.ndarray:
    """A copy of ``field``'s elements, of shape ``shape + element_shape``."""
    view = _combined_view(field)
    if view is not None:  # one strided copy, after the device copy of its bytes
        before_view_access(field.components[0]._memory, False, view)
        return host_copy.copy_out(view, dtype, _settings.current().num_threads)
    # sparse or split layouts: one compiled loop, zeros for inactive cells
    values = loop_registry.loops().to_numpy(field)
    return values.astype(dtype) if dtype is not None else values


def from_numpy(field, array) -> None:
    """Writes ``array`` (of shape ``shape + element_shape``) into ``field``."""
    array = exact_numbers.as_array(array, field.dtype, field.label)
    expected = field.shape + field.element_shape
    if array.shape != expected:
        raise TiValueError(
            f"from_numpy: array of shape {array.shape} does not match {field.label} "
            f"of shape {expected}"
        )
    view = _combined_view(field)
    if view is not None:
        with writing_every_element(field.components[0]._memory, view):
            host_copy.copy_into(view, array, _settings.current().num_threads)
        return
    loop_registry.loops().from_numpy(field, array)


def fill(field, value) -> None:
    """Sets every element of ``field`` to ``value`` (a number, list or vector)."""
    items = element_values(field, value)
    first = field.components[0]
    first._materialize()
    if first._view is None:  # sparse or split: one compiled loop for all components
        loop_registry.loops().fill(field, items)
        return
    view = _combined_view(field)
    if view is None:  # components apart: each its own view
        for component, item in zip(field.components, items, strict=True):
            component.fill(item)
        return
    with writing_every_element(first._memory, view):
        view[...] = np.asarray(items, dtype=view.dtype).reshape(field.element_shape)


def element_values(field, value) -> list:
    """One element's components from a number, list or vector, in the field's type."""
    array = exact_numbers.typed_array(value, field.dtype, field.label)
    try:
        return np.broadcast_to(array, field.element_shape).reshape(-1).tolist()
    except ValueError:
        raise TiValueError(
            f"cannot write a value of shape {array.shape} into an element of {field.label} "
            f"of shape {field.element_shape}"
        ) from None


def element_entries(field, key: tuple[int, ...]) -> np.ndarray:
    """The current components of ``field``'s element at ``key``, of ``element_shape``."""
    values = [c[key] for c in field.components]
    return np.array(values, dtype=field.dtype.np_dtype).reshape(field.element_shape)


def store_components(field, key: tuple[int, ...], index, value) -> None:
    """Writes ``value`` into the components ``index`` selects (``v[i][k] = s``) of
    ``field``'s element at ``key``."""
    numbers = np.arange(len(field.components)).reshape(field.element_shape)
    try:
        selected = np.asarray(numbers[index])
    except (IndexError, TypeError) as exc:
        raise TiIndexError(
            f"index {index!r} does not select from an element of {field.label} of "
            f"shape {field.element_shape}: {exc}",
            hint="use v[i][k] for a vector, m[i][r, c] for a matrix",
        ) from None
    array = exact_numbers.typed_array(value, field.dtype, field.label)
    try:
        values = np.broadcast_to(array, selected.shape)
    except ValueError:
        raise TiValueError(
            f"cannot write a value of shape {array.shape} into {selected.shape} "
            f"components of {field.label}"
        ) from None
    for k, item in zip(selected.reshape(-1), values.reshape(-1).tolist(), strict=True):
        field.components[k][key] = item


def _combined_view(field):
    """All components as one view (``element_views.py``), or None."""
    return element_views.combined_view(field.components, field.element_shape)
