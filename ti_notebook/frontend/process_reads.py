"""What Python helpers run while compiling read from the process, for the offline cache.

A helper a kernel runs while compiling (``ti.static(settings())``, ``range(n_rows())``)
is fingerprinted by its code, closure, defaults and the globals it names
(``cache/fingerprint.py``); a library's by its name and version. What it reads from
outside Python - an environment variable, a file, the clock - is in none of these, and
a warm start does not run the helper again. So while the tracer runs such a call,
:func:`watch` watches the thread that runs it (a profile function for Python and C
calls, an audit hook for files and processes) and tells the kernel's
:class:`~ti_notebook.frontend.recorder.Reads` what it saw.

Recorded as dependencies, which a warm start checks again (:func:`value_now`):

- environment variables read through ``os.environ`` or ``os.environb`` (``[name]``,
  ``.get``, ``in``, ``os.getenv``): the name and its value, or that it was unset;
- files opened for reading (``open``, ``io.open``, ``os.open``, ``pathlib``'s
  ``read_text``, ``json.load(open(...))``, ``np.load(path)``): the path as given and
  the sha256 of the content, or that it was missing;
- ``sys.argv``: any function run that names ``argv`` records the whole list.

Make the kernel uncacheable (logged at debug level, as every uncacheable case is):

- the clock (``time.time``, ``perf_counter``, ``monotonic``, ``process_time``,
  ``localtime``, ``strftime``..., ``datetime.now``/``today``/``utcnow``) and randomness
  (``random``'s module functions, ``os.urandom``, NumPy's global random state), the
  process id;
- listing, setting or deleting environment variables; opening a file for writing or
  by descriptor; listing a directory; running a program; using the network;
- a profiler already running on the thread (the watch could not see the calls).

Not caught (a helper doing these has its first result replayed on a warm start):
reads from another thread the helper starts; ``posix.environ`` or
``os.environ._data``; file metadata without opening the file (``os.path.exists``,
``os.stat``, ``os.path.getmtime``); files, the clock or ``argv`` read by a C extension
itself (not through Python's ``open``, ``time`` or a function naming ``argv``); the code
of a module the helper imports (imports are not watched); an unseeded
``random.Random()`` or ``np.random.default_rng()`` the helper makes itself.

Only calls the tracer runs (``frontend/calls.py``) are watched: a property or a module
``__getattr__`` a kernel reads as ``cfg.N`` runs again when a warm start resolves the
path, so what it reads is checked without a watch.

    >>> import os
    >>> from ti_notebook.frontend.recorder import Reads
    >>> reads = Reads({})
    >>> os.environ["TIN_DOC_N"] = "4"
    >>> with watch(reads):
    ...     n = int(os.getenv("TIN_DOC_N"))
    >>> reads.captured[(ENV_SCOPE, "TIN_DOC_N")], value_now(ENV_SCOPE, "TIN_DOC_N")
    ('4', '4')
    >>> del os.environ["TIN_DOC_N"]
    >>> import time
    >>> with watch(reads):
    ...     _ = time.time()
    >>> reads.refused
    'a Python function it runs while compiling reads the clock'
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import random
import sys
import threading
import time
from collections.abc import Iterator

import numpy as np

ENV_SCOPE = "<environ>"
FILE_SCOPE = "<file>"
ARGV_SCOPE = "<argv>"
PROCESS_SCOPES = frozenset({ENV_SCOPE, FILE_SCOPE, ARGV_SCOPE})

_CLOCK = [
    getattr(time, name)
    for name in [
        "time",
        "time_ns",
        "perf_counter",
        "perf_counter_ns",
        "monotonic",
        "monotonic_ns",
        "process_time",
        "process_time_ns",
        "thread_time",
        "thread_time_ns",
        "clock_gettime",
        "clock_gettime_ns",
        "localtime",
        "gmtime",
        "ctime",
        "asctime",
        "strftime",
    ]
    if hasattr(time, name)
]
_RANDOM = [os.urandom, *(getattr(os, n) for n in ("getrandom",) if hasattr(os, n))]
_PROCESS = [os.getpid, os.getppid]
_UNTRACKED = {id(f): "reads the clock" for f in _CLOCK}
_UNTRACKED.update({id(f): "uses random numbers" for f in _RANDOM})
_UNTRACKED.update({id(f): "reads the process id" for f in _PROCESS})
_KEEP = [*_CLOCK, *_RANDOM, *_PROCESS]  # the ids above stay theirs
_CLOCK_METHODS = frozenset({"now", "today", "utcnow"})
_SHARED_RANDOM = (random._inst, np.random.mtrand._rand)  # random.random(), np.random.rand()

_Environ = type(os.environ)
_ENV_READ = _Environ.__getitem__.__code__
_ENV_REFUSED = {  # by id: the class holds the code objects, and ids never compare values
    id(_Environ.__iter__.__code__): "lists the environment",
    id(_Environ.__len__.__code__): "lists the environment",
    id(_Environ.__repr__.__code__): "lists the environment",
    id(_Environ.__setitem__.__code__): "changes the environment",
    id(_Environ.__delitem__.__code__): "changes the environment",
}
_EVENTS_REFUSED = {
    "os.listdir": "lists a directory",
    "os.scandir": "lists a directory",
    "glob.glob": "lists a directory",
    "os.putenv": "changes the environment",
    "os.unsetenv": "changes the environment",
    "subprocess.Popen": "runs a program",
    "os.system": "runs a program",
    "os.exec": "runs a program",
    "os.posix_spawn": "runs a program",
    "os.spawn": "runs a program",
    "os.fork": "runs a program",
    "socket.connect": "uses the network",
    "socket.getaddrinfo": "uses the network",
    "urllib.Request": "uses the network",
    "os.remove": "changes files",
    "os.rename": "changes files",
    "os.mkdir": "changes files",
    "sqlite3.connect": "opens a database",
    "mmap.__new__": "maps a file",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class _Watch:
    """One helper call being watched: the thread it runs on and what it read."""

    def __init__(self, reads) -> None:
        self.reads = reads
        self.thread = threading.get_ident()
        self.files: list[str] = []

    def refuse(self, what: str) -> None:
        self.reads.refuse(f"a Python function it runs while compiling {what}")

    def record(self, scope: str, path: str, value) -> None:
        # straight into the captured values: these are not objects attribute chains
        # start from, so they get no path of their own in the recorder
        self.reads.captured.setdefault((scope, path), value)


_active: list[_Watch] = []  # innermost last; a helper may compile another kernel
_hook_added = False


@contextlib.contextmanager
def watch(reads) -> Iterator[None]:
    """Watches the Python code run inside the block on this thread (see the module
    docstring), recording into ``reads`` (a :class:`Reads`)."""
    global _hook_added
    if not _hook_added:  # audit hooks cannot be removed: one, idle outside a watch
        sys.addaudithook(_audit)
        _hook_added = True
    current = _Watch(reads)
    previous = sys.getprofile()
    if previous is not None and previous is not _profile:
        current.refuse("runs under a profiler, so what it reads cannot be watched")
    _active.append(current)
    if previous is None:
        sys.setprofile(_profile)
    try:
        yield
    finally:
        if previous is None:
            sys.setprofile(None)
        _active.remove(current)
        for path in current.files:  # hashed after the call: the hook must not read
            current.record(FILE_SCOPE, path, _file_print(path))


def value_now(scope: str, path: str):
    """What a recorded process read gives now (compared with the recorded value's
    fingerprint on a warm start)."""
    if scope == ENV_SCOPE:
        return os.environ.get(path)
    if scope == FILE_SCOPE:
        return _file_print(path)
    return list(sys.argv)


def _watches() -> list[_Watch]:
    thread = threading.get_ident()
    return [w for w in _active if w.thread == thread]


def _profile(frame, event: str, arg) -> None:
    # what a profile or audit hook raises would reach the helper: never let it
    try:
        _seen_call(frame, event, arg)
    except Exception as error:  # noqa: BLE001 - refused instead of breaking the helper
        for w in _watches():
            w.refuse(f"could not be watched ({type(error).__name__})")


def _seen_call(frame, event: str, arg) -> None:
    if event == "c_call":
        why = _untracked(arg)
        if why is not None:
            for w in _watches():
                w.refuse(why)
    elif event == "call":
        code = frame.f_code
        if code is _ENV_READ:
            _env_read(frame.f_locals.get("key"))
        elif id(code) in _ENV_REFUSED:
            for w in _watches():
                w.refuse(_ENV_REFUSED[id(code)])
        elif "argv" in code.co_names:  # sys.argv, or a global bound to it
            for w in _watches():
                w.record(ARGV_SCOPE, "argv", list(sys.argv))


def _untracked(function) -> str | None:
    why = _UNTRACKED.get(id(function))
    if why is not None:
        return why
    owner = getattr(function, "__self__", None)
    if owner is None:
        return None
    if any(owner is shared for shared in _SHARED_RANDOM):
        return "uses random numbers"
    # `is`, not `in`: the owner may be an array, whose == gives an array
    clock_class = owner is datetime.datetime or owner is datetime.date
    if clock_class and function.__name__ in _CLOCK_METHODS:
        return "reads the clock"
    return None


def _env_read(key) -> None:
    if isinstance(key, bytes):
        key = os.fsdecode(key)
    for w in _watches():
        if isinstance(key, str):
            w.record(ENV_SCOPE, key, os.environ.get(key))
        else:
            w.refuse("reads the environment with a key that is not text")


def _audit(event: str, args: tuple) -> None:
    if not _active:  # the usual case: one check per audit event of the process
        return
    try:
        _seen_event(event, args)
    except Exception as error:  # noqa: BLE001 - an audit hook's error would stop the open
        for w in _watches():
            w.refuse(f"could not be watched ({type(error).__name__})")


def _seen_event(event: str, args: tuple) -> None:
    if event != "open" and event not in _EVENTS_REFUSED:
        return  # (sys._getframe raises an event too: _importing must not see its own)
    watches = _watches()
    if not watches or _importing():
        return  # an import (its files, its folder listings): not what a helper reads
    if event == "open":
        path, mode, flags = (*args, None, None, 0)[:3]
        _opened(watches, path, mode, flags)
        return
    why = _EVENTS_REFUSED.get(event)
    if why is not None:
        for w in watches:
            w.refuse(why)


def _importing() -> bool:
    """Whether the event comes from the import system (the caller of open or listdir)."""
    caller = sys._getframe(1)
    while caller is not None and caller.f_globals.get("__name__") == __name__:
        caller = caller.f_back  # past this module's frames
    return caller is not None and caller.f_code.co_filename.startswith("<frozen importlib")


def _opened(watches: list[_Watch], path, mode, flags) -> None:
    writes = any(c in mode for c in "wax+") if isinstance(mode, str) else flags & _WRITE_FLAGS
    for w in watches:
        if writes:
            w.refuse("writes a file")
        elif isinstance(path, (str, bytes, os.PathLike)):
            w.files.append(os.fsdecode(os.fspath(path)))
        else:
            w.refuse("opens a file by descriptor")


def _file_print(path: str) -> str:
    """The content's sha256 (and size), or why it could not be read."""
    try:
        with open(path, "rb") as file:
            digest, size = hashlib.sha256(), 0
            while chunk := file.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return f"unreadable:{type(error).__name__}"
    return f"sha256:{digest.hexdigest()}:{size}"
