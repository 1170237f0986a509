"""Gradient and dual fields: ``needs_grad=True`` / ``needs_dual=True`` and their placement.

A field declared with ``needs_grad=True`` has ``x.grad``, a field of the same shape,
type and layout that the grad kernels (``kernel.grad()``, ``ti.ad.Tape``) accumulate
into; ``needs_dual=True`` gives ``x.dual`` for forward mode (``ti.ad.FwdMode``). Unless
the program places ``x.grad`` itself (``ti.root.dense(ti.i, n).place(x.grad)``), it
goes beside its primal, in the same SNode, when the tree is finalised (Taichi's
``lazy_grad``):

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=4, needs_grad=True)
    >>> x.grad.shape, x.grad.dtype, x.grad.name
    ((4,), f32, 'x.grad')
    >>> x.grad.layout().address((1,)) - x.layout().address((1,))
    4

As in Taichi, every float field has ``x.grad``, placed only where the program places
it when declared without ``needs_grad``; an integer field has none:

    >>> y = ti.field(ti.i32, shape=4)
    >>> try:
    ...     y.grad
    ... except AttributeError as error:
    ...     print(error.message)
    field 'y' has no gradient field
"""

from __future__ import annotations

from ti_notebook.errors import TiAttributeError

_KINDS = ("grad", "dual")


def attach(field, needs_grad: bool = False, needs_dual: bool = False) -> None:
    """Gives the scalar ``field`` (or each component of a vector/matrix/struct field) the
    gradient and dual fields asked for, to be placed beside it (:func:`place_pending`).

    >>> import ti_notebook as ti
    >>> x = ti.field(ti.f64)
    >>> attach(x, needs_grad=True)
    >>> x.grad.name, x.grad._snode, x.grad.auto_place
    ('x.grad', None, True)
    """
    parents = {}  # each SNode once: placing scans all its children (16,384 of a 128x128)
    for component in getattr(field, "components", None) or [field]:
        for kind, wanted in zip(_KINDS, (needs_grad, needs_dual), strict=True):
            if wanted:
                _adjoint(component, kind).auto_place = True
        leaf = component._snode
        if leaf is not None and leaf.builder.tree is None:  # placed by shape=: beside it now
            parents.setdefault(id(leaf._parent), leaf)
    for leaf in parents.values():
        place_pending(leaf)


def _adjoint(component, kind: str):
    """The component's gradient (dual) field, made on first use; as in Taichi every float
    field has one, placed automatically only when declared with needs_grad/needs_dual."""
    adjoint = getattr(component, f"_{kind}", None)
    if adjoint is None:
        # the component's own class: this module imports no field module
        adjoint = type(component)(component.dtype, f"{component.name}.{kind}")
        adjoint.is_adjoint = True
        adjoint.primal = component
        adjoint.auto_place = False
        setattr(component, f"_{kind}", adjoint)
    return adjoint


def take_options(options: dict) -> tuple[bool, bool]:
    """Removes ``needs_grad`` and ``needs_dual`` from a declaration's keywords; returns them.

    >>> options = {"needs_grad": True, "layout": None}
    >>> take_options(options), options
    ((True, False), {'layout': None})
    """
    return bool(options.pop("needs_grad", False)), bool(options.pop("needs_dual", False))


def attached(field, adjoint: tuple[bool, bool]):
    """``field`` after :func:`attach` with ``adjoint`` (``(needs_grad, needs_dual)``)."""
    attach(field, *adjoint)
    return field


def adjoint_of(field, kind: str):
    """``field.grad`` (``kind="grad"``) or ``field.dual``: the scalar field's own, or a
    vector/matrix/struct field made of its components' ones. Integer fields have none."""
    components = getattr(field, "components", None)
    if any(
        getattr(c, f"_{kind}", None) is None and not c.dtype.is_float for c in components or [field]
    ):
        raise _missing(field, kind)
    if components is None:
        return _adjoint(field, kind)
    view = getattr(field, f"_{kind}_view", None)
    if view is None:
        for component in components:
            _adjoint(component, kind)
        view = _compound_view(field, kind)
        setattr(field, f"_{kind}_view", view)
    return view


def _missing(field, kind: str) -> TiAttributeError:
    option = "needs_grad" if kind == "grad" else "needs_dual"
    return TiAttributeError(
        f"{field.label} has no {'gradient' if kind == 'grad' else 'dual'} field",
        hint=f"declare it with {option}=True",
    )


def _compound_view(field, kind: str):
    """The vector/matrix/struct field whose components are ``field``'s components'
    gradient (or dual) fields: same element type, same names with ``.grad``."""
    if hasattr(field, "is_vector"):  # a vector/matrix field
        view = type(field).__new__(type(field))
        view.__dict__.update(field.__dict__)
        view.name = f"{field.name}.{kind}"
        view.components = [getattr(c, f"_{kind}") for c in field.components]
        for k in _KINDS:
            view.__dict__.pop(f"_{k}_view", None)
        for component in view.components:
            component.owner = view
        return view
    if hasattr(field, "struct_type"):
        members = {key: adjoint_of(member, kind) for key, member in field.members.items()}
        return type(field)(members, field.struct_type, f"{field.name}.{kind}")
    raise _missing(field, kind)


def place_pending(node, lazy: str | None = None) -> None:
    """Places, beside its primal (in the same SNode), every gradient or dual field of a
    field placed under ``node`` that the program did not place itself: what finalising a
    tree does. ``lazy="grad"`` (``ti.root.lazy_grad()``; ``"dual"``: ``lazy_dual``)
    also places the gradient of every float field there declared without
    ``needs_grad``, as Taichi's does."""
    if node.kind == "place":
        node = node._parent
    stack = [node]
    while stack:
        current = stack.pop()
        for child in list(current.children):
            if child.kind != "place":
                stack.append(child)
                continue
            primal = child.field
            if lazy and primal.dtype.is_float and not getattr(primal, "is_adjoint", False):
                _adjoint(primal, lazy).auto_place = True
            for kind in _KINDS:
                adjoint = getattr(child.field, f"_{kind}", None)
                if adjoint is not None and adjoint._snode is None and adjoint.auto_place:
                    leaf = type(current)(current.builder, "place", current)
                    leaf.field = adjoint
                    leaf.index_offset = getattr(child, "index_offset", ())  # x's indices
                    adjoint._snode = leaf
                    current.children.append(leaf)


def place_with_primal(adjoint) -> bool:
    """Finalises the tree of an unplaced gradient's primal (placing the gradient beside
    it) when the primal is placed; False when there is nothing to do."""
    primal = getattr(adjoint, "primal", None)
    if primal is None or primal._snode is None or not adjoint.auto_place:
        return False
    primal._materialize()
    return adjoint._snode is not None


def gradient_fields(trees, kind: str = "grad") -> list:
    """The placed, live gradient (or dual) fields of ``trees`` (``ti.ad.clear_all_gradients``)."""
    found = []
    for tree in trees:
        if tree.destroyed:
            continue
        for f in tree.fields:
            if getattr(f, "is_adjoint", False) and f.name.endswith("." + kind):
                found.append(f)
    return found
