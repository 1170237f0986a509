"""One NumPy view over every component of a vector/matrix field, where the plan allows.

A vector field's components are scalar fields placed in one cell (AoS) or side by side
(SoA). When each is a dense strided view with the same strides, and component ``k``
starts ``k`` steps after component 0, the whole field is one strided array with the
element's axes last: ``to_numpy`` is then one copy instead of a copy per component and
a stack, and ``from_numpy`` one assignment.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> v = ti.Vector.field(3, ti.f32, shape=4)
    >>> view = combined_view(v.components, (3,))
    >>> view.shape, view.strides
    ((4, 3), (12, 4))
"""

from __future__ import annotations

import numpy as np


def combined_view(components: list, element_shape: tuple[int, ...]) -> np.ndarray | None:
    """The fields' elements as one view of shape ``field shape + element_shape``, or None
    where the components are not evenly spaced copies of one strided layout (sparse
    nodes, components in different trees or with different strides)."""
    first = components[0]
    for component in components:
        component._materialize()
    views = [c._view for c in components]
    if any(v is None for v in views) or any(c._memory is not first._memory for c in components):
        return None
    if any(v.strides != views[0].strides for v in views):
        return None
    offsets = [c._layout.offset for c in components]
    step = offsets[1] - offsets[0] if len(offsets) > 1 else first.dtype.size
    if step <= 0 or any(b - a != step for a, b in zip(offsets, offsets[1:], strict=False)):
        return None
    inner = (step,) if len(element_shape) == 1 else (step * element_shape[1], step)
    return first._memory.view(
        first.dtype.np_dtype, offsets[0], views[0].shape + element_shape, views[0].strides + inner
    )
