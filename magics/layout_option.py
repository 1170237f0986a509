"""``%%kernel --show layout``: the layout view of the fields each kernel of the cell touches.

Which fields a kernel touches is read from its compiled report: every task lists the
fields it reads or writes (``traffic``, the memory-traffic analysis), by name; the names
are looked up in the notebook's namespace, and the ones bound to a ``ti.Field`` are shown
with ``ti_notebook.widgets.layout(*fields, loop=kernel)``, so the slider steps through
the order that kernel's loop visits them. A field known under another name (or only
inside a container) is not found; such a cell can call ``layout(...)`` itself.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(8, 8))
    >>> @ti.kernel
    ... def fill():
    ...     for i, j in x:
    ...         x[i, j] = i
    >>> [f.name for f in touched_fields(fill.report, {"x": x, "y": 3})]
    ['x']
"""

from __future__ import annotations

import ti_notebook as ti
import ti_notebook.widgets as widgets


def touched_fields(report, namespace: dict) -> list:
    """The ``ti.Field`` objects of ``namespace`` named in ``report``'s traffic, in order."""
    found: dict[int, object] = {}
    for task in report.tasks:
        for entry in task.traffic:
            value = namespace.get(entry.name)
            if isinstance(value, ti.Field):
                found.setdefault(id(value), value)
    return list(found.values())


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
