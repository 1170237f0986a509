"""Frozen descriptors of the fields and SNodes the IR refers to.

The IR holds these, not the language's live ``Field``/``SNode`` objects: a descriptor
is what the passes and codegen read of a field (its name, type and memory plan), fixed
when the kernel was traced. The frontend makes them (``frontend/descriptors.py``).

Two descriptors are equal when they describe the same memory (equal plans), so passes
that group accesses per field treat the descriptors of one field as one.

    >>> from ti_notebook.ir.types import f32
    >>> x = FieldRef("x", "field 'x'", f32, plan=("a plan",))
    >>> x == FieldRef("x", "field 'x'", f32, plan=("a plan",)), x.layout()
    (True, ('a plan',))
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ti_notebook.ir.types import DataType


@dataclasses.dataclass(frozen=True, eq=False)
class NodeRef:
    """An SNode level's descriptor: ``for I in node`` and ``ti.is_active(node, I)``.

    ``plan`` is the node's memory plan in its own index space (``SNode.layout()``);
    ``sparse_below`` the level plans of the pointer/bitmasked nodes strictly under it
    (what deactivating one of its cells must clear too).

        >>> node = NodeRef("pointer(i)", "pointer", (4,), plan="its plan")
        >>> node.ndim, node.layout()
        (1, 'its plan')
    """

    name: str
    kind: str
    shape: tuple[int, ...]
    plan: Any  # plan.layout.FieldLayout
    sparse_below: tuple = ()  # plan.layout.LevelPlan, one per sparse node under it

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def layout(self) -> Any:
        """The node's memory plan (read-only)."""
        return self.plan

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, NodeRef) and other.plan == self.plan)

    def __hash__(self) -> int:
        return hash((NodeRef, self.plan))


@dataclasses.dataclass(frozen=True, eq=False)
class FieldRef:
    """A scalar field's descriptor: ``x[I]`` and ``for I in x``.

    ``label`` is how errors name it (``field 'x'``, or its vector field's name);
    ``path`` the descriptors of the SNode levels above it, the root's child first.

        >>> from ti_notebook.ir.types import i32
        >>> leaf = NodeRef("dense(i)", "dense", (8,), plan="leaf plan")
        >>> x = FieldRef("x", "field 'x'", i32, plan="x plan", path=(leaf,))
        >>> x.parent() is leaf, x.parent(2)
        (True, None)
    """

    name: str
    label: str
    dtype: DataType
    plan: Any  # plan.layout.FieldLayout
    path: tuple[NodeRef, ...] = ()
    # the descriptors of ``x.grad`` / ``x.dual`` where they are placed (autodiff passes)
    grad: FieldRef | None = None
    dual: FieldRef | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.plan.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def layout(self) -> Any:
        """The field's memory plan (read-only; see ``plan/layout.py``)."""
        return self.plan

    def parent(self, n: int = 1) -> NodeRef | None:
        """The level ``n`` steps above the field (1: the level it is placed in); None
        above the root's children."""
        return self.path[-n] if 0 < n <= len(self.path) else None

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, FieldRef) and other.plan == self.plan)

    def __hash__(self) -> int:
        return hash((FieldRef, self.plan))
