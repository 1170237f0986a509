"""The backends, by arch: ``ti.init(arch=...)`` selects one here.

A backend is a target (what compiles IR to an artifact, with no device) and a runtime
(what loads and launches it), ``base.py`` says; :data:`BACKENDS` composes them. ``cpu``
compiles for the host and runs there. ``cuda`` (and ``gpu``) compile NVPTX and run on
the GPU; with ``cuda_sim=True`` (or ``TI_CUDA_SIM=1``) the same target's code runs on
the SIMT emulator, anywhere; without a CUDA device the session falls back to the CPU,
as Taichi does, and warns once with the driver's own reason. ``vulkan``, ``metal`` and
``opengl`` have no backend here: they fall back to the CPU with a warning at every
``ti.init`` that asks for them.

    >>> resolve_arch("x64")
    'cpu'
    >>> resolve_arch("gpu", cuda_sim=True)
    'cuda'
    >>> backend_for("cpu", threads=2).capabilities.threads
    2
    >>> {name: (t.__name__, r.__name__) for name, (t, r) in BACKENDS.items()}["cuda_sim"]
    ('CudaTarget', 'SimtRuntime')
"""

from __future__ import annotations

import functools
import warnings

from ti_notebook.compiler.backends.base import Artifact, Backend, Runtime, Target
from ti_notebook.compiler.backends.cpu import CpuRuntime, CpuTarget
from ti_notebook.compiler.backends.cuda import CudaTarget
from ti_notebook.compiler.backends.cuda_device import CudaDeviceRuntime
from ti_notebook.compiler.backends.cuda_sim import SimtRuntime
from ti_notebook.errors import TiValueError
from ti_notebook.runtime import devices

ALIASES = {"x64": "cpu", "arm64": "cpu", "gpu": "cuda"}
# Taichi's archs that have no backend here: they fall back to the CPU, warned.
WITHOUT_BACKEND = ("vulkan", "metal", "opengl")
_warned: set[str] = set()  # the CUDA fallback's reasons already said in this process

# name -> (target, runtime); the runtime's device is what the target compiles for
BACKENDS: dict[str, tuple[type[Target], type[Runtime]]] = {
    "cpu": (CpuTarget, CpuRuntime),
    "cuda": (CudaTarget, CudaDeviceRuntime),
    "cuda_sim": (CudaTarget, SimtRuntime),
}

__all__ = [
    "ALIASES",
    "BACKENDS",
    "WITHOUT_BACKEND",
    "Artifact",
    "Backend",
    "Runtime",
    "Target",
    "backend_for",
    "resolve_arch",
]


def resolve_arch(requested: str, cuda_sim: bool = False) -> str:
    """The arch that runs what ``requested`` asks for: ``"cpu"`` or ``"cuda"``; warns
    (RuntimeWarning) when that is a fallback. Raises
    :class:`~ti_notebook.errors.TiValueError` for an unknown name."""
    arch = ALIASES.get(requested, requested)
    if arch == "cpu":
        return arch
    if arch == "cuda":
        if cuda_sim:
            return "cuda"
        reason = devices.cuda_unavailable_reason()
        if reason is None:
            return "cuda"
        if reason not in _warned:
            _warned.add(reason)
            warnings.warn(
                f"arch={requested} asked for, but {reason}: using ti.cpu. "
                "ti.init(arch=ti.cuda, cuda_sim=True) runs the CUDA backend's own code on "
                "the CPU through the SIMT emulator (slow, but GPU semantics).",
                RuntimeWarning,
                stacklevel=5,  # the caller of ti.init (via make_config, resolve_arch)
            )
        return "cpu"
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
        stacklevel=5,  # the caller of ti.init (via make_config, resolve_arch)
    )
    return "cpu"


@functools.cache
def backend_for(arch: str, threads: int, cuda_sim: bool = False) -> Backend:
    """The backend of a resolved ``arch`` (see :func:`resolve_arch`), from
    :data:`BACKENDS`: the CPU's for ``threads``, or CUDA's on the emulator
    (``cuda_sim``) or the device."""
    target_type, runtime_type = BACKENDS["cuda_sim" if arch == "cuda" and cuda_sim else arch]
    runtime = runtime_type()
    return Backend(target_type.for_device(runtime.device, threads), runtime)
