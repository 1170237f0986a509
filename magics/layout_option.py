"""``%%kernel --show layout``: the layout view of the fields each kernel of the cell touches.

Which fields a kernel touches is read from its compiled report: every task lists the
fields it reads or writes (``traffic``, the memory-traffic analysis), by name; a
vector, matrix or struct field is listed per component (``v[0]``, ``s.mass``). The names
are looked up in the notebook's namespace (by variable, else by the field's own
``name``), and the fields found are shown with
``ti_notebook.widgets.layout(*fields, loop=kernel)``, so the slider steps through the
order that kernel's loop visits them. A vector, matrix or struct field is shown as its
components (``v[0]``, ``v[1]``...: one button each, and the byte strip shows how they
interleave). A field only inside a container is not found; such a cell can call
``layout(...)`` itself.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(8, 8))
    >>> @ti.kernel
    ... def fill():
    ...     for i, j in x:
    ...         x[i, j] = i
    >>> [f.name for f in touched_fields(fill.report, {"x": x, "y": 3})]
    ['x']
    >>> v = ti.Vector.field(2, ti.f32, shape=8)
    >>> @ti.kernel
    ... def grow():
    ...     for i in v:
    ...         v[i] += 1
    >>> [f.name for f in touched_fields(grow.report, {"v": v})]
    ['v[0]', 'v[1]']
"""

from __future__ import annotations

import ti_notebook as ti
import ti_notebook.widgets as widgets

_COMPOSITE = (ti.MatrixField, ti.StructField)


def touched_fields(report, namespace: dict) -> list:
    """The ``ti.Field`` objects named in ``report``'s traffic, in order, found in
    ``namespace``; a vector, matrix or struct field gives all its components."""
    found: dict[int, object] = {}
    by_name: dict[str, object] | None = None
    for task in report.tasks:
        for entry in task.traffic:
            # "v[1]" is a component of v, "s.mass" a member of s
            base = entry.name.split("[", 1)[0].split(".", 1)[0]
            value = namespace.get(entry.name, namespace.get(base))
            if not isinstance(value, (ti.Field, *_COMPOSITE)):
                if by_name is None:  # a field bound to a variable of another name
                    by_name = _fields_by_own_name(namespace)
                value = by_name.get(entry.name, by_name.get(base))
            for field in _parts(value):
                found.setdefault(id(field), field)
    return list(found.values())


def _fields_by_own_name(namespace: dict) -> dict:
    fields = {}
    for value in list(namespace.values()):
        if isinstance(value, (ti.Field, *_COMPOSITE)):
            fields.setdefault(value.name, value)
    return fields


def _parts(value) -> list:
    if isinstance(value, ti.Field):
        return [value]
    if isinstance(value, _COMPOSITE):
        return [c for c in value.components if isinstance(c, ti.Field)]
    return []


def layout_views(kernels: dict, stages: dict, namespace: dict) -> list:
    """One layout view per kernel that touches named fields (compiled kernels only);
    a line on stderr for the others is the caller's to print: returns (name, view|None)."""
    views = []
    for name, kernel_stages in stages.items():
        if kernel_stages is None:
            views.append((name, None))
            continue
        fields = touched_fields(kernel_stages["report"], namespace)
        views.append((name, widgets.layout(*fields, loop=kernels[name]) if fields else None))
    return views
