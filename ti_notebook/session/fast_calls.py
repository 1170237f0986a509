"""The call fast path of kernels whose parameters are scalars and ndarrays.

A call normally specialises first: it reads every parameter's annotation, checks each
array against it and builds the specialisation key (~10 µs for two arrays). For a
kernel with only scalar and plain ndarray parameters, the key is just each NumPy
argument's dtype and number of dimensions, so :class:`NdarrayDispatch` keeps the
launcher of each key seen before, with the launch generated for it
(``runtime/cpu/launch_call.py``: every argument checked and packed, and the launch), and a
call goes straight to the latest one. :func:`direct` does the same for all-scalar
kernels.

The latest launch is also the kernel object's own ``__call__``, with one positional
parameter per kernel parameter: the kernel gets a class of its own (:func:`own_class`)
whose ``__call__`` is that generated function, so ``kernel(a, b)`` is one Python frame
(a ``__call__(*args)`` that forwards costs more than the checks it forwards to). It
takes the call when nothing else needs to see it: no keyword or extra arguments, no
Tape or FwdMode open, the same ``ti.init`` session; else, and for an argument not in its
common form, it hands the call to the kernel class's ``__call__``, which specialises
or raises the errors naming the argument. Anything that drops the fast path
(``configure``, a new session, ``ti.reset``) gives the kernel its class back.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def twice(a: ti.types.ndarray(ti.f32, ndim=1)):
    ...     for i in range(a.shape[0]):
    ...         a[i] *= 2
    >>> a = np.ones(4, np.float32)
    >>> twice(a); twice(a); a.tolist()
    [4.0, 4.0, 4.0, 4.0]
    >>> type(twice) is ti.Kernel, isinstance(twice, ti.Kernel)
    (False, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import numpy as np

from ti_notebook.errors import KernelInterrupted, TiError
from ti_notebook.lang import settings as _settings
from ti_notebook.runtime.cpu.launch_call import indented, launch_code, make_call
from ti_notebook.runtime.launch import CompiledKernel
from ti_notebook.session import ad_tape

_ABSENT = object()  # a parameter the call did not pass


def own_class(kernel) -> type:
    """The kernel object's class of its own (made once, holding only a weak reference
    to it), whose ``__call__`` the fast path sets. The kernel is not switched to it."""
    cls = kernel.__dict__.get("_own_class")
    # (a copy of the kernel's __dict__ elsewhere must not share it: its owner is checked)
    if cls is None or cls._owner() is not kernel:
        base = kernel_class(kernel)
        cls = type(base.__name__, (base,), {"__module__": base.__module__})
        cls.__qualname__ = base.__qualname__
        cls._owner = weakref.ref(kernel)
        kernel._own_class = cls
    return cls


def kernel_class(kernel) -> type:
    """The class ``kernel`` has when no fast path is installed: what to subclass (a
    subclass of its own class would inherit its generated ``__call__``)."""
    return next(cls for cls in type(kernel).__mro__ if "_owner" not in cls.__dict__)


def take_back(kernel) -> None:
    """The kernel's calls go through its class's ``__call__`` again, and its own class
    lets go of the generated one (which holds the compiled code)."""
    cls = kernel.__dict__.get("_own_class")
    if cls is not None and cls._owner() is kernel:
        if type(kernel) is cls:
            kernel.__class__ = kernel_class(kernel)
        if "__call__" in cls.__dict__:
            del cls.__call__


def method_for(launcher, generic: Callable, *, tape: bool) -> Callable | None:
    """``__call__(self, a0, ...)``: ``launcher``'s inline launch behind the checks every
    kernel call makes (``tape``: whether an open Tape or FwdMode must see the call);
    ``generic(self, *args, **kwargs)`` takes any other call. None when ``launcher``'s
    launches can't be inlined."""
    if not isinstance(launcher, CompiledKernel):
        return None
    code = launch_code(launcher)
    if code is None:
        return None
    names = [f"a{k}" for k in range(code.count)]
    params = "".join(f"{n}=absent, " for n in names) + "/, " if names else ""
    passed = f"*[a for a in ({', '.join(names)},) if a is not absent], " if names else ""
    others = "more or kw or tape.active" if tape else "more or kw"
    source = (
        f"def __call__(self, {params}*more, **kw):\n"
        "    __tracebackhide__ = True  # IPython and pytest show the caller's line\n"
        "    if self._watch:  # a global number it compiled with has changed?\n"
        "        self._warn_stale()\n"
        f"    if not ({others}) and settings.generation == {_settings.generation}"
        f" and {code.test}:\n"
        "        try:\n"
        f"{indented(code.block, 3)}"
        "        except TiError as error:  # errors about the call point at the kernel\n"
        "            raise error.locate(self.definition_pos()) from None\n"
        "        except KeyboardInterrupt:  # SIGINT stopped it: no runtime frames\n"
        "            raise KernelInterrupted(interrupted) from None\n"
        f"    return generic(self, {passed}*more, **kw)\n"
    )
    scope = dict(
        code.scope,
        absent=_ABSENT,
        tape=ad_tape,
        settings=_settings,
        generic=generic,
        TiError=TiError,
        KernelInterrupted=KernelInterrupted,
    )
    name = f"<ti_notebook __call__ of {launcher.name}>"
    exec(compile(source, name, "exec"), scope)  # noqa: S102
    return scope["__call__"]


class NdarrayDispatch:
    """Launchers by the (dtype, ndim) of each array argument, in parameter order.

    ``owner`` is the kernel's own class (:func:`own_class`): the latest key's method
    becomes its ``__call__``; ``generic`` is what that method hands other calls to."""

    def __init__(
        self,
        slow_call: Callable,
        array_positions: Sequence[int],
        count: int,
        owner: type | None = None,
        generic: Callable | None = None,
        tape: bool = True,
    ) -> None:
        self.slow_call = slow_call
        self.positions = tuple(array_positions)
        self.count = count
        self.owner, self.generic, self.tape = owner, generic, tape
        # key -> (launcher, its generated call, its generated method or None)
        self.launchers: dict[tuple, tuple[object, Callable, Callable | None]] = {}
        # the generated call of the latest key (most calls repeat it); it hands any call
        # it does not take to other()
        self.launch: Callable[[tuple], object] = self.other

    def key(self, args: tuple) -> tuple | None:
        """The key of ``args``, or None when the call must specialise the long way."""
        if len(args) != self.count:
            return None
        key = []
        for k in self.positions:
            array = args[k]
            if type(array) is not np.ndarray:
                return None
            key.append(array.dtype)
            key.append(array.ndim)
        return tuple(key)

    def add(self, args: tuple, launcher) -> None:
        key = self.key(args)
        if key is not None:
            call = make_call(launcher, self.other)
            method = None
            if self.owner is not None:
                method = method_for(launcher, self.generic, tape=self.tape)
            self.launchers[key] = (launcher, call, method)
            self._latest(call, method)

    def _latest(self, call: Callable, method: Callable | None) -> None:
        self.launch = call
        if self.owner is not None:
            self.owner.__call__ = method or self.generic

    def other(self, args: tuple):
        """A call the latest key's generated call does not take: another key seen
        before becomes the latest (its launcher's converters check this call and raise
        the errors that name the argument); else the long way."""
        key = self.key(args)
        found = self.launchers.get(key) if key is not None else None
        if found is None:
            return self.slow_call(args, {})
        launcher, call, method = found
        self._latest(call, method)
        return launcher.launch(args)


class _Direct:
    """An all-scalar kernel's launcher behind its generated call (and method)."""

    __slots__ = ("launcher", "launch", "method")

    def __init__(self, launcher: CompiledKernel, generic: Callable | None, tape: bool) -> None:
        self.launcher = launcher
        self.launch = make_call(launcher, launcher.launch)
        self.method = method_for(launcher, generic, tape=tape) if generic else None


def direct(launcher, generic: Callable | None = None, tape: bool = True):
    """What an all-scalar kernel's calls launch: a compiled kernel's generated call
    (``launch(args)``, and ``method``, the kernel's ``__call__`` when ``generic`` is
    given), or ``launcher`` itself when it is not a plain compiled kernel."""
    return _Direct(launcher, generic, tape) if isinstance(launcher, CompiledKernel) else launcher


def register(kernel, args: tuple, launcher, *, compound: bool) -> None:
    """After a slow call of ``kernel`` with ``args`` launched ``launcher``: the calls
    after it go the fast way where they can. An all-scalar (or compound) signature has
    one launcher for every call, behind a generated ``__call__``; a signature with
    arrays (no template, no compound) dispatches by the arrays' types to the launcher
    each compiled for (:class:`NdarrayDispatch`)."""
    params = kernel._params
    if all(p.kind in ("scalar", "compound") for p in params):
        # no template or ndarray: every call launches this code
        own = own_class(kernel)
        kernel._fast = direct(launcher, own.__base__.__call__, not kernel._autodiff)
        method = getattr(kernel._fast, "method", None)
        if method is None:
            take_back(kernel)
        else:  # calls land in the generated __call__
            own.__call__ = method
            kernel.__class__ = own
    elif not compound and eligible(params):
        dispatch = kernel._fast
        if not isinstance(dispatch, NdarrayDispatch):
            positions = [k for k, p in enumerate(params) if p.kind == "ndarray"]
            own = own_class(kernel)
            dispatch = NdarrayDispatch(
                kernel._slow_call,
                positions,
                len(params),
                own,
                own.__base__.__call__,
                tape=not kernel._autodiff,
            )
            kernel._fast = dispatch
        dispatch.add(args, launcher)
        kernel.__class__ = dispatch.owner  # calls land in the generated __call__


def eligible(params: Sequence) -> bool:
    """Every parameter a scalar or a scalar-element ndarray (vector elements, templates and
    compound arguments need the full specialisation on every call)."""
    return all(
        p.kind == "scalar" or (p.kind == "ndarray" and not getattr(p, "element_shape", ()))
        for p in params
    )
