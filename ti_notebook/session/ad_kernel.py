"""A kernel's autodiff twins: ``kernel.grad`` (reverse mode) and its forward-mode kernel.

Each is a kernel of its own, compiled from the same function with
``CompileOptions.autodiff`` set, so it has its own specialisations, cache entries,
``stages()`` and ``report`` (``make_adjoint`` / ``make_dual`` among its passes). It
takes the kernel's arguments; an ndarray argument's gradient (``ti.ndarray(...,
needs_grad=True)``) travels with it as one more argument, and a NumPy array's, which
has none, is a scratch array.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
    >>> a = ti.ndarray(ti.f64, 3, needs_grad=True)
    >>> total = ti.field(ti.f64, shape=(), needs_grad=True)
    >>> @ti.kernel
    ... def weigh(a: ti.types.ndarray()):
    ...     for i in a:
    ...         total[None] += (i + 1) * a[i]
    >>> total.grad[None] = 1.0
    >>> weigh.grad(a)
    >>> a.grad.to_numpy().tolist(), weigh.grad.name
    ([1.0, 2.0, 3.0], 'weigh_grad')
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ti_notebook.errors import TiTypeError
from ti_notebook.session import config as _config

# mode -> (the adjoint arrays' attribute, the kernel's name suffix)
_SUFFIX = {
    "reverse": ("grad", "grad"),
    "reverse_validated": ("grad", "grad"),  # Tape(validation=True): the access rule checked
    "forward": ("dual", "forward"),
}
_classes: dict = {}


def adjoint_kernel(primal, mode: str):
    """``primal``'s grad kernel (``mode="reverse"``) or forward-mode kernel, made once:
    an instance of :class:`AdjointKernel` mixed into the primal's own kernel class (this
    module does not import ``session/kernel.py``, which imports it)."""
    made = primal._adjoints.get(mode)
    if made is None:
        base = primal._plain_class()  # not the class of its own fast path
        cls = _classes.get(base)
        if cls is None:
            cls = _classes[base] = type("AdjointKernel", (AdjointKernel, base), {})
        made = primal._adjoints[mode] = cls(primal, mode)
        if primal.configuration:  # the primal's loop defaults are its twins' too
            made.configure(**primal.configuration)
    return made


class AdjointKernel:
    """The grad (or forward-mode) kernel of ``primal``; call it with its arguments.
    A mixin over the kernel class (see :func:`adjoint_kernel`)."""

    def __init__(self, primal, mode: str) -> None:
        super().__init__(primal.func)
        self.primal = primal
        self._autodiff = mode
        self.kind, suffix = _SUFFIX[mode]
        self.name = f"{primal.name}_{suffix}"

    @property
    def grad(self):
        raise TiTypeError(
            f"'{self.name}' is a grad kernel: ti_notebook has no second derivatives",
            hint=f"call {self.primal.name}.grad(...) for the first ones",
        )

    def params(self):
        fresh = self._params is None or self._generation != _config.generation()
        params = super().params()
        if fresh:
            extra = [
                dataclasses.replace(p, name=f"{p.name}.{self.kind}")
                for p in params
                if p.kind == "ndarray"
            ]
            params = self._params = [*params, *extra]
        return params

    def _with_adjoint_arrays(self, args: tuple, kwargs: dict) -> tuple:
        if kwargs:
            try:
                args = tuple(self.signature.bind(*args, **kwargs).arguments.values())
            except TypeError as exc:
                raise TiTypeError(f"kernel '{self.name}': {exc}") from None
        own = [p for p in self.params() if not p.name.endswith("." + self.kind)]
        if len(args) != len(own):
            return args  # the call's own check says what is wrong
        arrays = [arg for p, arg in zip(own, args, strict=True) if p.kind == "ndarray"]
        return (*args, *(adjoint_array(arr, self.kind) for arr in arrays))

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True
        return super().__call__(*self._with_adjoint_arrays(args, kwargs))

    def stages(self, *args, **kwargs):
        """As :meth:`Kernel.stages`, for the grad kernel's specialisation of ``args``."""
        if args:
            args = self._with_adjoint_arrays(args, {})
        return super().stages(*args, **kwargs)


def adjoint_array(array, kind: str):
    """What a grad kernel takes beside ndarray ``array``: its ``.grad`` (``.dual``), or a
    zero scratch array where it has none.

    >>> adjoint_array(np.ones(2), "grad").tolist()
    [0.0, 0.0]
    """
    own = getattr(array, kind, None)
    if own is not None and not callable(own):
        return own
    return np.zeros_like(np.asarray(getattr(array, "_array", array)))
