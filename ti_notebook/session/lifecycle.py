"""``ti.init`` and ``ti.reset``: start over with a new configuration and backend.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu, debug=True)
>>> ti.is_initialized(), ti.current_arch(), ti.session.config.current().debug
(True, 'cpu', True)
>>> ti.reset()
>>> ti.is_initialized()
False
"""

from __future__ import annotations

import dataclasses

from ti_notebook.cache import keys as cache_keys
from ti_notebook.cache import policy as cache_policy
from ti_notebook.lang.field import free_all_fields
from ti_notebook.runtime import array_homes, profiler
from ti_notebook.runtime.cpu import kernel_code
from ti_notebook.runtime.cuda import driver as cuda_driver
from ti_notebook.runtime.launch import no_launch_running
from ti_notebook.runtime.memory import upload_host_writes
from ti_notebook.session import config as _config
from ti_notebook.session.kernel import reset_all_kernels


def init(arch=None, default_fp=None, default_ip=None, **options) -> None:
    """Initialises ti_notebook (see DESIGN.md section 1 for the options).

    Calling it again starts over: fields made before are freed and kernels recompile.
    """
    if default_fp is not None:
        options["default_fp"] = default_fp
    if default_ip is not None:
        options["default_ip"] = default_ip
    config = _config.make_config(arch, **options)
    with no_launch_running():
        if _config.is_initialized():
            reset()
        _config.set_current(config)
    profiler.clear_kernel_profiler_info()
    profiler.set_enabled(config.kernel_profiler)
    # The runtime (JIT engine, thread pool) starts here, as Taichi's does in ti.init,
    # so a kernel's first call pays for its own compile (or cache load) only.
    backend, settings = config.backend(), config.cache_settings()
    store = cache_policy.store_for(settings, backend.cache_subdir) if settings.enabled else None
    backend.start(store)
    if config.offline_cache:
        cache_keys.compiler_digest()  # once per process, here rather than in a first call


def is_initialized() -> bool:
    """Whether a session runs: ``ti.init`` starts one (so does a kernel's first call
    without it, with the defaults), ``ti.reset`` ends it.

        >>> import ti_notebook as ti
        >>> ti.reset()
        >>> before = ti.is_initialized()
        >>> ti.init(arch=ti.cpu)
        >>> before, ti.is_initialized()
        (False, True)
    """
    return _config.is_initialized()


def current_arch() -> str:
    """The arch kernels compile for now: ``"cuda"`` after ``ti.init(arch=ti.cuda)`` with a
    device or ``cuda_sim=True``; ``"cpu"`` when that fell back to the CPU (with a warning).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.x64)
        >>> ti.current_arch()
        'cpu'
    """
    return _config.current().arch


def init_options() -> dict:
    """The ``ti.init`` keywords of the current session but ``arch``: ``ti.init(arch=a,
    **ti.init_options())`` starts a session like this one on another arch.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
        >>> ti.init_options()["default_fp"]
        f64
    """
    current = _config.current()
    fields = dataclasses.fields(_config.Config)
    return {f.name: getattr(current, f.name) for f in fields if f.name != "arch"}


def reset() -> None:
    """Frees every field and forgets every compiled kernel; ``ti.init`` may follow.

    Called from another thread while a kernel runs, it waits for that launch to end.
    """
    array_homes.bring_all_home()  # ti.ndarrays keep their values, in host memory
    with no_launch_running():
        free_all_fields()
        reset_all_kernels()
        _config.set_current(None)
    kernel_code.close_dead()  # dead kernels' machine code goes now, not at the next load
    # the next session's ti.init decides; until then is_enabled() says what a first
    # call's default session would do (the record itself stays until cleared)
    profiler.set_enabled(False)


def enable_profiler() -> None:
    """``ti.profiler.enable()``: turns the kernel profiler on for this session, as if
    ``ti.init(kernel_profiler=True)`` had started it, without starting over.

    Fields keep their values and what was recorded stays; kernels compiled before
    recompile at their next call, with the instrumentation that times their tasks and
    threads. Without a session yet, it starts the default one (as a first call would).

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> ti.profiler.enable()
        >>> ti.profiler.is_enabled(), ti.init_options()["kernel_profiler"]
        (True, True)
    """
    _switch_profiler(True)


def disable_profiler() -> None:
    """``ti.profiler.disable()``: stops recording; kernels recompile without the
    instrumentation at their next call. What was recorded stays until cleared.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu, kernel_profiler=True)
        >>> ti.profiler.disable()
        >>> ti.profiler.is_enabled()
        False
    """
    _switch_profiler(False)


def _switch_profiler(on: bool) -> None:
    if not _config.is_initialized():
        if on:
            init(kernel_profiler=True)
        else:
            profiler.set_enabled(False)
        return
    with no_launch_running():
        config = _config.current()
        if config.kernel_profiler != on:
            config.kernel_profiler = on
            # The option is part of the compile key: compiled specialisations become
            # stale (kernels drop them at their next call); fields are left alone.
            _config.bump_generation()
        profiler.set_enabled(on)


def sync() -> None:
    """Waits for launched kernels to finish, as ``ti.sync()`` does in Taichi.

    CPU launches are synchronous here (a launch returns when its tasks are done), so
    there is nothing to wait for; Taichi code that calls it runs unchanged. CUDA
    launches are asynchronous: this waits for the GPU (and reports a kernel's crash).
    Fields need no ``sync``: reading one from Python waits for the kernels that used
    it and copies it back (``runtime/cuda/memory.py``). What Python wrote into fields
    that live on the device is sent first, so the next kernel does not wait for it.

        >>> import ti_notebook as ti
        >>> ti.sync()
    """
    upload_host_writes()
    cuda_driver.synchronize()
