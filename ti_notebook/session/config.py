"""``ti.init`` options and the process's current configuration.

>>> import ti_notebook as ti
>>> ti.init(arch=ti.cpu, default_fp=ti.f64)
>>> ti.session.config.current().default_fp
f64
"""

from __future__ import annotations

import dataclasses
import os

from ti_notebook.compiler import backends
from ti_notebook.compiler.request import CacheSettings
from ti_notebook.ir.options import CompileOptions
from ti_notebook.lang import settings, types, validate


class Arch(str):
    """An architecture name; ``ti.cpu == "cpu"``."""


cpu = x64 = arm64 = Arch("cpu")
cuda = Arch("cuda")
gpu = Arch("gpu")
vulkan = Arch("vulkan")
metal = Arch("metal")
opengl = Arch("opengl")


@dataclasses.dataclass
class Config:
    """Everything ``ti.init`` accepts. Fields marked *codegen* change generated code."""

    arch: str = "cpu"
    default_fp: types.DataType = types.f32  # codegen
    default_ip: types.DataType = types.i32  # codegen
    debug: bool = False  # codegen: bounds checks, asserts
    check_bounds: bool = True  # codegen: out-of-range indices raise (passes/prove_bounds.py)
    fast_math: bool = True  # codegen
    kernel_profiler: bool = False
    offline_cache: bool = True
    offline_cache_file_path: str = ""
    offline_cache_max_size_of_files: int = 100 * 1024 * 1024
    offline_cache_cleaning_policy: str = "lru"  # the page's default
    make_thread_local: bool = True  # codegen
    make_block_local: bool = True  # codegen
    # codegen: demote_atomics and promote_accumulators (Taichi's name for its optimising
    # passes); False keeps every atomic and every global access as written
    advanced_optimization: bool = True
    cpu_max_num_threads: int = 0  # 0 = all cores
    random_seed: int = 0
    print_ir: bool = False
    verbose: bool = True
    ad_stack_size: int = 32  # codegen: entries of a grad kernel's per-thread stacks
    cuda_sim: bool = False  # arch=cuda: run the CUDA code on the SIMT emulator (TI_CUDA_SIM=1)
    # Taichi's pre-allocated device memory pool; fields here get their own allocations,
    # so these are accepted (Taichi's programs pass them) and change nothing
    device_memory_fraction: float = 0.0
    device_memory_GB: float = 0.0

    def codegen_key(self) -> tuple:
        """The options that change generated code (the compiler's own key, plus the arch)."""
        return (self.arch, *self.compile_options().codegen_key())

    @property
    def num_threads(self) -> int:
        cores = os.cpu_count() or 1
        return min(self.cpu_max_num_threads, cores) if self.cpu_max_num_threads > 0 else cores

    def backend(self) -> backends.Backend:
        """The backend ``arch`` selected, with this session's thread count."""
        return backends.backend_for(self.arch, self.num_threads, self.cuda_sim)

    def compile_options(self, default_loop_config: dict | None = None) -> CompileOptions:
        """What the compiler reads of this configuration (plus a kernel's loop defaults)."""
        return CompileOptions(
            default_fp=self.default_fp,
            default_ip=self.default_ip,
            debug=self.debug,
            check_bounds=self.check_bounds,
            fast_math=self.fast_math,
            make_thread_local=self.make_thread_local,
            make_block_local=self.make_block_local,
            advanced_optimization=self.advanced_optimization,
            kernel_profiler=self.kernel_profiler,
            default_loop_config=default_loop_config or {},
            print_ir=self.print_ir,
            ad_stack_size=self.ad_stack_size,
        )

    def cache_settings(self, enabled: bool | None = None) -> CacheSettings:
        """The offline cache's settings (``enabled`` overrides ``offline_cache``)."""
        return CacheSettings(
            enabled=self.offline_cache if enabled is None else enabled,
            path=self.offline_cache_file_path,
            max_size=self.offline_cache_max_size_of_files,
            policy=self.offline_cache_cleaning_policy,
        )


_current = Config()
_initialized = False
# the user's objects read the configuration (default types, threads) through lang/settings
settings.install(_current)


def generation() -> int:
    """Changes whenever ti.init/ti.reset replaces the configuration (or a tree dies):
    ``lang/settings.py`` keeps the counter, which the objects bump too."""
    return settings.generation


def current() -> Config:
    return _current


def is_initialized() -> bool:
    return _initialized


def resolve_arch(arch: str | None, cuda_sim: bool = False) -> str:
    """The arch ``ti.init(arch=arch)`` runs on (``TI_ARCH`` wins when set). An arch with
    no backend gives ``"cpu"`` with a RuntimeWarning, as ``ti.init`` gives it.

        >>> import ti_notebook as ti
        >>> ti.resolve_arch(ti.x64)
        'cpu'
    """
    requested = os.environ.get("TI_ARCH") or arch or "cpu"
    return backends.resolve_arch(str(requested), cuda_sim)


def make_config(arch: str | None = None, **options) -> Config:
    """Builds a Config from ``ti.init`` keywords, rejecting unknown ones."""
    if "check_out_of_bound" in options:  # Taichi's name for check_bounds
        options.setdefault("check_bounds", options.pop("check_out_of_bound"))
    names = {f.name for f in dataclasses.fields(Config)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise TypeError(f"ti.init() got unknown option(s) {unknown}; known: {sorted(names)}")
    defaults = Config()
    for name, value in options.items():
        default = getattr(defaults, name)
        if not isinstance(default, types.DataType):  # dtypes are checked below
            options[name] = validate.option(name, value, type(default))
    config = Config(**options)
    config.check_bounds = config.check_bounds or config.debug  # debug implies the checks
    if os.environ.get("TI_CUDA_SIM") == "1":
        config.cuda_sim = True
    config.arch = resolve_arch(arch, config.cuda_sim)
    if config.arch != "cuda":
        config.cuda_sim = False  # the emulator runs CUDA code only
    policies = ("never", "version", "lru", "fifo")
    if config.offline_cache_cleaning_policy not in policies:
        raise ValueError(
            f"offline_cache_cleaning_policy={config.offline_cache_cleaning_policy!r}: "
            f"use one of {', '.join(policies)}"
        )
    if os.environ.get("TI_OFFLINE_CACHE") == "0":
        config.offline_cache = False
    for name in ("default_fp", "default_ip"):
        value = getattr(config, name)
        dtype = types.to_dtype(value, types.i32, types.f32)
        if dtype is None:
            raise TypeError(f"ti.init({name}=...) needs a type like ti.f64, got {value!r}")
        setattr(config, name, dtype)
    if not config.default_fp.is_float or config.default_ip.is_float:
        raise TypeError("default_fp must be a float type and default_ip an integer type")
    return config


def bump_generation() -> None:
    """Compiled kernels become stale (the profiler was switched, say)."""
    settings.bump_generation()


def set_current(config: Config | None) -> None:
    """Installs ``config`` (None: back to the uninitialised defaults)."""
    global _current, _initialized
    _current = config if config is not None else Config()
    _initialized = config is not None
    settings.install(_current)
    settings.bump_generation()
