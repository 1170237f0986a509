"""The PTX of a kernel, for the analyses that read PTX (ptxas resources, occupancy).

A kernel compiled by the CUDA backend keeps its PTX as the ``"ptx"`` stage of
``kernel.stages()`` (DESIGN.md section 3); in a CPU session, ``kernel.stages(*args,
arch="cuda")`` compiles the same specialisation for CUDA, with no device needed.
:func:`ptx_of` takes whichever exists. The kernel is read through ``stages()`` only, so
this module imports nothing of the compiler.

    >>> class Compiled:  # anything with stages(), as ti.Kernel has
    ...     def stages(self, *args, arch=None):
    ...         return {"ptx": ".version 7.8\\n.target sm_90\\n"}
    >>> ptx_of(Compiled()).splitlines()[1]
    '.target sm_90'
"""

from __future__ import annotations

from ti_notebook.errors import TiNotImplementedError, TiTypeError

__all__ = ["ptx_of"]


def ptx_of(kernel, *args) -> str:
    """The PTX text of ``kernel`` (``args`` select the specialisation, as for
    ``kernel.stages(*args)``): its own when it was compiled for CUDA, else compiled for
    CUDA now.

    Raises :class:`~ti_notebook.errors.TiTypeError` when ``kernel`` is not a kernel and
    :class:`~ti_notebook.errors.TiNotImplementedError` when it cannot compile for CUDA.

        >>> class CpuOnly:
        ...     name = "saxpy"
        ...     def stages(self, *args, arch=None):
        ...         return {"asm": "..."}
        >>> try:
        ...     ptx_of(CpuOnly())
        ... except NotImplementedError as error:
        ...     print(type(error).__name__, error.message)
        TiNotImplementedError kernel 'saxpy' has no PTX: it does not compile for CUDA
    """
    stages = getattr(kernel, "stages", None)
    if not callable(stages):
        raise TiTypeError(
            f"expected a @ti.kernel, PTX text or resources, not {type(kernel).__name__}",
            hint="pass a kernel, a PTX string, or registers=..., shared_bytes=...",
        )
    texts = stages(*args)
    if not texts.get("ptx"):
        texts = stages(*args, arch="cuda")  # a CPU session: the CUDA compile of the same
    if texts.get("ptx"):
        return texts["ptx"]
    name = getattr(kernel, "name", type(kernel).__name__)
    raise TiNotImplementedError(
        f"kernel '{name}' has no PTX: it does not compile for CUDA",
        hint="pass the kernel's resources instead (registers=32, shared_bytes=0) or PTX text",
    )
