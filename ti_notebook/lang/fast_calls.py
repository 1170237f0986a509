"""The call fast path of kernels whose parameters are scalars and ndarrays.

A call normally specialises first: it reads every parameter's annotation, checks each
array against it and builds the specialisation key (~10 µs for two arrays). For a
kernel with only scalar and plain ndarray parameters, the key is just each NumPy
argument's dtype and number of dimensions, so :class:`NdarrayDispatch` keeps the
launcher of each key seen before and goes straight to it; the launcher still checks
every argument (dtype, dimensions, contiguity, writability) as it packs it. A new key,
a ``ti.ndarray``, a vector-element array or a wrong call goes the long way (and is
registered there when it compiles).

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def twice(a: ti.types.ndarray(ti.f32, ndim=1)):
    ...     for i in range(a.shape[0]):
    ...         a[i] *= 2
    >>> a = np.ones(4, np.float32)
    >>> twice(a); twice(a); a.tolist()
    [4.0, 4.0, 4.0, 4.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ti_notebook.errors import TiError


class NdarrayDispatch:
    """Launchers by the (dtype, ndim) of each array argument, in parameter order."""

    def __init__(self, slow_call: Callable, array_positions: Sequence[int], count: int) -> None:
        self.slow_call = slow_call
        self.positions = tuple(array_positions)
        self.count = count
        self.launchers: dict[tuple, object] = {}
        self.last = None  # the launcher of the latest call: most calls repeat it

    def key(self, args: tuple) -> tuple | None:
        """The key of ``args``, or None when the call must specialise the long way."""
        if len(args) != self.count:
            return None
        key = []
        for k in self.positions:
            array = args[k]
            if type(array) is not np.ndarray:
                return None
            key.append(array.dtype)
            key.append(array.ndim)
        return tuple(key)

    def add(self, args: tuple, launcher) -> None:
        key = self.key(args)
        if key is not None:
            self.launchers[key] = self.last = launcher

    def launch(self, args: tuple):
        last = self.last
        if last is not None and len(args) == self.count:
            for k in self.positions:
                if type(args[k]) is not np.ndarray:  # ti.ndarray, a list...: the long way
                    return self.slow_call(args, {})
            try:  # its converters check dtype and ndim as they pack
                values = last.pack(args)
            except TiError:
                values = None
            if values is not None:
                return last.launch_packed(values)
        launcher = self.launchers.get(self.key(args))
        if launcher is None:
            return self.slow_call(args, {})
        self.last = launcher
        return launcher.launch(args)


def eligible(params: Sequence) -> bool:
    """Every parameter a scalar or a scalar-element ndarray (vector elements, templates and
    compound arguments need the full specialisation on every call)."""
    return all(
        p.kind == "scalar" or (p.kind == "ndarray" and not getattr(p, "element_shape", ()))
        for p in params
    )
