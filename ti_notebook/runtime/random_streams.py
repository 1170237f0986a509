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
counter is ``(iteration, site, count, 0)``. Philox-4x32-10 (Salmon et al., SC'11, the
generator of cuRAND and JAX) passes BigCrush for any key and counter, so distinct
inputs give independent-looking numbers. Threads and chunking never enter: the numbers
are the same for 1 and 16 threads, which Taichi's per-thread generators do not give.

This module is the reference the generated code is tested against:

    >>> [hex(w) for w in philox4x32((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
    ...                             (0xA4093822, 0x299F31D0))]
    ['0xd16cfe09', '0x94fdcceb', '0x5001e420', '0x24126ea1']
    >>> uniform_f32(block(stream=1, launch=0, iteration=0, site=0)) < 1.0
    True
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57  # round multipliers
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85  # key schedule (Weyl) increments
PHILOX_ROUNDS = 10
MIX_M1, MIX_M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64's finaliser


def mix64(x: int) -> int:
    """SplitMix64's finaliser: a bijection of 64-bit words with full avalanche.

    >>> hex(mix64(0)), hex(mix64(1))
    ('0x0', '0x5692161d100b05e5')
    """
    x &= MASK64
    x = ((x ^ (x >> 30)) * MIX_M1) & MASK64
    x = ((x ^ (x >> 27)) * MIX_M2) & MASK64
    return x ^ (x >> 31)


def philox4x32(counter: tuple[int, ...], key: tuple[int, int]) -> tuple[int, ...]:
    """Philox-4x32-10 of a 4-word counter under a 2-word key (Random123's reference)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(PHILOX_ROUNDS):
        if round_:
            k0, k1 = (k0 + PHILOX_W0) & MASK32, (k1 + PHILOX_W1) & MASK32
        p0, p1 = PHILOX_M0 * c0, PHILOX_M1 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
    return c0, c1, c2, c3


def launch_key(stream: int, launch: int) -> tuple[int, int]:
    """The Philox key of one launch of a stream, as two 32-bit words (low, high)."""
    key = mix64(stream ^ mix64(launch))
    return key & MASK32, key >> 32


def block(stream: int, launch: int, iteration: int, site: int, count: int = 0) -> tuple:
    """The four words one ``ti.random``/``ti.randn`` call draws (see the module text)."""
    counter = (iteration & MASK32, site & MASK32, count & MASK32, 0)
    return philox4x32(counter, launch_key(stream, launch))


def uniform_f32(words: tuple) -> float:
    """``ti.random(ti.f32)`` from a block: the top 24 bits of word 0, in [0, 1)."""
    return (words[0] >> 8) * 2.0**-24


def uniform_f64(words: tuple) -> float:
    """``ti.random(ti.f64)`` from a block: the top 53 bits of words 1:0, in [0, 1)."""
    return ((words[1] << 32 | words[0]) >> 11) * 2.0**-53


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
    from ti_notebook.codegen.common import CTX_STREAM

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
