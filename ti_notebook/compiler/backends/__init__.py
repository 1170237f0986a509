"""The backends, by arch: ``ti.init(arch=...)`` selects one here.

Only the CPU has a backend today. An arch without one (``cuda``, ``gpu``, ``vulkan``,
``metal``, ``opengl``) runs on the CPU, and says so with one warning at every
``ti.init`` that asks for it - also on a machine with a CUDA device, where compiling x86
code without a word would look like a GPU run.

    >>> resolve_arch("x64")
    'cpu'
    >>> backend_for("cpu", threads=2).capabilities.threads
    2
"""

from __future__ import annotations

import functools
import warnings

from ti_notebook.compiler.backends.base import Artifact, Backend
from ti_notebook.compiler.backends.cpu import CpuBackend
from ti_notebook.errors import TiValueError

BACKENDS: dict[str, type[Backend]] = {"cpu": CpuBackend}
ALIASES = {"x64": "cpu", "arm64": "cpu"}
# Taichi's archs that have no backend here yet: they fall back to the CPU, warned.
WITHOUT_BACKEND = ("cuda", "gpu", "vulkan", "metal", "opengl")

__all__ = ["ALIASES", "BACKENDS", "WITHOUT_BACKEND", "Artifact", "Backend", "backend_for"]


def resolve_arch(requested: str) -> str:
    """The arch that runs what ``requested`` asks for; warns (RuntimeWarning) when that is
    a fallback. Raises :class:`~ti_notebook.errors.TiValueError` for an unknown name."""
    arch = ALIASES.get(requested, requested)
    if arch in BACKENDS:
        return arch
    if arch not in WITHOUT_BACKEND:
        raise TiValueError(
            f"unknown arch {requested!r}",
            hint="use ti.cpu, ti.cuda or ti.gpu (ti.vulkan, ti.metal and ti.opengl fall "
            "back to the CPU)",
        )
    warnings.warn(
        f"arch={requested} asked for, but this ti_notebook has no {requested} backend: "
        "using ti.cpu (kernels compile to CPU code)",
        RuntimeWarning,
        stacklevel=4,  # the caller of ti.init
    )
    return "cpu"


@functools.cache
def backend_for(arch: str, threads: int) -> Backend:
    """The backend of a resolved ``arch`` (see :func:`resolve_arch`) for ``threads``."""
    return BACKENDS[arch](threads)
