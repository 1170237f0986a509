"""How fields and ndarrays print in Python scope: what they are, then their values.

``repr`` is one line with the name (when it has one), the shape and the dtype (``n``
and ``m`` for vector and matrix fields), close to how Taichi declares them and NumPy
shows an array's ``shape``/``dtype``; ``str`` (what ``print`` shows) adds the values,
as Taichi's ``print(x)`` and NumPy's do, for a field whose memory exists and holds at
most :data:`VALUES_UP_TO` numbers. Printing never allocates a field that is not yet
(that would fix the tree's layout before the user has declared every field in it).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> counts = ti.field(ti.i32, shape=4)
    >>> counts
    <ti.field 'counts': shape=(4,), dtype=i32>
    >>> counts.fill(2)
    >>> print(counts)
    <ti.field 'counts': shape=(4,), dtype=i32>
    [2 2 2 2]
    >>> ti.Vector.field(3, ti.f32, shape=(2, 8))
    <ti.Vector.field: n=3, shape=(2, 8), dtype=f32>
"""

from __future__ import annotations

import numpy as np

# NumPy's own threshold for printing every element (np.get_printoptions()["threshold"])
VALUES_UP_TO = 1000
_UNNAMED = ("field", "struct", "")


def field_repr(field) -> str:
    """One line: ``<ti.Matrix.field 'm': n=2, m=2, shape=(4,), dtype=f32>``."""
    kind, extra, dtype = _kind(field)
    name = getattr(field, "name", "")
    named = f" '{name}'" if name not in _UNNAMED else ""
    parts = [*extra, f"shape={_shape_text(field)}", f"dtype={dtype}"]
    return f"<{kind}{named}: {', '.join(parts)}>"


def field_str(field) -> str:
    """``field_repr`` and, for a small field whose memory exists, its values."""
    head = field_repr(field)
    values = _values(field)
    return head if values is None else f"{head}\n{values}"


def ndarray_repr(array) -> str:
    """``<ti.ndarray: shape=(8,), dtype=f32, element_shape=(3,)>``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> ti.ndarray(ti.types.vector(3, ti.f32), shape=8)
    <ti.ndarray: shape=(8,), dtype=f32, element_shape=(3,)>
    """
    element = f", element_shape={array.element_shape}" if array.element_shape else ""
    return f"<ti.ndarray: shape={array.shape}, dtype={array.dtype}{element}>"


def ndarray_str(array) -> str:
    """``ndarray_repr`` and, for at most :data:`VALUES_UP_TO` numbers, the values."""
    head = ndarray_repr(array)
    if int(np.prod(array.shape + array.element_shape, dtype=np.int64)) > VALUES_UP_TO:
        return head
    return f"{head}\n{array.to_numpy()}"


def _kind(field) -> tuple[str, list[str], str]:
    """(``ti.field``-like name, the n/m words, the dtype's text)."""
    if hasattr(field, "struct_type"):
        return "ti.Struct.field", [], repr(field.struct_type)
    if hasattr(field, "is_vector"):
        if field.is_vector:
            return "ti.Vector.field", [f"n={field.n}"], str(field.dtype)
        return "ti.Matrix.field", [f"n={field.n}", f"m={field.m}"], str(field.dtype)
    return "ti.field", [], str(field.dtype)


def _scalar_fields(field) -> list:
    return list(getattr(field, "components", None) or [field])


def _shape_text(field) -> str:
    try:
        return str(tuple(field.shape))
    except Exception:  # not placed yet: printing must not raise
        return "? (not placed yet)"


def _values(field) -> str | None:
    scalars = _scalar_fields(field)
    for scalar in scalars:  # allocated and alive: reading it changes nothing
        tree = getattr(scalar, "_tree", None)
        if getattr(scalar, "_layout", None) is None or tree is None or tree.destroyed:
            return None
    try:
        count = len(scalars) * int(np.prod(field.shape, dtype=np.int64))
        if count > VALUES_UP_TO:
            return None
        values = field.to_numpy()
    except Exception:  # a field that cannot be read shows what it is, not an error
        return None
    if isinstance(values, dict):  # a struct field: one array per member
        return "\n".join(f"{key}: {value}" for key, value in values.items())
    return str(values)
