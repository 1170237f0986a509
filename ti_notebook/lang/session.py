"""``ti.init`` and ``ti.reset``: start over with a new configuration.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu, debug=True)
>>> ti.lang.config.current().debug
True
>>> ti.reset()
"""

from __future__ import annotations

from ti_notebook.lang import config as _config
from ti_notebook.lang.field import free_all_fields
from ti_notebook.lang.kernel import reset_all_kernels
from ti_notebook.runtime.launch import no_launch_running


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
    from ti_notebook.runtime import profiler

    profiler.clear_kernel_profiler_info()
    profiler.set_enabled(config.kernel_profiler)
    # The runtime (JIT engine, thread pool) starts here, as Taichi's does in ti.init,
    # so a kernel's first call pays for its own compile (or cache load) only.
    from ti_notebook.runtime import cpu as cpu_runtime

    cpu_runtime.ensure_runtime()
    if config.offline_cache:
        from ti_notebook.runtime.cache_keys import compiler_digest

        compiler_digest()  # once per process, here rather than in a first call


def reset() -> None:
    """Frees every field and forgets every compiled kernel; ``ti.init`` may follow.

    Called from another thread while a kernel runs, it waits for that launch to end.
    """
    with no_launch_running():
        free_all_fields()
        reset_all_kernels()
        _config.set_current(None)


def sync() -> None:
    """Waits for launched kernels to finish, as ``ti.sync()`` does in Taichi.

    CPU launches are synchronous here (a launch returns when its tasks are done), so
    there is nothing to wait for; Taichi code that calls it runs unchanged.

        >>> import ti_notebook as ti
        >>> ti.sync()
    """
