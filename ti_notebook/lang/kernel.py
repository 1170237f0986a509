"""``@ti.kernel`` and ``@ti.func``.

A kernel compiles once per *specialisation* (the values of its ``ti.template()``
arguments and the element types of its ndarray arguments) and launches from then on
with no compilation:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=4)
    >>> @ti.kernel
    ... def fill(v: ti.i32):
    ...     for i in x:
    ...         x[i] = v + i
    >>> fill(10)
    >>> x.to_numpy().tolist()
    [10, 11, 12, 13]
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import threading
import weakref

from ti_notebook.errors import (
    KernelInterrupted,
    SourcePos,
    TiError,
    TiSyntaxError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.lang import config as _config
from ti_notebook.lang import template_keys, types
from ti_notebook.lang.cached_compile import compile_cached
from ti_notebook.lang.compile import CompileRequest, Param, Stages
from ti_notebook.lang.ndarray import Ndarray, NdarrayType, Template
from ti_notebook.runtime import random_streams

_kernels: weakref.WeakSet = weakref.WeakSet()
_COMPILE_LOCK = threading.RLock()


@dataclasses.dataclass
class KernelConfig(_config.Config):
    """The session's config plus one kernel's own defaults (see ``Kernel.configure``).

    The defaults are part of ``codegen_key``, so the offline cache keeps kernels compiled
    with different defaults apart.
    """

    default_loop_config: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, config: _config.Config, loop: dict, offline_cache: bool | None) -> KernelConfig:
        values = {f.name: getattr(config, f.name) for f in dataclasses.fields(_config.Config)}
        if offline_cache is not None:
            values["offline_cache"] = offline_cache
        return cls(**values, default_loop_config=dict(loop))

    def codegen_key(self) -> tuple:
        return (*super().codegen_key(), tuple(sorted(self.default_loop_config.items())))


def _resolve_annotation(func, annotation):
    if isinstance(annotation, str):
        try:
            return eval(annotation, func.__globals__)  # noqa: S307 - the user's own annotation
        except Exception:
            return annotation
    return annotation


def _param_of(func, p: inspect.Parameter, cfg) -> Param:
    ann = _resolve_annotation(func, p.annotation)
    if ann is Template or isinstance(ann, Template):
        return Param(p.name, "template")
    if ann is NdarrayType or isinstance(ann, NdarrayType):
        spec = ann if isinstance(ann, NdarrayType) else NdarrayType()
        return Param(p.name, "ndarray", spec.dtype, spec.ndim)
    if ann is inspect.Parameter.empty:
        raise TiTypeError(
            f"kernel '{func.__name__}': parameter '{p.name}' has no type annotation",
            hint=f"annotate it, e.g. '{p.name}: ti.i32', '{p.name}: ti.template()' or "
            f"'{p.name}: ti.types.ndarray()'",
        )
    dtype = types.to_dtype(ann, cfg.default_ip, cfg.default_fp)
    if dtype is None:
        raise TiTypeError(
            f"kernel '{func.__name__}': parameter '{p.name}' has an unsupported annotation {ann!r}",
            hint="use a scalar type (ti.i32, ti.f32, int, float), ti.template() or "
            "ti.types.ndarray()",
        )
    return Param(p.name, "scalar", dtype)


def _forget_dead(kernel_ref, _dead_ref) -> None:
    """A template object died: its kernel drops the specialisations keyed by it."""
    kernel = kernel_ref()
    if kernel is not None:
        for key in [key for key in list(kernel._compiled) if template_keys.dead(key)]:
            kernel._compiled.pop(key, None)


class Kernel:
    """A compiled-on-demand kernel; call it like the Python function it decorates."""

    def __init__(self, func) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.name = func.__name__
        self.signature = inspect.signature(func)
        self._source: FunctionSource | None = None
        self._params: list[Param] | None = None
        self._compiled: dict = {}
        self._generation = -1
        self._last = None
        self._fast = None
        self._loop_defaults: dict = {}
        self._offline_cache: bool | None = None
        self._on_death = functools.partial(_forget_dead, weakref.ref(self))
        _kernels.add(self)

    def configure(
        self,
        *,
        parallelize: int | None = None,
        block_dim: int | None = None,
        offline_cache: bool | None = None,
    ) -> Kernel:
        """Sets this kernel's own defaults (each call replaces the previous ones); returns it.

        ``parallelize`` and ``block_dim`` apply to every outermost ``for`` of the kernel
        (those of the ``ti.func``\\ s it inlines too) as if ``ti.loop_config`` preceded
        it; a ``ti.loop_config`` written before a loop wins for the values it sets.
        ``offline_cache=False`` compiles this kernel without the offline cache, ``True``
        with it, ``None`` as ``ti.init`` says. ``%%kernel --parallelize N --block-dim N
        --no-cache`` uses this. Compiled code is dropped; the next call recompiles.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> x = ti.field(ti.i32, shape=64)
            >>> @ti.kernel
            ... def fill():
            ...     for i in x:
            ...         x[i] = i
            >>> fill.configure(parallelize=2, block_dim=16).report["tasks"][-1]["loop_config"]
            {'block_dim': 16, 'parallelize': 2}
            >>> fill.configure().report["tasks"][-1]["loop_config"]
            {}
        """
        loop = {}
        for name, value in (("block_dim", block_dim), ("parallelize", parallelize)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TiValueError(
                    f"kernel '{self.name}': {name} must be a positive integer, got {value!r}"
                )
            loop[name] = value
        self._loop_defaults = loop
        self._offline_cache = None if offline_cache is None else bool(offline_cache)
        self._compiled.clear()
        self._fast = None
        self._last = None
        return self

    def _compile_config(self) -> _config.Config:
        config = _config.current()
        if not self._loop_defaults and self._offline_cache is None:
            return config
        return KernelConfig.of(config, self._loop_defaults, self._offline_cache)

    # -- specialisation --------------------------------------------------------------
    def params(self) -> list[Param]:
        cfg = _config.current()
        if self._params is None or self._generation != _config.generation():
            self._params = [
                _param_of(self.func, p, cfg) for p in self.signature.parameters.values()
            ]
            self._compiled.clear()
            self._fast = None
            self._generation = _config.generation()
        return self._params

    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = FunctionSource.of(self.func)
        return self._source

    def return_type(self):
        ann = _resolve_annotation(self.func, self.signature.return_annotation)
        if ann in (inspect.Signature.empty, None):
            return None
        cfg = _config.current()
        dtype = types.to_dtype(ann, cfg.default_ip, cfg.default_fp)
        if dtype is None:
            raise TiTypeError(f"kernel '{self.name}': unsupported return annotation {ann!r}")
        return dtype

    def _specialise(self, args: tuple):
        params = self.params()
        if len(args) != len(params):
            raise TiTypeError(
                f"kernel '{self.name}' takes {len(params)} argument(s) but {len(args)} were given",
                hint=f"call it as {self.name}{self.signature}",
            )
        key, runtime_args, templates, concrete = [], [], {}, []
        for param, value in zip(params, args, strict=True):
            if param.kind == "template":
                templates[param.name] = value
                key.append(template_keys.key_or_error(value, self._on_death, param.name, self.name))
                concrete.append(param)
            elif param.kind == "ndarray":
                array = getattr(value, "_array", value)
                dtype = types.from_numpy_dtype(array.dtype) if hasattr(array, "dtype") else None
                if dtype is None or not hasattr(array, "ndim"):
                    raise TiTypeError(
                        f"argument '{param.name}' of kernel '{self.name}' must be a NumPy "
                        f"array or ti.ndarray, got {type(value).__name__}"
                    )
                _check_array(self.name, param, dtype, array.ndim)
                key.append((dtype.name, array.ndim))
                concrete.append(Param(param.name, "ndarray", param.dtype or dtype, array.ndim))
                runtime_args.append(value)
            else:
                concrete.append(param)
                runtime_args.append(value)
        return tuple(key), runtime_args, templates, concrete

    def compiled_for(self, args: tuple):
        key, runtime_args, templates, concrete = self._specialise(args)
        entry = self._compiled.get(key)
        if entry is None:
            # One compile at a time: tracing finalises ti.root's pending tree and the
            # JIT is shared, so two threads' first calls must not interleave.
            with _COMPILE_LOCK:
                entry = self._compiled.get(key)
                if entry is None:
                    request = CompileRequest(
                        self.name,
                        self.source(),
                        concrete,
                        templates,
                        self.return_type(),
                        self._compile_config(),
                    )
                    # Not the trace's inputs: they hold the template objects, which
                    # must be free to die (their specialisation is dropped then).
                    entry = (*compile_cached(request)[:2], {})
                    # the same stream on a cold compile and a cache hit: see random_streams
                    random_streams.attach(entry[0], request, _config.current())
                    self._compiled[key] = entry
        self._last = entry
        return entry, runtime_args

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # IPython and pytest show the caller's line, not this one
        fast = self._fast
        try:
            if fast is not None and not kwargs and self._generation == _config._generation:
                # All-scalar signature, already compiled: straight to the launch.
                return fast.launch(args)
            return self._slow_call(args, kwargs)
        except TiError as error:
            # Errors about the call itself point at the kernel's definition.
            raise error.locate(self.definition_pos()) from None
        except KeyboardInterrupt:  # SIGINT stopped it: no runtime frames
            raise KernelInterrupted(
                f"kernel '{self.name}' was interrupted; fields keep what it wrote"
            ) from None

    def definition_pos(self) -> SourcePos:
        source = self.source()
        return source.pos(source.function_def, self.name)

    def _slow_call(self, args, kwargs):
        if kwargs:
            try:
                bound = self.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TiTypeError(f"kernel '{self.name}': {exc}") from None
            args = tuple(bound.arguments.values())
        if not _config.is_initialized():
            _config.set_current(_config.make_config())
        (compiled, _stages, _inputs), runtime_args = self.compiled_for(args)
        if all(p.kind == "scalar" for p in self._params):
            self._fast = compiled
        return compiled.launch(runtime_args)

    # -- introspection ---------------------------------------------------------------
    def stages(self, *args) -> Stages:
        """Every stage's text for the specialisation ``args`` selects (DESIGN.md §3)."""
        if args or not self._compiled or self._generation != _config.generation():
            if not args and any(p.kind != "scalar" for p in self.params()):
                if self._last is None:
                    raise TiTypeError(
                        f"kernel '{self.name}' has template or ndarray parameters",
                        hint="pass example arguments: kernel.stages(x, arr)",
                    )
                return self._last[1]
            if not args:
                args = tuple(_example_value(p) for p in self.params())
            (_compiled, stages, _inputs), _ = self.compiled_for(args)
            return stages
        return self._last[1]

    @property
    def report(self) -> dict:
        return self.stages()["report"]

    def __repr__(self) -> str:
        return f"<ti.kernel {self.name}>"


def _check_array(kernel_name: str, param: Param, dtype, ndim: int) -> None:
    if param.dtype is not None and dtype is not param.dtype:
        raise TiValueError(
            f"argument '{param.name}' of kernel '{kernel_name}' must have dtype "
            f"{param.dtype}, got {dtype}",
            hint=f"convert it: a.astype(np.{param.dtype.np_dtype})",
        )
    if param.ndim is not None and ndim != param.ndim:
        raise TiValueError(
            f"argument '{param.name}' of kernel '{kernel_name}' must be {param.ndim}-D, "
            f"got {ndim}-D"
        )


def _example_value(param: Param):
    return 0.0 if param.dtype.is_float else 0


class Func:
    """A ``@ti.func``: inlined into the kernels that call it."""

    def __init__(self, func) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.name = func.__name__
        self.qualname = f"{func.__module__}.{func.__qualname__}"
        self.signature = inspect.signature(func)
        self._source: FunctionSource | None = None

    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = FunctionSource.of(self.func)
        return self._source

    def parameters(self) -> dict:
        """name → "template", a DataType, or None (typed by the value passed)."""
        cfg = _config.current()
        found = {}
        for p in self.signature.parameters.values():
            ann = _resolve_annotation(self.func, p.annotation)
            if ann is Template or isinstance(ann, Template):
                found[p.name] = "template"
            elif ann is inspect.Parameter.empty:
                found[p.name] = None
            else:
                found[p.name] = types.to_dtype(ann, cfg.default_ip, cfg.default_fp)
        return found

    def __call__(self, *args, **kwargs):
        raise TiSyntaxError(
            f"ti.func '{self.name}' can only be called from a kernel or another ti.func",
            hint="decorate the caller with @ti.kernel, or call the Python function directly",
        )

    def __repr__(self) -> str:
        return f"<ti.func {self.name}>"


def kernel(func) -> Kernel:
    """Decorator: makes ``func`` a kernel (see the module docstring)."""
    return Kernel(func)


def func(fn) -> Func:
    """Decorator: makes ``fn`` a ti.func that kernels inline."""
    return Func(fn)


def reset_all_kernels() -> None:
    for k in list(_kernels):
        k._compiled.clear()
        k._fast = None
        k._params = None
        k._last = None


_ = Ndarray  # ti.ndarray values are accepted through their NumPy array
