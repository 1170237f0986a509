"""A specialisation's compile, and the :class:`Compiled` record a kernel keeps of it.

The session builds the compiler's request from the kernel, the specialisation its
arguments select and the configuration ``ti.init`` set, compiles it through the offline
cache, and hands the backend what the session knows of it (the specialisation's name,
the session's random seed), which the backend gives the launchable: names on the
profiler's events and a random stream.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def twice(a: ti.i32) -> ti.i32:
    ...     return 2 * a
    >>> compiled, _args = twice.compiled_for((3,))
    >>> compiled.label, compiled.launcher.launch([3]), "llvm" in compiled.stages
    ('twice', 6, True)
"""

from __future__ import annotations

import dataclasses
import threading
import time

from ti_notebook.cache.compile import compile_cached
from ti_notebook.compiler.backends.base import LaunchIdentity
from ti_notebook.compiler.backends.cuda import cuda_backend
from ti_notebook.compiler.request import CompileRequest, Param
from ti_notebook.compiler.stages import Stages
from ti_notebook.frontend.source import source_of
from ti_notebook.lang import snode
from ti_notebook.session import config as _config
from ti_notebook.session import stale_globals
from ti_notebook.session.specialisation import Specialisation
from ti_notebook.session.specialisation_label import label

# One compile at a time: a compile finalises ti.root's pending tree and the JIT is
# shared, so two threads' first calls must not interleave.
COMPILE_LOCK = threading.RLock()


@dataclasses.dataclass(frozen=True)
class Compiled:
    """One specialisation's compiled code, as a kernel keeps it.

    Not the trace's inputs: they hold the template objects, which must be free to die
    (the specialisation keyed by one is dropped then, ``template_keys.py``).
    """

    launcher: object  # what a call launches: the backend's launchable, .launch(args)
    stages: Stages  # every stage's text and the compiler's report
    label: str  # the specialisation's name in the profiler ("fill[x]")
    # the global numbers the trace read, with their values then (stale_globals.py)
    watch: tuple = ()


def request_for(kernel, params: list[Param], templates: dict) -> CompileRequest:
    """The compiler's request for ``kernel`` (a :class:`~ti_notebook.session.kernel.
    Kernel`) with these parameters, under the session's configuration and the kernel's
    own loop and cache settings."""
    config = _config.current()
    options = config.compile_options(kernel._loop_defaults)
    if kernel._autodiff:
        options = dataclasses.replace(options, autodiff=kernel._autodiff)
    return CompileRequest(
        kernel.name,
        source_of(kernel),
        params,
        templates,
        kernel.return_type(),
        options,
        config.backend(),
        config.cache_settings(kernel._offline_cache),
    )


def finalise_pending_trees() -> None:
    """Finalises ``ti.root``'s pending declarations, the one step before a compile is
    keyed that may place fields: Taichi finalises ``ti.root`` when a kernel compiles,
    and the offline cache's keys only read the plans of the fields a kernel reads
    (``cache/fingerprint.py``: a field of a tree not finalised has no print).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> x = ti.field(ti.i32, shape=4)
        >>> before = x._tree is None
        >>> finalise_pending_trees()
        >>> before, x._tree is not None
        (True, True)
    """
    snode.materialize_default()


def compile_specialisation(kernel, chosen: Specialisation) -> Compiled:
    """Compiles ``chosen`` for the session's backend (or loads it from the offline
    cache); the caller holds :data:`COMPILE_LOCK`."""
    finalise_pending_trees()
    request = request_for(kernel, chosen.params, chosen.templates)
    started = time.monotonic_ns()
    launcher, stages, inputs = compile_cached(request)
    watch = stale_globals.watched(kernel.func, inputs.get("captured", {}))
    name = label(kernel.name, chosen.params, chosen.templates, chosen.runtime_args)
    session = _config.current()
    identity = LaunchIdentity(
        kernel.name, name, stages["report"], started, session, session.random_seed
    )
    request.backend.identify(launcher, request, identity)
    return Compiled(launcher, stages, name, watch)


def stages_for_arch(kernel, chosen: Specialisation, compute_capability: str) -> Stages:
    """The stages of ``chosen`` compiled for CUDA's ``compute_capability``, whatever the
    session's arch: no device needed, and nothing the kernel keeps changes."""
    request = request_for(kernel, chosen.params, chosen.templates)
    request.backend = cuda_backend(compute_capability)
    with COMPILE_LOCK:
        finalise_pending_trees()
        return compile_cached(request)[1]
