"""Taichi's data-layout language: ``ti.root.dense(...).place(...)`` and FieldsBuilder.

A layout is a tree of SNodes: ``dense``, ``pointer`` and ``bitmasked`` levels that split
index axes, and ``place`` leaves that hold fields. Finalising a tree computes its
memory plan (``plan/layout.py``) and reserves its memory (``lang/snode_tree.py``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32)
    >>> ti.root.dense(ti.j, 3).dense(ti.i, 2).place(x)  # column-major 2 x 3
    <ti.SNode dense>
    >>> x.layout().address((1, 0)), x.layout().address((0, 1))
    (4, 8)
"""

from __future__ import annotations

from ti_notebook.errors import TiRuntimeError, TiTypeError, TiValueError
from ti_notebook.lang.snode_tree import SPARSE_KINDS, SNodeTree
from ti_notebook.lang.validate import extents
from ti_notebook.plan import build as _layout
from ti_notebook.plan import layout as _plan
from ti_notebook.plan import tree as _tree


class Axis:
    """An index axis: ``ti.i`` is axis 0, ``ti.j`` axis 1..."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return "ijkl"[self.index]


i, j, k, l = Axis(0), Axis(1), Axis(2), Axis(3)  # noqa: E741 - Taichi's names
ij, ik, jk = (i, j), (i, k), (j, k)
ijk, ijkl = (i, j, k), (i, j, k, l)


def axes(*indices: int) -> tuple[Axis, ...]:
    """The axes numbered ``indices``, as Taichi's ``ti.axes`` gives them (0 is ``ti.i``).

    >>> axes(1, 2)
    (j, k)
    """
    if not all(isinstance(n, int) and 0 <= n < 4 for n in indices):
        raise TiValueError(f"ti.axes takes axis numbers 0 to 3 (ti.i to ti.l), got {indices!r}")
    return tuple(Axis(n) for n in indices)


def _axes_name(axes: tuple[int, ...]) -> str:
    return "ti." + "".join("ijkl"[a] for a in axes)


def _axes(axes) -> tuple[int, ...]:
    axes = axes if isinstance(axes, (tuple, list)) else (axes,)
    if not all(isinstance(a, Axis) for a in axes):
        raise TiTypeError(f"axes must be ti.i, ti.j, ti.ij..., got {axes!r}")
    found = tuple(a.index for a in axes)
    if len(set(found)) != len(found):
        raise TiValueError(f"an axis appears twice in {axes!r}")
    return found


class SNode:
    """One node of a layout tree."""

    def __init__(self, builder, kind: str, parent=None, axes=(), extents=()) -> None:
        self.builder = builder
        self.kind = kind
        self._parent = parent
        # the axes as written (ti.j is 1); ``axes`` numbers them as the field indexes them
        self.declared_axes: tuple[int, ...] = axes
        self._ranks: dict[int, int] | None = None  # on a subtree's top node: axis -> index
        self.extents: tuple[int, ...] = extents
        self.children: list[SNode] = []
        self.field = None  # place nodes only
        self.level_plan: _plan.LevelPlan | None = None
        # what the plan computes from, and writes its sizes into, once the tree is
        # finalised (lang/snode_tree.py: described)
        self._plan_node: _layout.PlanNode | None = None

    # -- building ----------------------------------------------------------------------
    def _child(self, kind: str, axes, dimensions) -> SNode:
        self.builder._check_open()
        axes = _axes(axes)
        what = f"{kind}({_axes_name(axes)}, {dimensions!r})"
        if self.kind == "dynamic":
            raise TiValueError(
                f"{what} under a dynamic node: a dynamic node holds fields only",
                hint="make the dynamic level the innermost one and place the fields in it, "
                "e.g. ti.root.dense(ti.i, n).dynamic(ti.j, m).place(x)",
            )
        dims = dimensions if isinstance(dimensions, (tuple, list)) else (dimensions,) * len(axes)
        if len(dims) == 1 and len(axes) > 1:  # Taichi: [4] is 4 along every axis
            dims = tuple(dims) * len(axes)
        if len(dims) != len(axes):
            raise TiValueError(
                f"{what}: {len(dims)} extents for {len(axes)} axes",
                hint="give one extent per axis, or a single one for all of them",
            )
        dims = extents(dims, what)
        node = SNode(self.builder, kind, self, axes, dims)
        self.children.append(node)
        self._top()._ranks = None  # the subtree may use a new axis now
        return node

    def dense(self, axes, dimensions) -> SNode:
        """A dense level: every cell exists."""
        return self._child("dense", axes, dimensions)

    def pointer(self, axes, dimensions) -> SNode:
        """A sparse level whose cells are activated on write (memory on demand)."""
        return self._child("pointer", axes, dimensions)

    def bitmasked(self, axes, dimensions) -> SNode:
        """A sparse level with one activity bit per cell."""
        return self._child("bitmasked", axes, dimensions)

    def dynamic(self, axis, dimension, chunk_size=None) -> SNode:
        """A list level: up to ``dimension`` cells along one axis, active from 0 to the
        list's length (``ti.append``, ``ti.length``; see ``lang/dynamic.py``)."""
        from ti_notebook.lang.dynamic import check_dynamic

        axes = _axes(axis)
        check_dynamic(self, axes, dimension, chunk_size)
        node = self._child("dynamic", axis, dimension)
        node.chunk_size = node.extents[0] if chunk_size is None else int(chunk_size)
        return node

    def place(self, *fields, offset=None) -> SNode:
        """Places fields in this node's cells; ``place(x, y)`` interleaves them (AoS);
        ``offset=(-2, -2)`` indexes them from there (``lang/field_options.py``)."""
        from ti_notebook.lang.field_options import leaf_offset

        self.builder._check_open()
        index_offset = leaf_offset(self, offset)
        for f in fields:
            for component in getattr(f, "components", [f]):
                if component._snode is not None:
                    raise TiRuntimeError(f"field '{component.name}' is already placed")
                leaf = SNode(self.builder, "place", self)
                leaf.field = component
                leaf.index_offset = index_offset  # handed to the plan (snode_tree.described)
                component._snode = leaf
                self.children.append(leaf)
        return self

    def lazy_grad(self) -> None:
        """Places the gradient fields of the float fields under this node that are not
        placed yet beside their primals, needs_grad or not (as Taichi's)."""
        from ti_notebook.lang import autodiff

        self.builder._check_open()
        autodiff.place_pending(self, lazy="grad")

    def lazy_dual(self) -> None:
        """As :meth:`lazy_grad`, for the dual fields of forward mode."""
        from ti_notebook.lang import autodiff

        self.builder._check_open()
        autodiff.place_pending(self, lazy="dual")

    # -- queries -----------------------------------------------------------------------
    def _top(self) -> SNode:
        node = self
        while node._parent is not None and node._parent.kind != "root":
            node = node._parent
        return node

    @property
    def axes(self) -> tuple[int, ...]:
        """The field index positions this level splits: Taichi indexes a field by the
        axes its layout uses, in axis order, so ``ti.root.dynamic(ti.j, n)`` makes a 1-D
        field whose index runs along ``ti.j``. The axes are numbered over the subtree
        under ``ti.root`` (one numbering, so that the levels' activity grids line up).

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> x = ti.field(ti.f32)
            >>> ti.root.dense(ti.k, 4).dense(ti.i, 3).place(x)
            <ti.SNode dense>
            >>> x.shape, x.snode.parent().axes
            ((3, 4), (0,))
        """
        if self.kind == "root":
            return ()
        top = self._top()
        if top._ranks is None:
            used = sorted({a for node in _layout.walk(top) for a in node.declared_axes})
            top._ranks = {a: k for k, a in enumerate(used)}
        return tuple(top._ranks[a] for a in self.declared_axes)

    def parent(self, n: int = 1):
        node = self
        for _ in range(n):
            node = node._parent
            if node is None:
                return None
        return node

    def path(self) -> list[SNode]:
        """Levels from the root's first child down to this node."""
        nodes, node = [], self
        while node is not None and node.kind != "root":
            if node.kind != "place":
                nodes.append(node)
            node = node._parent
        return nodes[::-1]

    def cells_in_tree(self) -> int:
        """How many cells of this node the whole tree has (its extents times its
        ancestors'): the bits of its activity mask, the cells a struct-for counts."""
        return _layout.cell_count([node.extents for node in self.path()])

    @property
    def shape(self) -> tuple[int, ...]:
        return _layout.grid_shape([(node.axes, node.extents) for node in self.path()])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        axes = ",".join("ijkl"[a] for a in self.declared_axes)
        return f"{self.kind}({axes})"

    def layout(self) -> _plan.FieldLayout:
        """The memory plan of this node's cells, indexed in the node's own index space.

        ``for i, j in node`` and ``ti.is_active(node, [i, j])`` use it: index ``[i, j]``
        is the cell ``i, j`` of ``node.shape``, whatever lies below the node.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> x = ti.field(ti.f32)
            >>> blk = ti.root.pointer(ti.ij, 4)
            >>> blk.dense(ti.ij, 8).place(x)
            <ti.SNode dense>
            >>> blk.layout().shape, blk.layout().levels[-1].cell_size
            ((4, 4), 256)
        """
        if self.kind in ("root", "place"):
            raise TiTypeError(f"a {self.kind} node has no cells of its own to index")
        tree = self.builder.tree
        if tree is None:
            if self.builder is _default:
                materialize_default()
                tree = self.builder.tree
            else:
                raise TiRuntimeError(
                    "this node's FieldsBuilder is not finalized yet",
                    hint="call fb.finalize() before using its nodes",
                )
        tree.check_alive()
        cached = getattr(self, "_node_layout", None)
        if cached is None or cached.tree_id != tree.tree_id:
            cached = _layout.node_layout(tree.tree_id, self._plan_node, tree.mask_offsets)
            self._node_layout = cached
        return cached

    def plan(self):
        """The memory plan of this node and its subtree (see ``plan/tree.py``)."""
        if self.kind != "root":
            self.layout()  # finalises ti.root's pending tree; checks it is alive
        elif self.builder.tree is None:
            raise TiRuntimeError(
                "this tree is not finalized yet",
                hint="ti.root starts a new, empty tree once its fields are first used; "
                "ask a node of the finalized one, e.g. x.snode.parent(2).plan(), "
                "or call fb.finalize() on a FieldsBuilder",
            )
        return _tree.plan_of(self._plan_node)

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__

    def sparse_subtree(self):
        """The pointer, bitmasked and dynamic nodes of this node's subtree, itself included.

        A method, not a function of ``lang/sparse.py``: the passes call it on the nodes the
        IR holds, without importing the language layer.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> blk = ti.root.pointer(ti.i, 4)
            >>> [n.kind for n in blk.sparse_subtree()]
            ['pointer']
        """
        stack = [self]
        while stack:
            current = stack.pop()
            if current.kind in SPARSE_KINDS:
                yield current
            stack.extend(current.children)

    def deactivate_all(self) -> None:
        """Deactivates every cell of the sparse nodes in this node's subtree (itself
        included) and clears what they held; a dynamic node's lists become empty."""
        from ti_notebook.lang.sparse import deactivate_all

        deactivate_all(self)

    def __repr__(self) -> str:
        return f"<ti.SNode {self.kind}>"


class FieldsBuilder:
    """Declares one SNode tree; ``finalize()`` allocates it and returns the tree."""

    def __init__(self) -> None:
        self.root = SNode(self, "root")
        self.tree: SNodeTree | None = None
        self.discarded = False  # ti.reset() dropped this (default) builder

    def _check_open(self) -> None:
        if self.tree is not None:
            raise TiRuntimeError("this FieldsBuilder was finalized; start a new one")

    def dense(self, axes, dimensions) -> SNode:
        return self.root.dense(axes, dimensions)

    def pointer(self, axes, dimensions) -> SNode:
        return self.root.pointer(axes, dimensions)

    def bitmasked(self, axes, dimensions) -> SNode:
        return self.root.bitmasked(axes, dimensions)

    def dynamic(self, axis, dimension, chunk_size=None) -> SNode:
        return self.root.dynamic(axis, dimension, chunk_size)

    def place(self, *fields) -> SNode:
        return self.root.place(*fields)

    @property
    def empty(self) -> bool:
        return not self.root.children

    def finalize(self) -> SNodeTree:
        """Computes the memory plan and reserves the tree's memory."""
        self._check_open()
        from ti_notebook.lang import autodiff

        autodiff.place_pending(self.root)  # x.grad beside x unless placed elsewhere
        self.tree = SNodeTree(self)
        return self.tree


# -- ti.root: the default builder, finalised when its fields are first used ------------------
_default = FieldsBuilder()


def default_builder() -> FieldsBuilder:
    return _default


def materialize_default() -> None:
    """Finalises ``ti.root``'s pending declarations (Taichi does this on first use)."""
    global _default
    if not _default.empty:
        builder, _default = _default, FieldsBuilder()
        builder.finalize()


def reset_default() -> None:
    global _default
    _default.discarded = True
    _default = FieldsBuilder()


class _RootProxy:
    """``ti.root``: always the current default builder's root."""

    def __getattr__(self, name):
        return getattr(_default.root, name)

    def __repr__(self) -> str:
        return "<ti.root>"


root = _RootProxy()
