"""``shape=`` of a field declaration: the SNode tree it stands for, as the options say.

``ti.field(dtype, shape)`` is ``ti.root.dense(axes, shape).place(x)``; ``order=`` makes
one ``dense`` per axis in that order, ``layout=ti.Layout.SOA`` one per component, and
``offset=`` goes to ``place`` (``lang/field_options.py`` checks them).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector.field(2, ti.f32, shape=(2, 3), order="ji", layout=ti.Layout.SOA)
    >>> [n.kind for n in v.components[1].snode.path()], v.components[1].layout().strides
    (['dense', 'dense'], (4, 8))
"""

from __future__ import annotations

from ti_notebook.errors import TiValueError
from ti_notebook.lang import autodiff
from ti_notebook.lang import snode as _snode
from ti_notebook.lang.field_options import FieldOptions, Layout

__all__ = ["place"]


def place(field, shape: tuple[int, ...], options: FieldOptions | None = None) -> None:
    """``shape=`` of a declaration: ``ti.root.dense(axes, shape).place(field)`` as the
    options say (one ``dense`` per axis for ``order``, one per component for ``SOA``)."""
    options = options or FieldOptions()
    if shape == ():
        if options.offset not in (None, ()):
            raise TiValueError(
                f"{options.what}(offset={options.offset!r}): a 0-D field has no axes to offset"
            )
        groups = _groups(field, options)
        for group in groups:
            autodiff.place_pending(_snode.root.place(group))
        return
    if options.offset is not None and len(options.offset) != len(shape):
        raise TiValueError(
            f"{options.what}: offset {options.offset} has {len(options.offset)} axes, "
            f"shape {shape} has {len(shape)}",
            hint="give one offset per axis",
        )
    order = options.axes_for(shape)
    for group in _groups(field, options):
        node = _snode.root
        if order is None:
            node = node.dense(tuple(_snode.Axis(a) for a in range(len(shape))), shape)
        else:
            for a in order:  # outermost first, as Taichi's order
                node = node.dense(_snode.Axis(a), shape[a])
        # x.grad beside x at once, as Taichi does for shape=
        autodiff.place_pending(node.place(group, offset=options.offset))


def _groups(field, options: FieldOptions) -> list:
    """What one ``place`` call takes: the whole field (AoS), or each component, a
    struct's each member (SoA)."""
    if options.layout == Layout.AOS:
        return [field]
    members = getattr(field, "_members", None)
    if members is not None:
        return list(members.values())
    return list(getattr(field, "components", [field]))
