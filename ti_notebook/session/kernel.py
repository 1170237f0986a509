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

import functools
import inspect
import types as pytypes
import weakref
from collections.abc import Mapping

from ti_notebook.compiler.report import KernelReport
from ti_notebook.compiler.request import Param
from ti_notebook.compiler.stages import Stages
from ti_notebook.errors import (
    KernelInterrupted,
    SourcePos,
    TiError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.frontend.source import source_of
from ti_notebook.ir.compound_types import CompoundType
from ti_notebook.lang import settings as _settings
from ti_notebook.lang.data_oriented import BoundKernel, defined_in_class
from ti_notebook.lang.func import Func, KernelBase, func, resolve_annotation
from ti_notebook.session import (
    ad_tape,
    compound_args,
    fast_calls,
    kernel_params,
    stale_globals,
    template_keys,
)
from ti_notebook.session import config as _config
from ti_notebook.session.compiling import (
    COMPILE_LOCK,
    Compiled,
    compile_specialisation,
    stages_for_arch,
)
from ti_notebook.session.compound_args import CompoundLauncher
from ti_notebook.session.configurations import Held, Stash, loop_defaults
from ti_notebook.session.specialisation import specialise

__all__ = ["Func", "Kernel", "func", "kernel", "reset_all_kernels"]

_kernels: weakref.WeakSet = weakref.WeakSet()


def _forget_dead(kernel_ref, _dead_ref) -> None:
    """A template object died: its kernel drops the specialisations keyed by it."""
    kernel = kernel_ref()
    if kernel is not None:
        for compiled in (kernel._compiled, *kernel._stash.compiled_sets()):
            for key in [key for key in list(compiled) if template_keys.dead(key)]:
                if kernel._last is compiled.get(key):  # its code must go with it
                    kernel._last = None
                compiled.pop(key, None)


class Kernel(KernelBase):
    """A compiled-on-demand kernel; call it like the Python function it decorates."""

    def __init__(self, func) -> None:
        super().__init__(func)
        self._params: list[Param] | None = None
        self._compiled: dict[tuple, Compiled] = {}  # specialisation key -> its code
        self._generation = -1
        self._last: Compiled | None = None  # what the last call ran
        self._fast = None
        self._watch: tuple = ()  # global numbers read when compiling (stale_globals.py)
        self._loop_defaults: dict = {}
        self._offline_cache: bool | None = None
        self._stash = Stash()  # the configurations configure() left (configurations.py)
        self._on_death = functools.partial(_forget_dead, weakref.ref(self))
        self._autodiff = ""  # "reverse" / "forward": a grad kernel (session/ad_kernel.py)
        self._adjoints: dict = {}
        _kernels.add(self)

    def __get__(self, instance, owner=None):
        """``obj.kernel`` of a kernel defined in a ``@ti.data_oriented`` class: bound to
        ``obj`` (``lang/data_oriented.py``)."""
        if instance is None or not defined_in_class(self.func):
            return self
        return BoundKernel(self, instance)

    @property
    def grad(self) -> Kernel:
        """The grad kernel (reverse mode): called with the kernel's arguments, it adds
        the kernel's derivatives into the ``.grad`` fields (``passes/make_adjoint.py``)."""
        from ti_notebook.session import ad_kernel

        return ad_kernel.adjoint_kernel(self, "reverse")

    def configure(
        self,
        *,
        parallelize: int | None = None,
        block_dim: int | None = None,
        serialize: bool | None = None,
        offline_cache: bool | None = None,
    ) -> Kernel:
        """Sets this kernel's own defaults (each call replaces the previous ones); returns it.

        ``parallelize``, ``block_dim`` and ``serialize`` apply to every outermost ``for``
        of the kernel (those of the ``ti.func``\\ s it inlines too) as if
        ``ti.loop_config`` preceded it; a ``ti.loop_config`` written before a loop wins
        for the values it sets. :attr:`configuration` reads the values back, so
        ``k.configure(**saved)`` restores what ``saved = k.configuration`` held.
        ``offline_cache=False`` compiles this kernel without the offline cache, ``True``
        with it, ``None`` as ``ti.init`` says. ``%%kernel --parallelize N --block-dim N
        --no-cache`` uses this. The compiled code of the configuration left is kept aside
        (for the last 64 configurations, until ``ti.reset``/``ti.init``): going back to
        one of them runs its code again with no compile and no cache load. A configuration
        not seen in this session compiles on the next call, or loads from the offline cache
        (its key holds the defaults).

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
            >>> held = fill.configure(parallelize=2, block_dim=16).report
            >>> fill.configure().configure(parallelize=2, block_dim=16).report is held
            True
        """
        loop = loop_defaults(self.name, parallelize, block_dim, serialize)
        generation = _config.generation()
        if self._compiled and self._generation == generation:
            self._stash.put(self._stash_key(), Held(generation, self._compiled, self._last))
        self._loop_defaults = loop
        self._offline_cache = None if offline_cache is None else bool(offline_cache)
        held = self._stash.take(self._stash_key(), generation)
        if held is not None and generation == self._generation:
            self._compiled, self._last = held.compiled, held.last
        else:
            self._compiled, self._last = {}, None
        self._drop_fast()  # rebuilt by the next call from the code now held
        for adjoint in self._adjoints.values():  # its loops are this kernel's loops
            adjoint.configure(**self.configuration)
        return self

    def _stash_key(self) -> tuple:
        return tuple(sorted(self._loop_defaults.items())), self._offline_cache

    @property
    def configuration(self) -> dict:
        """The keywords :meth:`configure` last set (those it was given, not None): what
        ``configure(**kernel.configuration)`` sets again. A new dict each time.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> @ti.kernel
            ... def noop():
            ...     pass
            >>> noop.configure(block_dim=32, serialize=False).configuration
            {'block_dim': 32, 'serialize': False}
            >>> noop.configure().configuration
            {}
        """
        out = dict(self._loop_defaults)
        if self._offline_cache is not None:
            out["offline_cache"] = self._offline_cache
        return out

    # -- specialisation --------------------------------------------------------------
    def params(self) -> list[Param]:
        if self._params is None or self._generation != _config.generation():
            method = defined_in_class(self.func)
            self._params = [
                kernel_params.param_of(self.func, p, is_self=method and k == 0)
                for k, p in enumerate(self.signature.parameters.values())
            ]
            self._compiled.clear()
            self._stash.clear()
            self._drop_fast()
            self._generation = _config.generation()
        return self._params

    @property
    def parameters(self) -> tuple[Param, ...]:
        """The parameters as this session types them: each has ``name``, ``kind``
        (scalar, template or ndarray), ``dtype`` and ``ndim`` (None where a call decides).

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> @ti.kernel
            ... def scale(a: ti.types.ndarray(), k: float): ...
            >>> [(p.name, p.kind, p.dtype) for p in scale.parameters]
            [('a', 'ndarray', None), ('k', 'scalar', f32)]
        """
        return tuple(self.params())

    def return_type(self):
        """None, a scalar type, or a ``CompoundType`` (a vector/matrix, a struct, a tuple)."""
        ann = resolve_annotation(self.func, self.signature.return_annotation)
        if ann is inspect.Signature.empty or ann is None:
            return None
        return compound_args.return_type_of(ann, self.name)

    def compiled_for(self, args: tuple) -> tuple[Compiled, list]:
        """The compiled code of the specialisation ``args`` select (compiling it on first
        use) and the arguments its launch takes."""
        chosen = specialise(self, args)
        entry = self._compiled.get(chosen.key)
        if entry is None:
            with COMPILE_LOCK:
                entry = self._compiled.get(chosen.key)
                if entry is None:
                    entry = compile_specialisation(self, chosen)
                    self._watch = entry.watch
                    self._compiled[chosen.key] = entry
        self._last = entry
        return entry, chosen.runtime_args

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # IPython and pytest show the caller's line, not this one
        if self._watch:  # a global number it compiled with has changed?
            self._warn_stale()
        if ad_tape.active and not self._autodiff:  # a Tape records it, or FwdMode runs its dual
            forward = ad_tape.intercept(self, args)
            if forward is not None:
                return forward(*args, **kwargs)
        fast = self._fast
        try:
            if fast is not None and not kwargs and self._generation == _settings.generation:
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

    def _warn_stale(self) -> None:
        stale = stale_globals.changed(self.func, self._watch)
        if stale:  # once per name: it leaves the watch
            gone = {name for name, _then, _now in stale}
            self._watch = tuple(pair for pair in self._watch if pair[0] not in gone)
            stale_globals.tell(self.name, self.func, stale)

    def definition_pos(self) -> SourcePos:
        source = source_of(self)
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
        entry, runtime_args = self.compiled_for(args)
        compiled = entry.launcher
        params = [p for p in self._params if p.kind != "template"]
        return_type = self.return_type()
        launcher = compiled
        if any(p.kind == "compound" for p in params) or isinstance(return_type, CompoundType):
            launcher = CompoundLauncher(compiled, params, return_type)
        fast_calls.register(self, args, launcher, compound=launcher is not compiled)
        return launcher.launch(runtime_args)

    def _plain_class(self) -> type:
        """The kernel's class as defined, not the class of its own that a warm fast path
        gives it (``session/fast_calls.py``): what a subclass of this kernel derives from."""
        return fast_calls.kernel_class(self)

    def _drop_fast(self) -> None:
        """Forgets the fast path: calls go through ``Kernel.__call__`` until the next
        compile or call registers it again."""
        self._fast = None
        fast_calls.take_back(self)

    # -- introspection ---------------------------------------------------------------
    def stages(self, *args, arch: str | None = None, compute_capability: str = "sm_90") -> Stages:
        """Every stage's text for the specialisation ``args`` selects (DESIGN.md §3).

        ``arch="cuda"`` compiles that specialisation for CUDA (``compute_capability``:
        ``"sm_80"``, ``"sm_90"``...) whatever the session's arch, with no device needed:
        its stages have ``ptx`` where the CPU's have ``asm``, and the report's
        ``launches`` say how each task launches. The kernel's CPU code is not touched.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> @ti.kernel
            ... def twice(a: ti.f32) -> ti.f32:
            ...     return a * 2
            >>> ptx = twice.stages(arch="cuda", compute_capability="sm_80")["ptx"]
            >>> ".target sm_80" in ptx, twice(1.5)
            (True, 3.0)
        """
        if arch is not None:
            return self._stages_for(arch, compute_capability, args)
        if args or not self._compiled or self._generation != _config.generation():
            if not args and any(p.kind not in ("scalar", "compound") for p in self.params()):
                if self._last is None:
                    raise TiTypeError(
                        f"kernel '{self.name}' has template or ndarray parameters",
                        hint="pass example arguments: kernel.stages(x, arr)",
                    )
                return self._last.stages
            if not args:
                args = tuple(kernel_params.example_value(p) for p in self.params())
            entry, _ = self.compiled_for(args)
            return entry.stages
        return self._last.stages

    def _stages_for(self, arch: str, compute_capability: str, args: tuple) -> Stages:
        """The stages of ``args``' specialisation compiled for ``arch`` (not the session's)."""
        if arch not in ("cuda", "gpu"):
            raise TiValueError(
                f"kernel '{self.name}': stages(arch={arch!r}) is not a target to compile for",
                hint='use arch="cuda" (or leave arch out for the session\'s own)',
            )
        if not _config.is_initialized():
            _config.set_current(_config.make_config())
        params = self.params()
        if not args:
            if any(p.kind not in ("scalar", "compound") for p in params):
                raise TiTypeError(
                    f"kernel '{self.name}' has template or ndarray parameters",
                    hint=f'pass example arguments: kernel.stages(x, arr, arch="{arch}")',
                )
            args = tuple(kernel_params.example_value(p) for p in params)
        return stages_for_arch(self, specialise(self, args), compute_capability)

    @property
    def report(self) -> KernelReport:
        """What the compiler did (``compiler/report.py``) for the last specialisation, or
        for the one scalar-only parameters select (compiling it if needed)."""
        return self.stages()["report"]

    @property
    def specialisations(self) -> Mapping:
        """The specialisations compiled so far in this session: their key (template
        values' identities, ndarray types) → :class:`Stages`, report included.

            >>> import ti_notebook as ti
            >>> ti.init(arch=ti.cpu)
            >>> @ti.kernel
            ... def first(a: ti.types.ndarray()) -> ti.f64:
            ...     return a[0]
            >>> import numpy as np
            >>> first(np.ones(2)), first(np.ones(3, np.int32)), len(first.specialisations)
            (1.0, 1.0, 2)
        """
        if self._generation != _config.generation():
            return pytypes.MappingProxyType({})
        return pytypes.MappingProxyType({k: v.stages for k, v in self._compiled.items()})

    def __repr__(self) -> str:
        return f"<ti.kernel {self.name}>"


def kernel(func) -> Kernel:
    """Decorator: makes ``func`` a kernel (see the module docstring)."""
    return Kernel(func)


def reset_all_kernels() -> None:
    for k in list(_kernels):
        k._compiled.clear()
        k._stash.clear()
        k._drop_fast()
        k._params = None
        k._last = None
