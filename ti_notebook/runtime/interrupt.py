"""Stopping a running kernel with SIGINT (Jupyter's interrupt button, Ctrl-C).

The native handler (``runtime/cpu/interrupt_ir.py``) goes in front of CPython's: during a
launch it raises a flag that the pool and the compiled loops poll, so the launch returns
within a fraction of a second and :meth:`CompiledKernel.launch` raises
``KeyboardInterrupt``; outside launches it hands the signal to CPython as before. Fields
keep what the kernel wrote before it stopped, and the next launch runs normally.

``signal.signal(SIGINT, ...)`` replaces the process's handler, and ipykernel calls it
around every cell (SIG_IGN between cells, CPython's handler during one). So it is
wrapped here to put ours back in front of whatever was installed, and so are the
references modules took with ``from signal import signal`` before (ipykernel's
``kernelbase`` does): ``patch_imported_references`` runs at ``ti.init``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> installed()
    True
"""

from __future__ import annotations

import ctypes
import functools
import signal
import sys

SA_SIGINFO = 0x4
_libc = ctypes.CDLL(None, use_errno=True)


class _Sigaction(ctypes.Structure):
    """glibc's ``struct sigaction`` on x86-64 Linux."""

    _fields_ = [
        ("handler", ctypes.c_void_p),
        ("mask", ctypes.c_ulong * 16),
        ("flags", ctypes.c_int),
        ("restorer", ctypes.c_void_p),
    ]


_libc.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
_handler_address = 0
_previous_slot: ctypes.c_void_p | None = None
state = (ctypes.c_int32 * 2)()  # replaced by the pool's own state in ``attach``
state_address = ctypes.addressof(state)


def attach(state_ptr: int, previous_ptr: int, handler: int) -> None:
    """Binds this module to the pool's interrupt state and handler, and installs it."""
    global state, state_address, _previous_slot, _handler_address
    state = (ctypes.c_int32 * 2).from_address(state_ptr)
    state_address = state_ptr
    _previous_slot = ctypes.c_void_p.from_address(previous_ptr)
    _handler_address = handler
    patch_imported_references()
    install()


def _current() -> _Sigaction:
    action = _Sigaction()
    _libc.sigaction(signal.SIGINT, None, ctypes.byref(action))
    return action


def install() -> None:
    """Puts the native handler in front of the current SIGINT handler (once)."""
    if not _handler_address:
        return
    current = _current()
    if current.handler == _handler_address or (current.handler or 0) <= 1:
        return  # already ours, or SIGINT is ignored / default: leave it so
    _previous_slot.value = current.handler  # before ours can run
    ours = _Sigaction()
    ours.handler = _handler_address
    ours.mask = current.mask
    ours.flags = current.flags | SA_SIGINFO
    _libc.sigaction(signal.SIGINT, ctypes.byref(ours), None)


def installed() -> bool:
    """Whether the native handler is the process's SIGINT handler now."""
    return bool(_handler_address) and _current().handler == _handler_address


def was_interrupted() -> bool:
    """True after a launch that SIGINT stopped (reset when the next launch starts)."""
    return bool(state[0])


_python_signal = signal.signal


@functools.wraps(_python_signal)
def _signal_keeping_ours(signalnum, handler):
    previous = _python_signal(signalnum, handler)
    if signalnum == signal.SIGINT:
        install()
    return previous


signal.signal = _signal_keeping_ours


def patch_imported_references() -> None:
    """Points every loaded module's own ``signal`` name at the wrapper, where it is
    ``signal.signal`` itself (``from signal import signal``)."""
    for module in list(sys.modules.values()):
        if getattr(module, "signal", None) is _python_signal:
            module.signal = _signal_keeping_ours
