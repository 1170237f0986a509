"""Where ``ti.random()`` numbers come from: Philox-4x32-10, keyed so no stream repeats.

Every random number is a pure function of five things, never of a thread or a chunk:

- the **stream** of the compiled kernel: a 64-bit hash of ``ti.init(random_seed=s)``,
  the kernel's name, source and parameter types, and how many kernels with that same
  identity this session compiled before it (so two specialisations, or a recompile
  after a tree was destroyed, get streams of their own). It is the same on a cold
  compile and on an offline-cache hit because both know those inputs and nothing else
  goes in; it is written into the launch context once (``CTX_STREAM``);
- the **launch number** of that compiled kernel (0, 1, 2, ...; ``CTX_LAUNCH``);
- the **iteration**: the flat index of the task's parallel loop (0 in serial code);
- the **site**: a number per ``ti.random`` call site in the kernel, counted by codegen;
- the **count**: how many times that site ran before in this iteration (only sites
  inside loops nested in the iteration keep a counter; others use 0).

The Philox key is ``mix64(stream ^ mix64(launch))`` (one per launch and task call), the
counter is ``(iteration, site, count, 0)``: ``ir/philox.py`` defines the generator and
is the reference the generated code is tested against. Threads and chunking never
enter: the numbers are the same for 1 and 16 threads, which Taichi's per-thread
generators do not give.

    >>> a = stream_for(seed=0, kernel_identity="k", instance=0)
    >>> a == stream_for(0, "k", 0), a != stream_for(0, "k", 1), 0 <= a < 2**64
    (True, True, True)
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading

from ti_notebook.ir.launch_abi import CTX_STREAM

# -- streams: one per compiled kernel ---------------------------------------------------
_lock = threading.Lock()
_session: object = None
_instances: dict[str, int] = {}


def identity(request) -> str:
    """What names a kernel specialisation across processes: name, source, parameters."""
    params = [(p.name, p.kind, p.dtype.name if p.dtype else None, p.ndim) for p in request.params]
    text = json.dumps([request.name, request.source.text, params])
    return hashlib.sha256(text.encode()).hexdigest()


def stream_for(seed: int, kernel_identity: str, instance: int) -> int:
    """The 64-bit stream of the ``instance``-th kernel with this identity in a session."""
    text = json.dumps([int(seed), kernel_identity, instance])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def attach(compiled, request, session: object, seed: int) -> int:
    """Gives a freshly compiled (or cache-loaded) kernel its stream; returns it.

    ``session`` is the object of the current ``ti.init`` (its config): a new one starts
    the instance counts again, so ``ti.init(random_seed=seed)`` replays the same numbers.
    """
    global _session
    name = identity(request)
    with _lock:
        if session is not _session:
            _session = session
            _instances.clear()
        instance = _instances.get(name, 0)
        _instances[name] = instance + 1
    stream = stream_for(seed, name, instance)
    struct.pack_into("<Q", compiled.ctx, CTX_STREAM, stream)
    compiled.random_stream = stream
    return stream
