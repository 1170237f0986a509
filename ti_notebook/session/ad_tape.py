"""``ti.ad``: the Tape, forward mode, and the decorators that steer them.

``with ti.ad.Tape(loss=l):`` clears the gradients, zeroes ``l`` and records every
kernel launched inside; on exit it sets ``l.grad[None] = 1`` and runs the recorded
kernels' grad kernels in reverse order, so each field's ``.grad`` holds ``dl/dx``:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
    >>> x = ti.field(ti.f64, shape=2, needs_grad=True)
    >>> energy = ti.field(ti.f64, shape=(), needs_grad=True)
    >>> @ti.kernel
    ... def potential():
    ...     for i in x:
    ...         energy[None] += 0.5 * x[i] ** 2
    >>> x.from_numpy(__import__("numpy").array([1.0, -3.0]))
    >>> with ti.ad.Tape(loss=energy):
    ...     potential()
    >>> energy[None], (-x.grad.to_numpy()).tolist()  # the force, -dU/dx
    (5.0, [-1.0, 3.0])
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

from ti_notebook.errors import TiRuntimeError, TiTypeError, TiValueError

active = False  # a Tape or FwdMode is open: Kernel.__call__ asks intercept()
_tape: Tape | None = None
_fwd: FwdMode | None = None
_replaced = 0  # inside a grad_replaced / no_grad function: its kernels are not recorded


def intercept(kernel, args: tuple):
    """Called by every kernel launch while :data:`active`: records it on the open Tape;
    in FwdMode, returns the forward-mode kernel to run instead (else None)."""
    if _tape is not None and not _replaced:
        _tape.calls.append((kernel, args))
    if _fwd is not None:
        from ti_notebook.session import ad_kernel

        return ad_kernel.adjoint_kernel(kernel, "forward")
    return None


def _set_active() -> None:
    global active
    active = _tape is not None or _fwd is not None


def clear_all_gradients(gradient_type: str = "grad") -> None:
    """Sets every gradient field (``gradient_type="dual"``: every dual field) to zero.

    >>> import ti_notebook as ti
    >>> x = ti.field(ti.f32, shape=2, needs_grad=True)
    >>> x.grad[0] = 5.0
    >>> ti.ad.clear_all_gradients()
    >>> x.grad[0]
    0.0
    """
    from ti_notebook.lang import autodiff, field, snode

    snode.materialize_default()
    kind = getattr(gradient_type, "name", gradient_type)
    kind = "dual" if str(kind).lower() in ("dual", "snodegradtype.dual") else "grad"
    for adjoint in autodiff.gradient_fields(field.live_trees(), kind):
        adjoint.fill(0)


def _seed(loss, value: float) -> None:
    """``loss.grad`` filled with ``value`` (a field without one raises, saying so)."""
    is_ndarray = hasattr(loss, "_array")
    grad = loss.grad
    if grad is None:  # an ndarray declared without needs_grad
        raise TiValueError(
            "the loss of a Tape has no gradient", hint="declare it with needs_grad=True"
        )
    if not is_ndarray and tuple(loss.shape) != ():
        raise TiValueError(
            f"the loss of a Tape must be a 0-D field (shape ()), got shape {loss.shape}",
            hint="sum the loss into a field declared with shape=()",
        )
    grad.fill(value)


class Tape:
    """``with ti.ad.Tape(loss=l, clear_gradients=True, validation=False):`` (module doc).

    ``validation=True`` checks Taichi's global data access rule on exit: a kernel that
    reads a field another recorded kernel (or itself) wrote before is named, with the
    line, since its gradient would be wrong.
    """

    def __init__(
        self, loss=None, clear_gradients: bool = True, validation: bool = False, grad_check=None
    ) -> None:
        self.loss = loss
        self.clear_gradients = clear_gradients
        self.validation = validation
        self.calls: list = []
        self.entered = False
        self.gradient_evaluated = False

    def __enter__(self) -> Tape:
        global _tape
        if self.entered:
            raise TiRuntimeError("a Tape can be entered only once", hint="make a new Tape")
        if _tape is not None:
            raise TiRuntimeError("a Tape is already open", hint="Tapes do not nest")
        self.entered = True
        if self.loss is not None:
            if self.clear_gradients:
                clear_all_gradients()
            _seed(self.loss, 0.0)
            self.loss.fill(0)  # as Taichi's Tape: the loss starts from zero
        _tape = self
        _set_active()
        return self

    def __exit__(self, kind, value, traceback) -> None:
        global _tape
        _tape = None
        _set_active()
        if kind is None and self.loss is not None:
            self.grad()

    def grad(self) -> None:
        """Runs the recorded kernels' grad kernels, last first (``loss.grad`` seeded 1)."""
        if not self.entered:
            raise TiRuntimeError("Tape.grad(): the Tape was never entered")
        if self.gradient_evaluated:
            raise TiRuntimeError("Tape.grad(): the gradients were evaluated already")
        from ti_notebook.session import ad_kernel

        if self.loss is not None:
            _seed(self.loss, 1.0)
        for func, args in reversed(self.calls):
            if self.validation and hasattr(func, "_adjoints"):  # a kernel: its checked grad
                grad = ad_kernel.adjoint_kernel(func, "reverse_validated")
            else:
                grad = getattr(func, "grad", None)
            if grad is not None:
                grad(*args)
        self.gradient_evaluated = True


class FwdMode:
    """``with ti.ad.FwdMode(loss=l, param=x, seed=[...]):`` kernels launched inside also
    compute duals (``passes/make_dual.py``); ``l.dual`` is then ``∑ seed_k dl/dx_k``.

    ``x.dual`` is set to ``seed`` (one value per element of ``x``; ``[1.0]`` by default
    for a 0-D ``x``) on entry and cleared again on exit.
    """

    def __init__(self, loss, param, seed=None, clear_gradients: bool = True) -> None:
        self.loss, self.param, self.seed = loss, param, seed
        self.clear_gradients = clear_gradients

    def __enter__(self) -> FwdMode:
        global _fwd
        if _fwd is not None:
            raise TiRuntimeError("a FwdMode is already open", hint="FwdModes do not nest")
        dual = getattr(self.param, "dual", None)
        seed = self.seed
        shape = tuple(getattr(self.param, "shape", ()))
        if seed is None:
            if shape != () or hasattr(self.param, "n"):
                raise TiValueError(
                    "ti.ad.FwdMode: a seed is needed for a parameter with several elements",
                    hint="pass seed=[...], one value per element",
                )
            seed = [1.0]
        if self.clear_gradients:
            clear_all_gradients("dual")
        _set_dual(dual, list(seed), shape)
        _fwd = self
        _set_active()
        return self

    def __exit__(self, kind, value, traceback) -> None:
        global _fwd
        _fwd = None
        _set_active()
        self.param.dual.fill(0)  # the seed: later FwdModes start from zero


def _set_dual(dual, seed: list, shape: tuple) -> None:
    if shape == ():
        if hasattr(dual, "n"):  # a 0-D vector field: one seed value per component
            dual[None] = seed
        else:
            dual[None] = float(seed[0])
        return
    if len(seed) == 1 and len(shape) == 1 and shape[0] != 1:
        raise TiValueError(
            f"ti.ad.FwdMode: the seed has 1 value for a parameter of shape {shape}",
            hint="give one value per element",
        )
    for k, value in enumerate(seed):
        dual[k] = value


def grad_replaced(func):
    """Decorates a Python function whose kernels a Tape records as one step, whose grad
    is the function :func:`grad_for` registers."""

    @functools.wraps(func)
    def decorated(*args, **kwargs):
        global _replaced
        if _tape is not None and not _replaced:
            _tape.calls.append((decorated, args))
        _replaced += 1
        try:
            return func(*args, **kwargs)
        finally:
            _replaced -= 1

    decorated.grad = None
    return decorated


def grad_for(primal):
    """Registers the decorated function as the grad of ``primal`` (a ``grad_replaced``
    function)."""

    def decorator(func):
        if not hasattr(primal, "grad"):
            raise TiTypeError(
                f"ti.ad.grad_for: '{getattr(primal, '__name__', primal)}' is not decorated "
                "with @ti.ad.grad_replaced"
            )
        if primal.grad is not None:
            raise TiTypeError(
                "ti.ad.grad_for: the primal must be a Python function, not a kernel",
                hint="wrap the kernel in a @ti.ad.grad_replaced Python function",
            )
        primal.grad = func
        return func

    return decorator


def no_grad(func):
    """Decorates a kernel (or function) whose grad the Tape skips."""
    replaced = grad_replaced(func)
    replaced.grad = lambda *args, **kwargs: None
    return replaced


ad = SimpleNamespace(
    Tape=Tape,
    FwdMode=FwdMode,
    clear_all_gradients=clear_all_gradients,
    grad_replaced=grad_replaced,
    grad_for=grad_for,
    no_grad=no_grad,
)
