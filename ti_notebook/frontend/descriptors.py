"""The IR's descriptors of live fields and SNodes, made as the kernel is traced.

The IR refers to :class:`~ti_notebook.ir.refs.FieldRef` / ``NodeRef`` (name, type,
memory plan), never to the user's objects; the frontend keeps the live objects where it
needs them (``state.captured`` for the cache, templates). One live object gives the
same descriptor while its plan stays the same.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=(2, 3))
    >>> ref = field_ref(x)
    >>> ref.name, ref.shape, ref.layout() is x.layout(), field_ref(x) is ref
    ('x', (2, 3), True, True)
"""

from __future__ import annotations

import weakref

from ti_notebook.ir.refs import FieldRef, NodeRef
from ti_notebook.lang.snode import SNode

_made: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def field_ref(field) -> FieldRef:
    """The descriptor of a placed scalar field (its plan is computed if it was not)."""
    layout = field.layout()
    ref = _made.get(field)
    same = ref is not None and ref.plan is layout
    adjoints = {kind: _adjoint_ref(field, kind) for kind in ("grad", "dual")}
    same = same and all(getattr(ref, kind) is adjoints[kind] for kind in adjoints)
    if not (same and ref.name == field.name and ref.label == field.label):
        path = tuple(node_ref(node) for node in field.snode.path())
        ref = FieldRef(field.name, field.label, field.dtype, layout, path, **adjoints)
        _made[field] = ref
    return ref


def _adjoint_ref(field, kind: str) -> FieldRef | None:
    """The descriptor of ``field.grad`` / ``field.dual`` where it is placed and usable."""
    adjoint = getattr(field, f"_{kind}", None)
    if adjoint is None or adjoint._snode is None:
        return None
    try:
        return field_ref(adjoint)
    except Exception:  # its tree is not finalised: the grad kernels skip it
        return None


def node_ref(snode) -> NodeRef:
    """The descriptor of an SNode level (not the root, not a place node).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> blk = ti.root.pointer(ti.i, 4)
    >>> blk.dense(ti.i, 8).place(x)
    <ti.SNode dense>
    >>> ref = node_ref(blk)
    >>> ref.name, ref.shape, len(ref.sparse_below)
    ('pointer(i)', (4,), 0)
    """
    layout = snode.layout()
    ref = _made.get(snode)
    if ref is None or ref.plan is not layout:
        below = tuple(n.level_plan for n in snode.sparse_subtree() if n is not snode)
        ref = NodeRef(snode.name, snode.kind, tuple(snode.shape), layout, below)
        _made[snode] = ref
    return ref


def describe(value):
    """``value``'s descriptor, a field's or an SNode's. A field or node that cannot be
    used (unplaced, unfinalized, destroyed) raises the error its ``layout()`` raises,
    as compiling it did when the IR held the live object."""
    return node_ref(value) if isinstance(value, SNode) else field_ref(value)
