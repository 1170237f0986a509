"""Taichi's declaration options of fields: ``offset=``, ``order=``, ``layout=``, ``ndim=``.

``ti.field``, ``ti.Vector.field``, ``ti.Matrix.field`` and ``ti.Struct.field`` take them
with a ``shape``; each is a way of building the SNode tree that ``shape=`` stands for
(``lang/field_placement.py`` builds it):

- ``offset=(-2, -2)``: ``place(x, offset=(-2, -2))``; the field is indexed from the
  offset (``x[-2, -2]`` is its first element, a struct-for yields such indices), and
  code subtracts it before the plan's address arithmetic. Its shape, its memory and
  ``to_numpy()`` (whose ``[0, 0]`` is ``x[-2, -2]``) do not change.
- ``order="ji"``: one ``dense`` per axis, in that order, outermost first:
  ``ti.root.dense(ti.j, n).dense(ti.i, m).place(x)``; still indexed ``x[i, j]``.
- ``layout=ti.Layout.SOA``: each component (a struct's: each member) in its own
  ``dense``, instead of all of an element's components in one cell (``AOS``).
- ``ndim=``: the element's dimensionality (1: vector, 2: matrix), as Taichi's.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=(4, 4), offset=(-2, -2))
    >>> x[-2, -2] = 7
    >>> x.shape, x.to_numpy()[0, 0].item(), index_offset(x)
    ((4, 4), 7, (-2, -2))
    >>> y = ti.field(ti.f32, shape=(2, 3), order="ji")
    >>> y.layout().address((1, 0)), y.layout().address((0, 1))  # column-major
    (4, 8)
"""

from __future__ import annotations

import dataclasses
import enum
import numbers

from ti_notebook.errors import TiTypeError, TiValueError

__all__ = ["FieldOptions", "Layout", "element_ndim", "index_offset", "leaf_offset", "take"]


class Layout(enum.IntEnum):
    """``ti.Layout``: where a vector/matrix/struct field's components live.

    ``AOS`` (the default): an element's components side by side in one cell; ``SOA``:
    one array per component. Taichi's values (``AOS`` 0, ``SOA`` 1).

        >>> Layout.SOA, int(Layout.AOS)
        (<Layout.SOA: 1>, 0)
    """

    AOS = 0
    SOA = 1


@dataclasses.dataclass(frozen=True)
class FieldOptions:
    """A declaration's layout options, checked (see :func:`take`).

    ``order`` holds axis numbers outermost first (``"ji"``: ``(1, 0)``), ``offset`` one
    integer per axis; None where not given.
    """

    what: str = "ti.field"
    offset: tuple[int, ...] | None = None
    order: str | None = None
    layout: Layout = Layout.AOS

    def axes_for(self, shape: tuple[int, ...]) -> tuple[int, ...] | None:
        """The axis numbers of ``order`` checked against ``shape`` (None: no order).

        >>> FieldOptions(order="kij").axes_for((2, 3, 4))
        (2, 0, 1)
        """
        if self.order is None:
            return None
        order, dim = self.order, len(shape)
        if len(order) != dim or len(set(order)) != dim or any(c not in "ijkl"[:dim] for c in order):
            raise TiValueError(
                f"{self.what}(order={order!r}) does not fit a shape of {dim} axes {shape}",
                hint=f"give each of the axes {'ijkl'[:dim]!r} once, e.g. order="
                f"{'ijkl'[:dim][::-1]!r} for the reverse",
            )
        return tuple("ijkl".index(c) for c in order)


def _offset_tuple(offset, what: str) -> tuple[int, ...] | None:
    if offset is None:
        return None
    items = tuple(offset) if isinstance(offset, (tuple, list)) else (offset,)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
        raise TiTypeError(
            f"{what}(offset={offset!r}): an offset is one integer per axis",
            hint="e.g. offset=(-2, -2) for a 2-D field",
        )
    return tuple(int(v) for v in items)


def take(what: str, options: dict, shape=None) -> FieldOptions:
    """Removes the layout options from a declaration's keywords and checks them; any
    other keyword left is an error, as for a Python function.

        >>> take("ti.field", {"offset": -1}, shape=4)
        FieldOptions(what='ti.field', offset=(-1,), order=None, layout=<Layout.AOS: 0>)
        >>> try:
        ...     take("ti.field", {"offset": (1, 2)})
        ... except ValueError as error:
        ...     print(error.message)
        ti.field(offset=(1, 2)) needs a shape
    """
    offset = _offset_tuple(options.pop("offset", None), what)
    order = options.pop("order", None)
    layout = options.pop("layout", None)
    for key in options:
        raise TypeError(f"{what}() got an unexpected keyword argument {key!r}")
    if layout is None:
        layout = Layout.AOS
    elif not isinstance(layout, (Layout, int)) or int(layout) not in (0, 1):
        raise TiTypeError(
            f"{what}(layout={layout!r}): a layout is ti.Layout.AOS or ti.Layout.SOA",
        )
    if order is not None and not isinstance(order, str):
        raise TiTypeError(f"{what}(order={order!r}): an order is a string such as 'ji'")
    for key, value in (("offset", offset), ("order", order)):
        if value is not None and shape is None:
            raise TiValueError(
                f"{what}({key}={value!r}) needs a shape",
                hint=f"give shape=..., or place the field yourself: "
                f"ti.root.dense(ti.ij, (m, n)).place(x{', offset=...' if key == 'offset' else ''})",
            )
    return FieldOptions(what, offset, order, Layout(int(layout)))


def leaf_offset(node, offset) -> tuple[int, ...]:
    """``node.place(..., offset=offset)``: the offset checked against the node's axes
    (empty when there is none, or it is all zeros)."""
    items = _offset_tuple(offset, "place")
    if not items or not any(items):
        return ()
    ndim = len(node.shape) if node.kind != "root" else 0
    if len(items) != ndim:
        raise TiValueError(
            f"offset {items} has {len(items)} axes, but the fields placed here have {ndim}"
            + (f" (shape {node.shape})" if ndim else ""),
            hint="give one offset per axis of the field",
        )
    return items


def index_offset(field) -> tuple[int, ...]:
    """The user's index of a field's first element on each axis (zeros without an
    offset); a vector/matrix/struct field's is its components'."""
    parts = getattr(field, "components", None)
    first = parts[0] if parts else field
    first._materialize()
    return first.layout().origin


def element_ndim(what: str, n: int, m: int | None, ndim) -> int | None:
    """``ndim=`` of ``ti.Matrix.field``/``ti.Vector.field``: 1 makes a vector field (of
    ``n x 1`` entries), 2 a matrix field; the ``m`` to build it with.

        >>> element_ndim("ti.Matrix.field", 3, 1, 1), element_ndim("ti.Matrix.field", 3, 1, None)
        (None, 1)
    """
    if ndim is None:
        return m
    if ndim not in (1, 2):
        raise TiValueError(f"{what}(ndim={ndim!r}): an element is a vector (1) or a matrix (2)")
    if ndim == 2:
        if m is None:
            raise TiValueError(
                f"{what}(ndim=2): a vector field's elements are 1-D",
                hint="use ti.Matrix.field(n, m, dtype, ...) for matrices",
            )
        return m
    if m not in (None, 1):
        raise TiValueError(
            f"{what}(ndim=1) with {m} columns: a vector has one",
            hint=f"use ti.Vector.field({n}, dtype, ...), or drop ndim for a {n} x {m} matrix",
        )
    return None
