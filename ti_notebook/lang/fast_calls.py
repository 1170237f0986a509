"""The call fast path of kernels whose parameters are scalars and ndarrays.

A call normally specialises first: it reads every parameter's annotation, checks each
array against it and builds the specialisation key (~10 µs for two arrays). For a
kernel with only scalar and plain ndarray parameters, the key is just each NumPy
argument's dtype and number of dimensions, so :class:`NdarrayDispatch` keeps the
launcher of each key seen before, with the call generated for it
(``runtime/launch_call.py``: every argument checked and packed, and the launch, in one
function), and a call goes straight to the latest one. A call that one does not take
looks its key up; a new key, a ``ti.ndarray``, a vector-element array or a wrong call
goes the long way (and is registered there when it compiles). :func:`direct` does the
same for all-scalar kernels.

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

from ti_notebook.runtime.launch import CompiledKernel
from ti_notebook.runtime.launch_call import make_call


class NdarrayDispatch:
    """Launchers by the (dtype, ndim) of each array argument, in parameter order."""

    def __init__(self, slow_call: Callable, array_positions: Sequence[int], count: int) -> None:
        self.slow_call = slow_call
        self.positions = tuple(array_positions)
        self.count = count
        # key -> (launcher, its generated call)
        self.launchers: dict[tuple, tuple[object, Callable]] = {}
        # the generated call of the latest key (most calls repeat it); it hands any call
        # it does not take to other()
        self.launch: Callable[[tuple], object] = self.other

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
            call = make_call(launcher, self.other)
            self.launchers[key] = (launcher, call)
            self.launch = call

    def other(self, args: tuple):
        """A call the latest key's generated call does not take: another key seen
        before becomes the latest (its launcher's converters check this call and raise
        the errors that name the argument); else the long way."""
        key = self.key(args)
        found = self.launchers.get(key) if key is not None else None
        if found is None:
            return self.slow_call(args, {})
        launcher, self.launch = found
        return launcher.launch(args)


class _Direct:
    """An all-scalar kernel's launcher behind its generated call."""

    __slots__ = ("launcher", "launch")

    def __init__(self, launcher: CompiledKernel) -> None:
        self.launcher = launcher
        self.launch = make_call(launcher, launcher.launch)


def direct(launcher):
    """What an all-scalar kernel's calls launch: a compiled kernel's generated call
    (``launch(args)``), or ``launcher`` itself when it is not a plain compiled kernel."""
    return _Direct(launcher) if isinstance(launcher, CompiledKernel) else launcher


def eligible(params: Sequence) -> bool:
    """Every parameter a scalar or a scalar-element ndarray (vector elements, templates and
    compound arguments need the full specialisation on every call)."""
    return all(
        p.kind == "scalar" or (p.kind == "ndarray" and not getattr(p, "element_shape", ()))
        for p in params
    )
