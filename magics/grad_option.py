"""``%%kernel --grad``: a cell's grad kernels, summarised and shown like its kernels.

A kernel's grad kernel (``kernel.grad``: what ``ti.ad.Tape`` and ``kernel.grad()`` run)
is a kernel of its own, with its own compile, cache entry, stages and report
(``make_adjoint`` among its passes). After the cell has run, the magic prints a line for
the grad kernel of every kernel the cell defines that either ran its grad kernel (in a
Tape, or ``kernel.grad()``), or, with ``--grad``, can compile now (its arguments are all
scalars or typed ndarrays). ``--show STAGE`` shows those grad kernels' stages too. They
are named ``kernel.grad`` in the lines and the stage titles.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=4, needs_grad=True)
    >>> total = ti.field(ti.f32, shape=(), needs_grad=True)
    >>> @ti.kernel
    ... def energy():
    ...     for i in x:
    ...         total[None] += x[i] ** 2
    >>> list(grad_kernels({"energy": energy}, eager=False))  # its grad kernel never ran
    []
    >>> with ti.ad.Tape(loss=total):
    ...     energy()
    >>> list(grad_kernels({"energy": energy}, eager=False))
    ['energy.grad']
"""

from __future__ import annotations

import ti_notebook as ti

SUFFIX = ".grad"


def grad_kernels(kernels: dict, eager: bool) -> dict:
    """``{"name.grad": grad kernel}`` for the ``kernels`` (name -> kernel) whose grad
    kernel has been compiled (a launch, ``stages()``), or all of them when ``eager``."""
    found = {}
    for name, kernel in kernels.items():
        try:
            grad = kernel.grad
        except ti.errors.TiError:  # a grad kernel itself: no second derivatives
            continue
        if eager or grad.specialisations:
            found[name + SUFFIX] = grad
    return found
