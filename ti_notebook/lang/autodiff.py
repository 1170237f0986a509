"""Autodiff is not in ti_notebook yet: every entry point Taichi has refuses at first use.

Taichi's autodiff surface is wide (``needs_grad=True``, ``x.grad``, ``ti.ad.Tape``,
``kernel.grad()``, ``ti.ad.FwdMode``, ``ti.root.lazy_grad()``...). Accepting any of it
silently would fail much later with a missing attribute, far from the cause, so each one
raises :class:`~ti_notebook.errors.TiNotImplementedError` where it is first used:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=4)
    >>> try:
    ...     x.grad
    ... except NotImplementedError as error:
    ...     print(error.message)
    x.grad: autodiff (gradients) is not supported by ti_notebook yet
"""

from __future__ import annotations

from types import SimpleNamespace

from ti_notebook.errors import TiNotImplementedError

HINT = (
    "ti_notebook compiles forward kernels only; compute the derivative by hand in a kernel, "
    "or run this part with Taichi itself"
)


def refuse(what: str) -> TiNotImplementedError:
    """The error for one autodiff entry point, ``what`` as the user wrote it.

    >>> refuse("ti.ad.Tape").message
    'ti.ad.Tape: autodiff (gradients) is not supported by ti_notebook yet'
    """
    return TiNotImplementedError(
        f"{what}: autodiff (gradients) is not supported by ti_notebook yet", hint=HINT
    )


def gradient_attribute(owner_name: str, attribute: str):
    """What ``field.grad`` / ``field.dual`` does: raise, naming the field."""
    raise refuse(f"{owner_name}.{attribute}")


class _Refused:
    """A name of ``ti.ad`` that raises when called or entered (a class, a decorator...)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args, **kwargs):
        raise refuse(self.name)

    def __repr__(self) -> str:
        return f"<{self.name}: not supported by ti_notebook>"


ad = SimpleNamespace(
    **{
        name: _Refused(f"ti.ad.{name}")
        for name in (
            "Tape",
            "FwdMode",
            "clear_all_gradients",
            "grad_replaced",
            "grad_for",
            "no_grad",
        )
    }
)

Tape = _Refused("ti.Tape")
